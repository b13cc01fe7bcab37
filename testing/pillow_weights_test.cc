// Every resize row's weights (PillowBilinearAxis on the scalar row, the
// vector code of axis-inl.h on the Highway rows) against a literal
// transcription of Pillow 9.4's precompute_coeffs and normalize_coeffs_8bpc:
// windows of varying length, one division per weight, the weights of every
// input exactly.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/resize/highway_resize.h"
#include "kernels/resize/resize_dispatch.h"
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

// Every input's weight in each supported row's axis equals Pillow's; the
// rest of each row is 0; and every row's axis is the scalar row's, entry for
// entry (same taps, same starts).
void ExpectPillowAxis(int64_t in_size, int64_t out_size) {
  const std::vector<PillowWindow> want = PillowWeights(in_size, out_size);
  ResizeAxis scalar;
  PillowBilinearAxis(in_size, out_size, &scalar);
  for (const ResizeKernelInfo& row : ResizeKernelTable()) {
    if (!row.supported()) continue;
    ResizeAxis axis;
    axis.weights.assign(5, -1);  // storage to reuse, not zeros
    row.axis(in_size, out_size, &axis);
    ASSERT_EQ(axis.in_size, in_size) << row.id;
    ASSERT_EQ(axis.out_size, out_size) << row.id;
    ASSERT_EQ(axis.start.size(), static_cast<size_t>(out_size)) << row.id;
    ASSERT_EQ(axis.weights.size(), static_cast<size_t>(out_size * axis.taps))
        << row.id;
    ASSERT_EQ(axis.taps, scalar.taps) << row.id;
    ASSERT_EQ(axis.start, scalar.start) << row.id;
    for (int64_t i = 0; i < out_size; ++i) {
      const PillowWindow& w = want[i];
      const int64_t n = static_cast<int64_t>(w.weights.size());
      ASSERT_LE(axis.start[i], w.first) << row.id << ", output " << i;
      ASSERT_GE(axis.start[i] + axis.taps, w.first + n) << row.id;
      for (int k = 0; k < axis.taps; ++k) {
        const int64_t x = axis.start[i] + k - w.first;
        const int32_t expected = x >= 0 && x < n ? w.weights[x] : 0;
        ASSERT_EQ(axis.weights[i * axis.taps + k], expected)
            << row.id << ": " << in_size << " -> " << out_size << ", output "
            << i << ", tap " << k;
      }
    }
  }
}

// Every size up to 64 and every third after it, to 1 .. 16 outputs and
// every 29th after (and 224): kept small enough for qemu's SVE.
TEST(PillowWeights, AxesUpTo520) {
  for (int64_t in = 1; in <= 520; in += in < 64 ? 1 : 3) {
    for (int64_t out = 1; out <= 520; out += out < 16 ? 1 : 29) {
      ExpectPillowAxis(in, out);
      if (HasFatalFailure()) return;
    }
    ExpectPillowAxis(in, 224);
  }
}

// The Highway rows' weights code keeps to its quick path on Pillow's
// filter: no vector divided again, no axis handed to the scalar code other
// than for windows wider than it takes. (The results would be the same
// integers either way; only the time would not.)
TEST(PillowWeights, HighwayRowsKeepToTheirQuickPath) {
  const int64_t before = HighwayAxisSlowPaths();
  for (int64_t in = 1; in <= 700; in += in < 100 ? 1 : 29) {
    for (int64_t out = 1; out <= 600; out += out < 40 ? 1 : 31) {
      for (const ResizeKernelInfo& row : ResizeKernelTable()) {
        if (!row.supported()) continue;
        ResizeAxis axis;
        row.axis(in, out, &axis);
      }
    }
  }
  EXPECT_EQ(HighwayAxisSlowPaths() - before, 0);
}

TEST(PillowWeights, WideWindowsAndLargeSizes) {
  // Windows wider than the 64 taps kept on the stack (and than the vector
  // code takes), sizes of large images, a huge upscale and a window of
  // exactly 64 taps.
  for (const auto& [in, out] :
       std::vector<std::pair<int64_t, int64_t>>{{4000, 31},
                                                {10000, 3},
                                                {4096, 224},
                                                {6000, 4000},
                                                {65, 1},
                                                {200, 1},
                                                {1, 4000},
                                                {3000, 2999},
                                                {1, 100000},
                                                {int64_t{1} << 20, 224},
                                                {6440, 200},
                                                {6301, 200}}) {
    ExpectPillowAxis(in, out);
  }
}

}  // namespace
}  // namespace fusednorm
