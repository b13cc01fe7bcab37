// Region decoding equals the full decode inside the region, bit for bit, over
// random
// boxes in every chroma subsampling TurboJPEG writes (and gray, CMYK/YCCK,
// progressive, restart intervals); errors name the file.
#include "codecs/jpeg.h"

#include <turbojpeg.h>

#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace fusednorm {
namespace {

// A JPEG of noisy gradients, h x w, `subsamp` (TJSAMP_*), `pf` TJPF_RGB or
// TJPF_CMYK, with `flags`.
std::vector<uint8_t> Encode(int h, int w, int subsamp, int pf, int flags) {
  const int C = pf == TJPF_CMYK ? 4 : 3;
  std::vector<uint8_t> px(h * w * C);
  std::mt19937 rng(h * 31 + w);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w * C; ++x) {
      px[y * w * C + x] = static_cast<uint8_t>(x * 3 + y * 5 + rng() % 40);
    }
  }
  tjhandle tj = tjInitCompress();
  unsigned char* out = nullptr;
  unsigned long size = 0;
  EXPECT_EQ(tjCompress2(tj, px.data(), w, w * C, h, pf, &out, &size, subsamp,
                        90, flags),
            0)
      << tjGetErrorStr2(tj);
  std::vector<uint8_t> bytes(out, out + size);
  tjFree(out);
  tjDestroy(tj);
  return bytes;
}

void ExpectRegionsMatch(const std::vector<uint8_t>& jpeg, std::mt19937* rng) {
  const absl::StatusOr<DecodedRegion> full = DecodeJpeg(jpeg, "full");
  ASSERT_TRUE(full.ok()) << full.status();
  const Image& f = full->image;
  for (int i = 0; i < 40; ++i) {
    const int64_t h = 1 + (*rng)() % f.height, w = 1 + (*rng)() % f.width;
    const CropWindow box{static_cast<int64_t>((*rng)() % (f.height - h + 1)),
                         static_cast<int64_t>((*rng)() % (f.width - w + 1)), h,
                         w};
    const absl::StatusOr<DecodedRegion> r = DecodeJpeg(jpeg, "region", box);
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_LE(r->top, box.top);
    ASSERT_LE(r->left, box.left);
    ASSERT_GE(r->top + r->image.height, box.top + box.height);
    ASSERT_GE(r->left + r->image.width, box.left + box.width);
    // The box's pixels (the margin around it may differ).
    for (int64_t y = box.top; y < box.top + h; ++y) {
      for (int64_t x = box.left * 3; x < (box.left + w) * 3; ++x) {
        ASSERT_EQ(
            r->image
                .pixels[(y - r->top) * r->image.width * 3 + x - r->left * 3],
            f.pixels[y * f.width * 3 + x])
            << "box " << box.top << "," << box.left << " " << h << "x" << w
            << " at row " << y << " byte " << x;
      }
    }
  }
}

TEST(Jpeg, RegionsEqualTheFullDecode) {
  std::mt19937 rng(9);
  for (int subsamp : {TJSAMP_444, TJSAMP_422, TJSAMP_420, TJSAMP_440,
                      TJSAMP_411, TJSAMP_GRAY}) {
    for (int flags : {0, TJFLAG_PROGRESSIVE}) {
      SCOPED_TRACE(::testing::Message()
                   << "subsampling " << subsamp << " flags " << flags);
      ExpectRegionsMatch(Encode(77, 131, subsamp, TJPF_RGB, flags), &rng);
    }
  }
  SCOPED_TRACE("YCCK");
  ExpectRegionsMatch(Encode(45, 70, TJSAMP_420, TJPF_CMYK, 0), &rng);
}

// At 1/2, 1/4 and 1/8 scale, a region's box (ScaleBox) equals the whole
// image decoded at that scale.
TEST(Jpeg, ScaledRegionsEqualTheScaledFullDecode) {
  std::mt19937 rng(13);
  for (int subsamp : {TJSAMP_444, TJSAMP_420, TJSAMP_GRAY}) {
    const std::vector<uint8_t> jpeg = Encode(131, 177, subsamp, TJPF_RGB, 0);
    for (int scale : {2, 4, 8}) {
      SCOPED_TRACE(::testing::Message()
                   << "subsampling " << subsamp << " scale 1/" << scale);
      DecodedRegion full, part;
      ASSERT_TRUE(DecodeJpegInto(
                      jpeg, "f",
                      [&](Size2) {
                        return JpegRequest{{}, scale};
                      },
                      &full)
                      .ok());
      EXPECT_EQ(full.size.height, (131 + scale - 1) / scale);
      EXPECT_EQ(full.image.width, (177 + scale - 1) / scale);
      for (int i = 0; i < 30; ++i) {
        const int64_t h = 1 + rng() % 131, w = 1 + rng() % 177;
        const CropWindow box{static_cast<int64_t>(rng() % (131 - h + 1)),
                             static_cast<int64_t>(rng() % (177 - w + 1)), h, w};
        ASSERT_TRUE(DecodeJpegInto(
                        jpeg, "p",
                        [&](Size2) {
                          return JpegRequest{box, scale};
                        },
                        &part)
                        .ok());
        const CropWindow s = ScaleBox(box, scale, part.size);
        for (int64_t y = s.top; y < s.top + s.height; ++y) {
          for (int64_t x = s.left * 3; x < (s.left + s.width) * 3; ++x) {
            ASSERT_EQ(part.image.pixels[(y - part.top) * part.image.width * 3 +
                                        x - part.left * 3],
                      full.image.pixels[y * full.image.width * 3 + x])
                << "row " << y << " byte " << x;
          }
        }
      }
    }
  }
}

TEST(Jpeg, ChooserSeesTheSizeAndErrors) {
  const std::vector<uint8_t> jpeg = Encode(33, 47, TJSAMP_420, TJPF_RGB, 0);
  Size2 seen;
  DecodedRegion region;
  ASSERT_TRUE(DecodeJpegInto(
                  jpeg, "a.jpg",
                  [&](Size2 s) {
                    seen = s;
                    return JpegRequest{CropWindow{20, 30, 5, 6}, 1};
                  },
                  &region)
                  .ok());
  EXPECT_EQ(seen.height, 33);
  EXPECT_EQ(seen.width, 47);
  EXPECT_LE(region.top, 20);
  EXPECT_GE(region.top + region.image.height, 25);
  std::vector<uint8_t> truncated(jpeg.begin(), jpeg.begin() + jpeg.size() / 2);
  absl::StatusOr<DecodedRegion> r = DecodeJpeg(truncated, "cut.jpg");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cut.jpg: "), std::string::npos);
  EXPECT_NE(r.status().message().find("Premature end"), std::string::npos)
      << r.status().message();
  r = DecodeJpeg(jpeg, "a.jpg", CropWindow{30, 0, 4, 4});
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(DecodeJpeg(std::vector<uint8_t>{0xff, 0xd8, 0xff}, "b").ok());
}

// `jpeg` (baseline) with its frame header declaring `height` x `width`.
std::vector<uint8_t> Declaring(std::vector<uint8_t> jpeg, int height,
                               int width) {
  for (size_t i = 0; i + 8 < jpeg.size(); ++i) {
    if (jpeg[i] == 0xff && jpeg[i + 1] == 0xc0) {
      jpeg[i + 5] = height >> 8, jpeg[i + 6] = height & 0xff;
      jpeg[i + 7] = width >> 8, jpeg[i + 8] = width & 0xff;
      return jpeg;
    }
  }
  ADD_FAILURE() << "no SOF0 marker";
  return jpeg;
}

TEST(Jpeg, RefusesMorePixelsThanPillowDecodes) {
  // A few hundred bytes may declare a decompression bomb: Pillow refuses
  // more than 178956970 pixels (twice Image.MAX_IMAGE_PIXELS), and so does
  // the decoder, before allocating any.
  const std::vector<uint8_t> jpeg = Encode(16, 16, TJSAMP_444, TJPF_RGB, 0);
  absl::StatusOr<DecodedRegion> r =
      DecodeJpeg(Declaring(jpeg, 13378, 13377), "bomb.jpg");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "bomb.jpg: JPEG size 13377x13378 is not supported (more than the "
            "178956970 pixels Pillow decodes: a decompression bomb)");
  // 13377 x 13377 = 178944129 pixels is allowed: the chooser sees it.
  Size2 seen;
  DecodedRegion region;
  const absl::Status s = DecodeJpegInto(
      Declaring(jpeg, 13377, 13377), "big.jpg",
      [&](Size2 size) {
        seen = size;
        JpegRequest cancel;
        cancel.cancel = true;
        return cancel;
      },
      &region);
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled) << s;
  EXPECT_EQ(seen.height, 13377);
  EXPECT_EQ(seen.width, 13377);
}

}  // namespace
}  // namespace fusednorm
