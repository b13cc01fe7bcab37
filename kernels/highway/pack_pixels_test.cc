// PackRgbxToRgb on every Highway target this CPU runs: random bytes, pixel
// counts around each vector size, sources ending at a guard page (read-only)
// and destinations ending at one.
#include "kernels/highway/pack_pixels.h"

#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "testing/guarded_buffer.h"

namespace fusednorm {
namespace {

using testing_ref::GuardedBuffer;

void ExpectPacked(size_t pixels, std::mt19937& rng) {
  GuardedBuffer src(4 * pixels);
  for (uint8_t& byte : src.span()) byte = static_cast<uint8_t>(rng());
  src.MakeReadOnly();
  GuardedBuffer dst(3 * pixels);
  for (uint8_t& byte : dst.span()) byte = 0xA5;
  PackRgbxToRgb(src.data(), pixels, dst.data());
  for (size_t p = 0; p < pixels; ++p) {
    for (int c = 0; c < 3; ++c) {
      ASSERT_EQ(dst.data()[3 * p + c], src.data()[4 * p + c])
          << "pixel " << p << " channel " << c << " of " << pixels;
    }
  }
  EXPECT_TRUE(dst.CanaryIntact());
}

TEST(PackPixels, EveryTargetKeepsThreeBytesOfEachPixel) {
  std::mt19937 rng(5);
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    for (size_t pixels = 0; pixels <= 200; ++pixels) ExpectPacked(pixels, rng);
    ExpectPacked(224 * 224, rng);
    ExpectPacked(499 * 3 + 1, rng);
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace
}  // namespace fusednorm
