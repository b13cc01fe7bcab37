// Restart-marker transcoding: the output decodes to exactly the input's
// pixels (every subsampling, gray, CMYK, YCCK, odd sizes; baseline,
// progressive, arithmetic and optimized inputs), has the interval asked for
// in one baseline scan the segment decoder accepts, and its regions from
// segments equal the input's full decode; markers are copied; what cannot
// be copied losslessly is an error naming the file.
#include "codecs/jpeg_transcode.h"

#include <random>
#include <string>
#include <vector>

#include "codecs/jpeg.h"
#include "codecs/jpeg_segments.h"
#include "gtest/gtest.h"
#include "testing/jpeg_files.h"

namespace fusednorm {
namespace {

std::vector<uint8_t> Make(const JpegSpec& spec) {
  const std::vector<uint8_t> jpeg = EncodeTestJpeg(
      spec, NoisyGradient(spec.height, spec.width, spec.components, 3));
  EXPECT_FALSE(jpeg.empty());
  return jpeg;
}

Image Full(const std::vector<uint8_t>& jpeg) {
  absl::StatusOr<DecodedRegion> r = DecodeJpeg(jpeg, "full");
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->image : Image();
}

// `out` decodes as `in` does, whole and by regions from its segments, and
// has `interval` MCUs between restart markers.
void ExpectLossless(const std::vector<uint8_t>& in,
                    const std::vector<uint8_t>& out, int64_t interval,
                    std::mt19937* rng) {
  const Image want = Full(in), got = Full(out);
  ASSERT_EQ(got.height, want.height);
  ASSERT_EQ(got.width, want.width);
  ASSERT_EQ(got.pixels, want.pixels);
  const std::optional<RestartLayout> layout = ReadRestartLayout(out);
  ASSERT_TRUE(layout.has_value());
  EXPECT_EQ(layout->interval, interval);
  int segmented = 0;
  for (int i = 0; i < 10; ++i) {
    const int64_t h = 1 + (*rng)() % want.height, w = 1 + (*rng)() % want.width;
    const CropWindow box{static_cast<int64_t>((*rng)() % (want.height - h + 1)),
                         static_cast<int64_t>((*rng)() % (want.width - w + 1)),
                         h, w};
    const absl::StatusOr<DecodedRegion> r = DecodeJpeg(out, "region", box);
    ASSERT_TRUE(r.ok()) << r.status();
    segmented += r->from_segments;
    for (int64_t y = box.top; y < box.top + h; ++y) {
      for (int64_t x = box.left * 3; x < (box.left + w) * 3; ++x) {
        ASSERT_EQ(
            r->image
                .pixels[(y - r->top) * r->image.width * 3 + x - r->left * 3],
            want.pixels[y * want.width * 3 + x]);
      }
    }
  }
  EXPECT_GT(segmented, 0);
}

TEST(JpegTranscode, EveryKindOfInput) {
  std::mt19937 rng(1);
  const std::pair<int, int> samplings[] = {
      {1, 1}, {2, 1}, {2, 2}, {1, 2}, {4, 1}};
  for (auto [h, v] : samplings) {
    for (int kind = 0; kind < 5; ++kind) {
      JpegSpec spec{75, 133};
      spec.h_samp = h;
      spec.v_samp = v;
      spec.progressive = kind == 1 || kind == 3;
      spec.arithmetic = kind == 2 || kind == 3;
      spec.optimize = kind == 4;
      spec.restart_mcus = kind == 4 ? 5 : 0;
      SCOPED_TRACE(::testing::Message()
                   << h << "x" << v << " progressive " << spec.progressive
                   << " arithmetic " << spec.arithmetic);
      const std::vector<uint8_t> in = Make(spec);
      const int64_t per_row = (133 + 8 * h - 1) / (8 * h);
      for (const RestartSpacing spacing :
           {RestartSpacing{true, 0}, RestartSpacing{false, 1},
            RestartSpacing{false, 4}}) {
        absl::StatusOr<std::vector<uint8_t>> out =
            AddRestartMarkers(in, "in.jpg", spacing);
        ASSERT_TRUE(out.ok()) << out.status();
        ExpectLossless(in, *out, RestartInterval(spacing, per_row), &rng);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(JpegTranscode, GrayCmykYcckOddSizes) {
  std::mt19937 rng(2);
  for (int components : {1, 3, 4}) {
    for (auto [height, width] : {std::pair{1, 1}, std::pair{9, 300},
                                 std::pair{61, 91}, std::pair{200, 17}}) {
      for (bool progressive : {false, true}) {
        JpegSpec spec{height, width};
        spec.components = components;
        spec.ycck = components == 4 && progressive;
        spec.progressive = progressive;
        SCOPED_TRACE(::testing::Message()
                     << components << " components " << height << "x" << width);
        const std::vector<uint8_t> in = Make(spec);
        absl::StatusOr<std::vector<uint8_t>> out =
            AddRestartMarkers(in, "in.jpg", RestartSpacing{false, 2});
        ASSERT_TRUE(out.ok()) << out.status();
        const Image want = Full(in), got = Full(*out);
        ASSERT_EQ(got.pixels, want.pixels);
        const std::optional<RestartLayout> layout = ReadRestartLayout(*out);
        ASSERT_TRUE(layout.has_value());
        EXPECT_EQ(layout->interval,
                  RestartInterval({false, 2}, layout->mcus_per_row));
        if (height > 1) ExpectLossless(in, *out, layout->interval, &rng);
      }
    }
  }
}

TEST(JpegTranscode, IntervalsDivideTheRow) {
  EXPECT_EQ(RestartInterval({true, 0}, 32), 32);
  EXPECT_EQ(RestartInterval({false, 4}, 32), 4);
  EXPECT_EQ(RestartInterval({false, 4}, 30), 3);
  EXPECT_EQ(RestartInterval({false, 4}, 31), 1);
  EXPECT_EQ(RestartInterval({false, 100}, 30), 30);
  EXPECT_EQ(RestartInterval({false, 1}, 7), 1);
}

TEST(JpegTranscode, MarkersAreCopied) {
  std::vector<uint8_t> in = Make(JpegSpec{40, 50});
  const std::string app1 = "Exif\0\0some metadata", comment = "a comment";
  std::vector<uint8_t> extra = {0xFF, 0xE1, 0,
                                static_cast<uint8_t>(app1.size() + 2)};
  extra.insert(extra.end(), app1.begin(), app1.end());
  extra.insert(extra.end(),
               {0xFF, 0xFE, 0, static_cast<uint8_t>(comment.size() + 2)});
  extra.insert(extra.end(), comment.begin(), comment.end());
  in.insert(in.begin() + 20, extra.begin(), extra.end());  // after JFIF
  absl::StatusOr<std::vector<uint8_t>> out =
      AddRestartMarkers(in, "in.jpg", RestartSpacing{true, 0});
  ASSERT_TRUE(out.ok()) << out.status();
  const std::string s(out->begin(), out->end());
  EXPECT_NE(s.find(std::string(extra.begin(), extra.end())), std::string::npos);
  EXPECT_EQ(s.find("JFIF"), s.rfind("JFIF"));  // written once
  EXPECT_EQ(Full(*out).pixels, Full(in).pixels);
}

TEST(JpegTranscode, ErrorsNameTheFile) {
  const std::vector<uint8_t> in = Make(JpegSpec{40, 50});
  const std::vector<uint8_t> cut(in.begin(), in.begin() + in.size() / 2);
  absl::StatusOr<std::vector<uint8_t>> out =
      AddRestartMarkers(cut, "cut.jpg", RestartSpacing{true, 0});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("cut.jpg: "), std::string::npos);
  EXPECT_NE(out.status().message().find("Premature end"), std::string::npos)
      << out.status();
  out = AddRestartMarkers(std::vector<uint8_t>{1, 2, 3}, "junk",
                          RestartSpacing{true, 0});
  EXPECT_FALSE(out.ok());
  JpegSpec spec{40, 50};
  spec.unrefined_ac_bits = 2;
  const std::vector<uint8_t> rough = Make(spec);
  out = AddRestartMarkers(rough, "rough.jpg", RestartSpacing{true, 0});
  // A baseline copy would decode without the smoothing.
  if (out.ok()) {
    EXPECT_NE(Full(*out).pixels, Full(rough).pixels);
  }
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("rough.jpg: cannot add restart"),
            std::string::npos)
      << out.status();
}

}  // namespace
}  // namespace fusednorm
