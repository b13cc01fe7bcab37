// PillowBilinearAxis against a literal transcription of Pillow 9.4's
// precompute_coeffs and normalize_coeffs_8bpc: windows of varying length,
// one division per weight, the weights of every input exactly.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/resize/resize_kernel.h"

namespace fusednorm {
namespace {

// One output's window and weights, as Pillow computes them.
struct PillowWindow {
  int64_t first = 0;
  std::vector<int32_t> weights;
};

std::vector<PillowWindow> PillowWeights(int64_t in_size, int64_t out_size) {
  const double scale =
      static_cast<double>(static_cast<float>(in_size)) / out_size;
  const double filterscale = scale < 1.0 ? 1.0 : scale;
  const double support = 1.0 * filterscale;
  std::vector<PillowWindow> out(static_cast<size_t>(out_size));
  for (int64_t xx = 0; xx < out_size; ++xx) {
    const double center = (xx + 0.5) * scale;
    const double ss = 1.0 / filterscale;
    int64_t xmin = static_cast<int>(center - support + 0.5);
    if (xmin < 0) xmin = 0;
    int64_t xmax = static_cast<int>(center + support + 0.5);
    if (xmax > in_size) xmax = in_size;
    xmax -= xmin;
    std::vector<double> k(static_cast<size_t>(xmax));
    double ww = 0.0;
    for (int64_t x = 0; x < xmax; ++x) {
      double t = (x + xmin - center + 0.5) * ss;
      if (t < 0.0) t = -t;
      k[x] = t < 1.0 ? 1.0 - t : 0.0;
      ww += k[x];
    }
    out[xx].first = xmin;
    for (int64_t x = 0; x < xmax; ++x) {
      const double w = ww != 0.0 ? k[x] / ww : k[x];
      out[xx].weights.push_back(
          w < 0 ? static_cast<int32_t>(-0.5 + w * (1 << 22))
                : static_cast<int32_t>(0.5 + w * (1 << 22)));
    }
  }
  return out;
}

// Every input's weight in `axis` equals Pillow's; the rest of each row is 0.
void ExpectPillowAxis(int64_t in_size, int64_t out_size) {
  ResizeAxis axis;
  PillowBilinearAxis(in_size, out_size, &axis);
  const std::vector<PillowWindow> want = PillowWeights(in_size, out_size);
  ASSERT_EQ(axis.out_size, out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    const PillowWindow& w = want[i];
    for (int k = 0; k < axis.taps; ++k) {
      const int64_t x = axis.start[i] + k - w.first;
      const int32_t expected =
          x >= 0 && x < static_cast<int64_t>(w.weights.size()) ? w.weights[x]
                                                                 : 0;
      ASSERT_EQ(axis.weights[i * axis.taps + k], expected)
          << in_size << " -> " << out_size << ", output " << i << ", tap " << k;
    }
  }
}

TEST(PillowWeights, EveryAxisUpTo520) {
  for (int64_t in = 1; in <= 520; ++in) {
    for (int64_t out = 1; out <= 520; out += out < 48 ? 1 : 11) {
      ExpectPillowAxis(in, out);
      if (HasFatalFailure()) return;
    }
    ExpectPillowAxis(in, 224);
  }
}

TEST(PillowWeights, WideWindowsAndLargeSizes) {
  // Windows wider than the 64 taps kept on the stack, and sizes of large
  // images.
  for (const auto& [in, out] : std::vector<std::pair<int64_t, int64_t>>{
           {4000, 31}, {10000, 3}, {4096, 224}, {6000, 4000}, {65, 1},
           {200, 1}, {1, 4000}, {3000, 2999}}) {
    ExpectPillowAxis(in, out);
  }
}

}  // namespace
}  // namespace fusednorm
