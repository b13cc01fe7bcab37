// Restart-segment decoding into a reused DecodedRegion makes no C++ heap
// allocation once its buffers have grown: a second pass over the same files
// and boxes makes none (libjpeg's own state is malloc'ed, not counted).
// Counts every operator new of the process (its own binary).
#include <cstdlib>
#include <random>
#include <vector>

#include "codecs/jpeg.h"
#include "gtest/gtest.h"
#include "testing/allocation_counter.h"
#include "testing/jpeg_files.h"

namespace fusednorm {
namespace {

TEST(JpegSegmentsAllocation, NoneOnceWarm) {
  if (!kAllocationsCounted)
    GTEST_SKIP() << "the sanitizer's allocator is not counted";
  std::vector<std::vector<uint8_t>> files;
  for (int mcus : {1, 2, 0}) {
    JpegSpec spec{120, 170};
    spec.restart_mcus = mcus;
    spec.restart_rows = mcus == 0 ? 1 : 0;
    files.push_back(EncodeTestJpeg(spec, NoisyGradient(120, 170, 3, mcus)));
  }
  std::mt19937 rng(3);
  std::vector<CropWindow> boxes;
  for (int i = 0; i < 30; ++i) {
    const int64_t h = 1 + rng() % 120, w = 1 + rng() % 170;
    boxes.push_back({static_cast<int64_t>(rng() % (121 - h)),
                     static_cast<int64_t>(rng() % (171 - w)), h, w});
  }
  DecodedRegion region;
  long segmented = 0, allocations[2] = {0, 0};
  for (int pass = 0; pass < 2; ++pass) {
    const long before = Allocations();
    for (const std::vector<uint8_t>& f : files) {
      for (const CropWindow& box : boxes) {
        ASSERT_TRUE(
            DecodeJpegInto(
                f, "f", [&](Size2) { return JpegRequest{box}; }, &region)
                .ok());
        segmented += region.from_segments;
      }
    }
    allocations[pass] = Allocations() - before;
  }
  EXPECT_GT(segmented, 60);
  EXPECT_GT(allocations[0], 0);  // the buffers grew: the count works
  EXPECT_EQ(allocations[1], 0);
}

}  // namespace
}  // namespace fusednorm
