// Restart-segment decoding into a reused DecodedRegion makes no C++ heap
// allocation once its buffers have grown: a second pass over the same files
// and boxes makes none (libjpeg's own state is malloc'ed, not counted).
// Counts every operator new of the process (its own binary).
#include <atomic>
#include <cstdlib>
#include <new>
#include <random>
#include <vector>

#include "codecs/jpeg.h"
#include "gtest/gtest.h"
#include "testing/jpeg_files.h"

// Sanitizers bring their own allocator: there the test is skipped.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FUSEDNORM_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FUSEDNORM_SANITIZED 1
#endif

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

#ifndef FUSEDNORM_SANITIZED
void* operator new(size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
#endif

namespace fusednorm {
namespace {

TEST(JpegSegmentsAllocation, NoneOnceWarm) {
#ifdef FUSEDNORM_SANITIZED
  GTEST_SKIP() << "the sanitizer's allocator is not counted";
#endif
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
    const long before = g_allocations.load();
    for (const std::vector<uint8_t>& f : files) {
      for (const CropWindow& box : boxes) {
        ASSERT_TRUE(
            DecodeJpegInto(
                f, "f", [&](Size2) { return JpegRequest{box}; }, &region)
                .ok());
        segmented += region.from_segments;
      }
    }
    allocations[pass] = g_allocations.load() - before;
  }
  EXPECT_GT(segmented, 60);
  EXPECT_GT(allocations[0], 0);  // the buffers grew: the count works
  EXPECT_EQ(allocations[1], 0);
}

}  // namespace
}  // namespace fusednorm
