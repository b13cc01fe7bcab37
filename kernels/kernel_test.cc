// KernelConstants: fast mode's once-rounded constants and the exact-by-FMA
// check.
#include "kernels/kernel.h"

#include <cmath>
#include <cstring>
#include <random>

#include "gtest/gtest.h"

namespace fusednorm {
namespace {

KernelConstants Make(const float* mean, const float* std) {
  KernelConstants k;
  MakeKernelConstants(DType::kFloat32, Layout::kHWC, Mode::kTorchvisionExact,
                      mean, std, &k);
  return k;
}

TEST(KernelConstants, FastModeConstantsAreRoundedOnce) {
  const float mean[4] = {0.485f, 0.456f, 0.406f, 0.0f};
  const float std[4] = {0.229f, 0.224f, 0.225f, 1.0f};
  const KernelConstants k = Make(mean, std);
  for (int c = 0; c < 4; ++c) {
    EXPECT_EQ(k.mul[c], static_cast<float>(1.0 / (255.0 * std[c])));
    EXPECT_EQ(k.sub[c],
              static_cast<float>(static_cast<double>(mean[c]) / std[c]));
    for (int x = 0; x < 256; ++x) {
      EXPECT_EQ(k.table[c][x],
                (static_cast<float>(x) / 255.0f - mean[c]) / std[c]);
    }
  }
}

// The FMA form of exact mode must be vouched for only when it matches the
// divisions on every input; for the presets it does (so the SIMD kernels use it
// there).
TEST(KernelConstants, ExactByFmaHoldsForPresetsAndIsChecked) {
  const float presets[][2][4] = {
      {{0.485f, 0.456f, 0.406f, 0}, {0.229f, 0.224f, 0.225f, 1}},
      {{0.4914f, 0.4822f, 0.4465f, 0}, {0.2470f, 0.2435f, 0.2616f, 1}},
      {{0.1307f, 0.1307f, 0.1307f, 0.1307f},
       {0.3081f, 0.3081f, 0.3081f, 0.3081f}},
      {{static_cast<float>(123.68 / 255.0), static_cast<float>(116.78 / 255.0),
        static_cast<float>(103.94 / 255.0), 0},
       {static_cast<float>(1.0 / 255.0), static_cast<float>(1.0 / 255.0),
        static_cast<float>(1.0 / 255.0), 1}},
      {{0, 0, 0, 0}, {1, 1, 1, 1}},
  };
  for (const auto& p : presets) EXPECT_TRUE(Make(p[0], p[1]).exact_by_fma);
  // Random custom values: whatever the verdict, it must be right.
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> u(0.001f, 2.0f);
  int vouched = 0;
  for (int trial = 0; trial < 200; ++trial) {
    float mean[4], std[4];
    for (int c = 0; c < 4; ++c) mean[c] = u(gen), std[c] = u(gen);
    const KernelConstants k = Make(mean, std);
    if (!k.exact_by_fma) continue;
    ++vouched;
    for (int c = 0; c < 4; ++c) {
      for (int x = 0; x < 256; ++x) {
        const float xf = static_cast<float>(x);
        float t0 = xf * k.recip255;
        const float t = std::fma(std::fma(-t0, 255.0f, xf), k.recip255, t0);
        const float d = t - mean[c];
        const float y0 = d * k.recip_std[c];
        const float y = std::fma(std::fma(-y0, std[c], d), k.recip_std[c], y0);
        ASSERT_EQ(std::memcmp(&y, &k.table[c][x], 4), 0) << c << " " << x;
      }
    }
  }
  EXPECT_GT(vouched, 100);
}

}  // namespace
}  // namespace fusednorm
