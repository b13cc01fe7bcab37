// Every row of the pixel packing, the Highway row on every target this CPU
// runs (pinned through Highway's own test API): random bytes, pixel counts
// around each vector size, sources ending at a guard page (read-only) and
// destinations ending at one.
#include "kernels/pack_pixels.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "testing/guarded_buffer.h"

namespace fusednorm {
namespace {

using testing_ref::GuardedBuffer;

void ExpectPacked(PackPixelsFn pack, size_t pixels, std::mt19937& rng) {
  GuardedBuffer src(4 * pixels);
  for (uint8_t& byte : src.span()) byte = static_cast<uint8_t>(rng());
  src.MakeReadOnly();
  GuardedBuffer dst(3 * pixels);
  for (uint8_t& byte : dst.span()) byte = 0xA5;
  pack(src.data(), pixels, dst.data());
  for (size_t p = 0; p < pixels; ++p) {
    for (int c = 0; c < 3; ++c) {
      ASSERT_EQ(dst.data()[3 * p + c], src.data()[4 * p + c])
          << "pixel " << p << " channel " << c << " of " << pixels;
    }
  }
  EXPECT_TRUE(dst.CanaryIntact());
}

void ExpectRowPacks(PackPixelsFn pack, std::mt19937& rng) {
  for (size_t pixels = 0; pixels <= 200; ++pixels)
    ExpectPacked(pack, pixels, rng);
  ExpectPacked(pack, 224 * 224, rng);
  ExpectPacked(pack, 499 * 3 + 1, rng);
}

TEST(PackPixels, EveryRowAndTargetKeepsThreeBytesOfEachPixel) {
  std::mt19937 rng(5);
  for (const PackPixelsInfo& row : PackPixelsKernels().rows()) {
    SCOPED_TRACE(row.id);
    ASSERT_TRUE(PackPixelsKernels().supported(row));
    if (std::string(row.id) != "highway") {
      ExpectRowPacks(row.fn, rng);
      continue;
    }
    for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
      SCOPED_TRACE(hwy::TargetName(target));
      hwy::SetSupportedTargetsForTest(target);
      ExpectRowPacks(row.fn, rng);
    }
    hwy::SetSupportedTargetsForTest(0);
  }
  EXPECT_TRUE(DefaultPackPixels().ok());
  EXPECT_EQ(PackPixelsKernels().Find("nope").status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace fusednorm
