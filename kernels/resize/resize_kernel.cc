// Pillow's bilinear weights (resize_kernel.h): the double-precision filter,
// its normalization and the fixed-point rounding, in the order Pillow 9.4's
// Resample.c performs them, then packed into equal-width windows.
#include "kernels/resize/resize_kernel.h"

#include <algorithm>
#include <cmath>

namespace fusednorm {
namespace {

double Triangle(double x) {
  if (x < 0.0) x = -x;
  return x < 1.0 ? 1.0 - x : 0.0;
}

// Pillow's normalize_coeffs_8bpc: rounds half away from zero by truncation.
int32_t ToFixed(double w) {
  const double one = static_cast<double>(1 << kResizePrecisionBits);
  return w < 0 ? static_cast<int32_t>(-0.5 + w * one)
               : static_cast<int32_t>(0.5 + w * one);
}

// Pillow's precompute_coeffs for a box starting at 0 (the crop has been
// made: in0 = 0, in1 = in_size), with what it computes once per axis.
struct PillowFilter {
  PillowFilter(int64_t in_size, int64_t out_size)
      : in_size(in_size), axis(PillowBilinearScale(in_size, out_size)) {}

  // Output i's inputs: first .. first + count - 1, around center.
  struct Window {
    double center;
    int64_t first, count;
  };
  Window At(int64_t i) const {
    const double center = 0.0 + (i + 0.5) * axis.scale;
    int64_t first = static_cast<int>(center - axis.support + 0.5);
    if (first < 0) first = 0;
    int64_t last = static_cast<int>(center + axis.support + 0.5);
    if (last > in_size) last = in_size;
    return {center, first, last - first};
  }

  // The filter at input win.first + x, before normalization.
  double Raw(const Window& win, int64_t x) const {
    return Triangle((x + win.first - win.center + 0.5) * axis.ss);
  }

  // The fixed-point weights of window `win` into w: the filter divided by
  // its sum, as Pillow divides. The filter values are kept on the stack for
  // the windows of common downscales (up to kKept taps) and evaluated twice
  // for wider ones: no buffer to allocate, the same values either way.
  void Weights(const Window& win, int32_t* w) const {
    constexpr int64_t kKept = 64;
    double kept[kKept];
    const bool keep = win.count <= kKept;
    double sum = 0.0;
    for (int64_t x = 0; x < win.count; ++x) {
      const double k = Raw(win, x);
      if (keep) kept[x] = k;
      sum += k;
    }
    for (int64_t x = 0; x < win.count; ++x) {
      const double k = keep ? kept[x] : Raw(win, x);
      w[x] = ToFixed(sum != 0.0 ? k / sum : k);
    }
  }

  int64_t in_size;
  PillowAxisScale axis;
};

}  // namespace

PillowAxisScale PillowBilinearScale(int64_t in_size, int64_t out_size) {
  const double scale =
      static_cast<double>(static_cast<float>(in_size)) / out_size;
  const double filterscale = std::max(scale, 1.0);
  return {scale, 1.0 * filterscale, 1.0 / filterscale};  // support 1
}

void PillowBilinearAxis(int64_t in_size, int64_t out_size, ResizeAxis* axis) {
  const PillowFilter filter(in_size, out_size);
  int64_t taps = 1;
  for (int64_t i = 0; i < out_size; ++i) {
    taps = std::max(taps, filter.At(i).count);
  }
  axis->in_size = in_size;
  axis->out_size = out_size;
  axis->taps = static_cast<int>(taps);
  axis->start.assign(out_size, 0);
  axis->weights.assign(out_size * taps, 0);
  for (int64_t i = 0; i < out_size; ++i) {
    const PillowFilter::Window window = filter.At(i);
    // Shift the window left where it would run past the last input; the
    // weights keep their inputs.
    const int64_t start = std::min(window.first, in_size - taps);
    axis->start[i] = static_cast<int32_t>(start);
    filter.Weights(window, &axis->weights[i * taps + (window.first - start)]);
  }
}

bool IsIdentity(const ResizeAxis& axis) {
  if (axis.in_size != axis.out_size) return false;
  const int32_t one = int32_t{1} << kResizePrecisionBits;
  for (int64_t i = 0; i < axis.out_size; ++i) {
    for (int k = 0; k < axis.taps; ++k) {
      const bool self = axis.start[i] + k == i;
      if (axis.weights[i * axis.taps + k] != (self ? one : 0)) return false;
    }
  }
  return true;
}

}  // namespace fusednorm
