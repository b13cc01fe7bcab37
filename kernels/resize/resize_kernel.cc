// Pillow's weights (resize_kernel.h): the double-precision filter, its
// normalization and the fixed-point rounding, in the order Pillow 9.4's
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

// Pillow's bicubic_filter: the cubic convolution kernel with a = -0.5,
// written as Pillow writes it (the same operations in the same order).
double Cubic(double x) {
  constexpr double a = -0.5;
  if (x < 0.0) x = -x;
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
  if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
  return 0.0;
}

double FilterAt(PillowFilter filter, double x) {
  return filter == PillowFilter::kBicubic ? Cubic(x) : Triangle(x);
}

// Pillow's normalize_coeffs_8bpc: rounds half away from zero by truncation.
int32_t ToFixed(double w) {
  const double one = static_cast<double>(1 << kResizePrecisionBits);
  return w < 0 ? static_cast<int32_t>(-0.5 + w * one)
               : static_cast<int32_t>(0.5 + w * one);
}

// Pillow's precompute_coeffs for a box starting at 0 (the crop has been
// made: in0 = 0, in1 = in_size), with what it computes once per axis.
struct PillowWindows {
  PillowWindows(PillowFilter filter, int64_t in_size, int64_t out_size)
      : filter(filter),
        in_size(in_size),
        axis(PillowScale(filter, in_size, out_size)) {}

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
    return FilterAt(filter, (x + win.first - win.center + 0.5) * axis.ss);
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

  PillowFilter filter;
  int64_t in_size;
  PillowAxisScale axis;
};

}  // namespace

PillowAxisScale PillowScale(PillowFilter filter, int64_t in_size,
                            int64_t out_size) {
  const double scale =
      static_cast<double>(static_cast<float>(in_size)) / out_size;
  const double filterscale = std::max(scale, 1.0);
  const double support = filter == PillowFilter::kBicubic ? 2.0 : 1.0;
  return {scale, support * filterscale, 1.0 / filterscale};
}

PillowAxisScale PillowBilinearScale(int64_t in_size, int64_t out_size) {
  return PillowScale(PillowFilter::kBilinear, in_size, out_size);
}

void PillowBilinearAxis(int64_t in_size, int64_t out_size, ResizeAxis* axis) {
  PillowAxis(PillowFilter::kBilinear, in_size, out_size, axis);
}

void PillowAxis(PillowFilter kind, int64_t in_size, int64_t out_size,
                ResizeAxis* axis) {
  const PillowWindows filter(kind, in_size, out_size);
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
    const PillowWindows::Window window = filter.At(i);
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
