// Restart-segment decoding: a region decoded from only its segments equals
// the full decode of the same file inside the region, bit for bit, for
// every chroma subsampling, gray, CMYK and YCCK, odd sizes, intervals of one
// MCU, several MCUs, one row and several rows, boxes touching every edge
// and corner, 1-pixel boxes, and 1/2..1/8 scales; the segments are used
// exactly where the cut applies. Damaged files (restart markers renumbered,
// missing or duplicated, a segment cut short, junk between segments, a DRI
// without markers, a truncated file) give the window decode's pixels or its
// error.
#include "codecs/jpeg_segments.h"

#include <random>
#include <string>
#include <vector>

#include "codecs/jpeg.h"
#include "gtest/gtest.h"
#include "testing/jpeg_files.h"

namespace fusednorm {
namespace {

constexpr int64_t kMargin = 8;  // jpeg.cc's margin at scale 1

std::vector<uint8_t> Make(JpegSpec spec, uint32_t seed = 1) {
  const std::vector<uint8_t> jpeg = EncodeTestJpeg(
      spec, NoisyGradient(spec.height, spec.width, spec.components, seed));
  EXPECT_FALSE(jpeg.empty());
  return jpeg;
}

DecodedRegion Decode(const std::vector<uint8_t>& jpeg,
                     std::optional<CropWindow> box, bool segments,
                     int scale = 1, absl::Status* status = nullptr) {
  DecodedRegion r;
  const absl::Status s = DecodeJpegInto(
      jpeg, "test.jpg",
      [&](Size2) {
        return JpegRequest{box, scale, segments};
      },
      &r);
  if (status != nullptr) {
    *status = s;
  } else {
    EXPECT_TRUE(s.ok()) << s;
  }
  return r;
}

// Whether jpeg.cc should take the segments for `box` (the cut applies).
bool CutApplies(const std::vector<uint8_t>& jpeg, const CropWindow& box,
                int scale = 1) {
  const std::optional<RestartLayout> l = ReadRestartLayout(jpeg);
  return l && PlanSegmentCut(*l, box, kMargin * scale).has_value();
}

// The box's pixels of `r` equal those of `want` (both decoded at 1/scale;
// `want` may be a region too).
void ExpectBoxEqual(const DecodedRegion& r, const DecodedRegion& want,
                    const CropWindow& box, int scale = 1) {
  const CropWindow s = ScaleBox(box, scale, want.size);
  ASSERT_EQ(r.size.height, want.size.height);
  ASSERT_EQ(r.size.width, want.size.width);
  for (const DecodedRegion* d : {&r, &want}) {
    ASSERT_LE(d->top, s.top);
    ASSERT_LE(d->left, s.left);
    ASSERT_GE(d->top + d->image.height, s.top + s.height);
    ASSERT_GE(d->left + d->image.width, s.left + s.width);
  }
  const auto at = [](const DecodedRegion& d, int64_t y, int64_t x) {
    return d.image.pixels[(y - d.top) * d.image.width * 3 + x - d.left * 3];
  };
  for (int64_t y = s.top; y < s.top + s.height; ++y) {
    for (int64_t x = s.left * 3; x < (s.left + s.width) * 3; ++x) {
      ASSERT_EQ(at(r, y, x), at(want, y, x))
          << "box " << box.top << "," << box.left << " " << box.height << "x"
          << box.width << " at row " << y << " byte " << x;
    }
  }
}

// Boxes touching each edge and corner, 1-pixel ones, strips, the whole
// image, then random ones.
std::vector<CropWindow> Boxes(int64_t h, int64_t w, std::mt19937* rng,
                              int random) {
  std::vector<CropWindow> boxes = {
      {0, 0, h, w},
      {0, 0, 1, 1},
      {0, w - 1, 1, 1},
      {h - 1, 0, 1, 1},
      {h - 1, w - 1, 1, 1},
      {h / 2, w / 2, 1, 1},
      {0, 0, h / 3, w / 3},
      {0, w - w / 3, h / 3, w / 3},
      {h - h / 3, 0, h / 3, w / 3},
      {h - h / 3, w - w / 3, h / 3, w / 3},
      {0, w / 4, h / 3, w / 2},
      {h - h / 3, w / 4, h / 3, w / 2},
      {h / 4, 0, h / 2, w / 3},
      {h / 4, w - w / 3, h / 2, w / 3},
      {h / 3, 0, h / 3, w},
      {0, w / 3, h, w / 3},
      {17, 23, 1, w - 23},
      {h / 2, w / 2, h - h / 2, w - w / 2},
  };
  for (int i = 0; i < random; ++i) {
    const int64_t bh = 1 + (*rng)() % h, bw = 1 + (*rng)() % w;
    boxes.push_back({static_cast<int64_t>((*rng)() % (h - bh + 1)),
                     static_cast<int64_t>((*rng)() % (w - bw + 1)), bh, bw});
  }
  for (CropWindow& b : boxes) {
    b.height = std::max<int64_t>(1, b.height);
    b.width = std::max<int64_t>(1, b.width);
    b.top = std::min(b.top, h - b.height);
    b.left = std::min(b.left, w - b.width);
  }
  return boxes;
}

// Every box of `jpeg` from its segments equals the full decode; returns how
// many took the segments.
int ExpectRegionsMatch(const std::vector<uint8_t>& jpeg, std::mt19937* rng,
                       int random = 30) {
  const DecodedRegion full = Decode(jpeg, std::nullopt, false);
  int segmented = 0;
  for (const CropWindow& box :
       Boxes(full.image.height, full.image.width, rng, random)) {
    SCOPED_TRACE(::testing::Message() << "box " << box.top << "," << box.left
                                      << " " << box.height << "x" << box.width);
    const DecodedRegion r = Decode(jpeg, box, true);
    EXPECT_EQ(r.from_segments, CutApplies(jpeg, box));
    segmented += r.from_segments;
    ExpectBoxEqual(r, full, box);
    if (::testing::Test::HasFatalFailure()) return segmented;
  }
  return segmented;
}

struct Sampling {
  const char* name;
  int h, v;
};
constexpr Sampling kSamplings[] = {
    {"444", 1, 1}, {"422", 2, 1}, {"420", 2, 2}, {"440", 1, 2}, {"411", 4, 1}};

TEST(JpegSegments, EverySubsamplingAndInterval) {
  std::mt19937 rng(5);
  for (const Sampling& s : kSamplings) {
    const int mcus_per_row = (131 + 8 * s.h - 1) / (8 * s.h);
    // 1 MCU; a divisor of the MCU row; 3 (not one for most); one row;
    // three rows.
    int divisor = 2;
    while (mcus_per_row % divisor != 0) ++divisor;
    for (auto [mcus, rows] :
         {std::pair{1, 0}, std::pair{divisor, 0}, std::pair{3, 0},
          std::pair{0, 1}, std::pair{0, 3}}) {
      SCOPED_TRACE(::testing::Message() << s.name << " restart every " << mcus
                                        << " MCUs / " << rows << " rows");
      JpegSpec spec{77, 131};
      spec.h_samp = s.h;
      spec.v_samp = s.v;
      spec.restart_mcus = mcus;
      spec.restart_rows = rows;
      EXPECT_GT(ExpectRegionsMatch(Make(spec), &rng), 10);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(JpegSegments, SizesAtAndOffTheMcuGrid) {
  std::mt19937 rng(6);
  for (auto [h, w] :
       {std::pair{64, 96}, std::pair{65, 97}, std::pair{33, 17},
        std::pair{150, 203}, std::pair{8, 300}, std::pair{200, 9}}) {
    for (int mcus : {1, 2}) {
      SCOPED_TRACE(::testing::Message() << h << "x" << w << " every " << mcus);
      JpegSpec spec{h, w};
      spec.restart_mcus = mcus;
      ExpectRegionsMatch(Make(spec, h + w), &rng, 20);
      if (HasFatalFailure()) return;
    }
  }
}

// Gray with 1x1 and 2x2 sampling factors (its scan is not interleaved: an
// MCU is one block either way), CMYK and YCCK.
TEST(JpegSegments, GrayCmykYcck) {
  std::mt19937 rng(7);
  for (int kind = 0; kind < 4; ++kind) {
    const int components = kind < 2 ? 1 : 4;
    const bool ycck = kind == 3;
    for (int mcus : {1, 4, 0}) {
      {
        SCOPED_TRACE(::testing::Message() << components << " components kind "
                                          << kind << " every " << mcus);
        JpegSpec spec{61, 90};
        spec.components = components;
        spec.ycck = ycck;
        spec.h_samp = kind == 0 ? 1 : 2;
        spec.v_samp = kind == 0 ? 1 : 2;
        spec.restart_mcus = mcus;
        spec.restart_rows = mcus == 0 ? 1 : 0;
        EXPECT_GT(ExpectRegionsMatch(Make(spec), &rng), 10);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(JpegSegments, ScaledRegionsEqualTheScaledFullDecode) {
  std::mt19937 rng(8);
  for (const Sampling& s : kSamplings) {
    JpegSpec spec{131, 177};
    spec.h_samp = s.h;
    spec.v_samp = s.v;
    spec.restart_mcus = 1;
    const std::vector<uint8_t> jpeg = Make(spec);
    for (int scale : {2, 4, 8}) {
      SCOPED_TRACE(::testing::Message() << s.name << " scale 1/" << scale);
      const DecodedRegion full = Decode(jpeg, std::nullopt, false, scale);
      for (const CropWindow& box : Boxes(131, 177, &rng, 15)) {
        const DecodedRegion r = Decode(jpeg, box, true, scale);
        EXPECT_EQ(r.from_segments, CutApplies(jpeg, box, scale));
        ExpectBoxEqual(r, full, box, scale);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(JpegSegments, FilesWithoutRestartMarkersTakeTheWindowDecode) {
  std::mt19937 rng(9);
  for (bool progressive : {false, true}) {
    JpegSpec spec{77, 131};
    spec.progressive = progressive;
    spec.restart_mcus = progressive ? 2 : 0;
    EXPECT_EQ(ExpectRegionsMatch(Make(spec), &rng, 5), 0);
  }
  JpegSpec arithmetic{77, 131};
  arithmetic.arithmetic = true;
  arithmetic.restart_mcus = 1;
  EXPECT_EQ(ExpectRegionsMatch(Make(arithmetic), &rng, 5), 0);
}

// The cut: rows from a segment's start, columns only where the interval
// divides the MCU row, and nothing when it would be the whole image.
TEST(JpegSegments, PlanCovers) {
  RestartLayout l;
  l.height = 100;
  l.width = 200;
  l.mcu_height = l.mcu_width = 16;
  l.mcus_per_row = 13;
  l.mcu_rows = 7;
  l.interval = 13;
  std::optional<SegmentCut> c = PlanSegmentCut(l, {40, 40, 10, 10}, 8);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->row0, 2);
  EXPECT_EQ(c->row1, 4);
  EXPECT_EQ(c->col0, 0);
  EXPECT_EQ(c->col1, 13);
  EXPECT_EQ(c->pixels.top, 32);
  EXPECT_EQ(c->pixels.height, 32);
  EXPECT_EQ(c->pixels.width, 200);
  c = PlanSegmentCut(l, {90, 0, 10, 1}, 8);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->row1, 7);
  EXPECT_EQ(c->pixels.height, 100 - 80);
  EXPECT_FALSE(PlanSegmentCut(l, {0, 0, 100, 1}, 8).has_value());
  l.interval = 26;  // two rows: rows start at even rows
  c = PlanSegmentCut(l, {40, 40, 10, 10}, 8);
  EXPECT_EQ(c->row0, 2);
  c = PlanSegmentCut(l, {60, 40, 10, 10}, 8);
  EXPECT_EQ(c->row0, 2);
  EXPECT_EQ(c->row1, 5);
  l.mcus_per_row = 12;
  l.width = 192;
  l.interval = 3;
  c = PlanSegmentCut(l, {40, 70, 10, 30}, 8);
  EXPECT_EQ(c->col0, 3);  // from pixel 62: MCU 3
  EXPECT_EQ(c->col1, 9);  // to pixel 108: MCU 7, rounded to 9
  EXPECT_EQ(c->pixels.left, 48);
  EXPECT_EQ(c->pixels.width, 96);
  c = PlanSegmentCut(l, {40, 150, 10, 42}, 8);
  EXPECT_EQ(c->col0, 6);  // from pixel 142: MCU 8, rounded to 6
  EXPECT_EQ(c->col1, 12);
  EXPECT_EQ(c->pixels.width, 192 - 6 * 16);
}

// Offsets of the restart markers' 0xFF bytes in `jpeg`'s scan.
std::vector<size_t> RestartMarkers(const std::vector<uint8_t>& jpeg) {
  std::vector<size_t> at;
  const size_t scan = ReadRestartLayout(jpeg)->scan;
  for (size_t i = scan; i + 1 < jpeg.size(); ++i) {
    if (jpeg[i] == 0xFF && jpeg[i + 1] >= 0xD0 && jpeg[i + 1] <= 0xD7)
      at.push_back(i);
  }
  return at;
}

// `bad`'s regions with segments allowed give the window decode's pixels or
// its error; returns how many boxes took the segments (a damaged marker
// anywhere in the scan means none).
int ExpectLikeTheWindowDecode(const std::vector<uint8_t>& bad,
                              std::mt19937* rng) {
  int segmented = 0;
  for (const CropWindow& box : Boxes(96, 160, rng, 20)) {
    SCOPED_TRACE(::testing::Message() << "box " << box.top << "," << box.left
                                      << " " << box.height << "x" << box.width);
    absl::Status want_status, got_status;
    const DecodedRegion want = Decode(bad, box, false, 1, &want_status);
    const DecodedRegion got = Decode(bad, box, true, 1, &got_status);
    EXPECT_EQ(got_status, want_status);
    if (!got_status.ok() || !want_status.ok()) continue;
    segmented += got.from_segments;
    ExpectBoxEqual(got, want, box);
    if (::testing::Test::HasFatalFailure()) break;
  }
  return segmented;
}

TEST(JpegSegments, DamagedFiles) {
  std::mt19937 rng(10);
  JpegSpec spec{96, 160};
  spec.restart_mcus = 2;  // 10 MCUs a row: 5 segments a row, 30 in all
  const std::vector<uint8_t> good = Make(spec);
  const std::vector<size_t> rst = RestartMarkers(good);
  ASSERT_EQ(rst.size(), 29u);
  EXPECT_GT(ExpectLikeTheWindowDecode(good, &rng), 10);
  {
    SCOPED_TRACE("a marker renumbered");
    std::vector<uint8_t> bad = good;
    bad[rst[12] + 1] = 0xD0 + (12 + 3) % 8;
    EXPECT_EQ(ExpectLikeTheWindowDecode(bad, &rng), 0);
  }
  {
    SCOPED_TRACE("a marker missing");
    std::vector<uint8_t> bad = good;
    bad.erase(bad.begin() + rst[7], bad.begin() + rst[7] + 2);
    EXPECT_EQ(ExpectLikeTheWindowDecode(bad, &rng), 0);
  }
  {
    SCOPED_TRACE("a marker repeated");
    std::vector<uint8_t> bad = good;
    bad.insert(bad.begin() + rst[20], good.begin() + rst[20],
               good.begin() + rst[20] + 2);
    EXPECT_EQ(ExpectLikeTheWindowDecode(bad, &rng), 0);
  }
  {
    SCOPED_TRACE("a segment cut short");
    std::vector<uint8_t> bad = good;
    bad.erase(bad.begin() + (rst[10] + rst[11]) / 2, bad.begin() + rst[11]);
    EXPECT_GT(ExpectLikeTheWindowDecode(bad, &rng), 10);
  }
  {
    SCOPED_TRACE("junk between segments");
    std::vector<uint8_t> bad = good;
    const uint8_t junk[] = {0x12, 0x34, 0xFF, 0x00, 0x56, 0x78, 0x9A};
    bad.insert(bad.begin() + rst[15] + 2, std::begin(junk), std::end(junk));
    bad.insert(bad.begin() + rst[5], std::begin(junk), std::end(junk));
    EXPECT_GT(ExpectLikeTheWindowDecode(bad, &rng), 10);
  }
  {
    SCOPED_TRACE("another marker inside the scan");
    std::vector<uint8_t> bad = good;
    bad[rst[9] + 1] = 0xC4;
    EXPECT_EQ(ExpectLikeTheWindowDecode(bad, &rng), 0);
  }
  {
    SCOPED_TRACE("EOI early");
    std::vector<uint8_t> bad = good;
    bad[rst[25] + 1] = 0xD9;
    EXPECT_EQ(ExpectLikeTheWindowDecode(bad, &rng), 0);
  }
  {
    SCOPED_TRACE("truncated in the scan");
    std::vector<uint8_t> bad(good.begin(), good.begin() + rst[18] + 40);
    EXPECT_EQ(ExpectLikeTheWindowDecode(bad, &rng), 0);
    absl::Status s;
    Decode(bad, CropWindow{90, 0, 6, 6}, true, 1, &s);
    EXPECT_NE(s.message().find("test.jpg: "), std::string::npos) << s;
  }
}

TEST(JpegSegments, DriWithoutMarkers) {
  std::mt19937 rng(11);
  JpegSpec spec{96, 160};
  std::vector<uint8_t> bad = Make(spec);
  const uint8_t dri[] = {0xFF, 0xDD, 0x00, 0x04, 0x00, 0x02};
  bad.insert(bad.begin() + 2, std::begin(dri), std::end(dri));
  ASSERT_TRUE(ReadRestartLayout(bad).has_value());
  EXPECT_EQ(ExpectLikeTheWindowDecode(bad, &rng), 0);
}

// The same DecodedRegion serves many files and boxes, as a worker's does.
TEST(JpegSegments, ReusedRegionBetweenFiles) {
  std::mt19937 rng(12);
  JpegSpec a{77, 131}, b{40, 300};
  a.restart_mcus = 1;
  b.restart_rows = 1;
  b.h_samp = 1;
  const std::vector<uint8_t> files[] = {Make(a), Make(b)};
  const DecodedRegion fulls[] = {Decode(files[0], std::nullopt, false),
                                 Decode(files[1], std::nullopt, false)};
  DecodedRegion r;
  for (int i = 0; i < 40; ++i) {
    const int f = i % 2;
    const CropWindow box =
        Boxes(fulls[f].image.height, fulls[f].image.width, &rng, 1).back();
    ASSERT_TRUE(DecodeJpegInto(
                    files[f], "f", [&](Size2) { return JpegRequest{box}; }, &r)
                    .ok());
    ExpectBoxEqual(r, fulls[f], box);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace fusednorm
