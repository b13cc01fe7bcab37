// Pillow's bilinear weights (resize_kernel.h's PillowBilinearAxis) on the
// Highway resize rows (highway_resize.cc), a vector of outputs at a time:
// lane l of a vector computes output i + l's window, filter values, sum and
// fixed-point weights with the same double operations, in the same order,
// as the scalar code, so every weight is the same integer.
//
// The windows are evaluated for a fixed number of taps, the axis's widest,
// with zeros outside each window; a zero changes neither the sum nor the
// order of its other terms. The quotients are not divided: each is the
// filter value times the window's inverse sum. That product is within 3
// ulps of the quotient (both at most 1), so 0.5 + product * 2^22 lies within
// 2^-28 of the value Pillow truncates; where it lies at least 2^-24 from an
// integer, both truncate to the same integer. A vector with a value nearer
// an integer (none of the 670 million weights of the axes from 1 .. 1200 to
// 1 .. 448) is divided as Pillow divides. Axes wider than kMaxTaps, and
// targets without double vectors, take the scalar code.
//
// On sums: 0 + x = x for the sum's first value, and adding a zero leaves a
// sum unchanged, so the sum of a lane's values is the scalar code's.
//
// Included once per target.

#if defined(FUSEDNORM_KERNELS_RESIZE_AXIS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef FUSEDNORM_KERNELS_RESIZE_AXIS_INL_H_
#undef FUSEDNORM_KERNELS_RESIZE_AXIS_INL_H_
#else
#define FUSEDNORM_KERNELS_RESIZE_AXIS_INL_H_
#endif

#include <algorithm>
#include <cstdint>

#include "hwy/highway.h"
#include "kernels/resize/highway_resize.h"
#include "kernels/resize/resize_kernel.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

#if HWY_HAVE_FLOAT64

using AxisD = hn::ScalableTag<double>;
using AxisI = hn::Rebind<int32_t, AxisD>;
using AxisV = hn::Vec<AxisD>;
using AxisVI = hn::Vec<AxisI>;

constexpr int kMaxTaps = 64;

// Pillow's per-axis constants (resize_kernel.h) and each vector's windows.
struct AxisFilter {
  AxisFilter(int64_t in, int64_t out)
      : in_size(in), out_size(out), axis(PillowBilinearScale(in, out)) {}

  // Outputs i .. i + lanes - 1: centers, first inputs and input counts.
  // Lanes past the last output repeat it, so that every lane has a real
  // window (one past the end would have none, and a zero sum).
  void Windows(int64_t i, AxisV* center, AxisVI* first, AxisVI* count) const {
    const AxisD d;
    const AxisI di;
    const AxisV index = hn::Min(hn::Iota(d, static_cast<double>(i)),
                                hn::Set(d, static_cast<double>(out_size - 1)));
    *center = hn::Mul(hn::Add(index, hn::Set(d, 0.5)), hn::Set(d, axis.scale));
    const AxisV half = hn::Set(d, 0.5), s = hn::Set(d, axis.support);
    *first = hn::Max(hn::DemoteTo(di, hn::Add(hn::Sub(*center, s), half)),
                     hn::Zero(di));
    const AxisVI last =
        hn::Min(hn::DemoteTo(di, hn::Add(hn::Add(*center, s), half)),
                hn::Set(di, static_cast<int32_t>(in_size)));
    *count = hn::Sub(last, *first);
  }

  int64_t in_size, out_size;
  PillowAxisScale axis;
};

// The widest window of the axis.
HWY_INLINE int WidestWindow(const AxisFilter& f, int64_t out_size) {
  const AxisI di;
  const int64_t N = static_cast<int64_t>(hn::Lanes(AxisD()));
  AxisVI widest = hn::Set(di, 1);
  for (int64_t i = 0; i < out_size; i += N) {
    AxisV center;
    AxisVI first, count;
    f.Windows(i, &center, &first, &count);
    const size_t real = static_cast<size_t>(std::min(N, out_size - i));
    widest = hn::Max(widest, hn::IfThenElseZero(hn::FirstN(di, real), count));
  }
  return hn::GetLane(hn::MaxOfLanes(di, widest));
}

// Whether every lane's t = 0.5 + q * 2^22 truncates as Pillow's does (see
// the overview); n: t truncated.
HWY_INLINE bool Clear(AxisV t, AxisVI n) {
  const AxisD d;
  const AxisV fraction = hn::Sub(t, hn::PromoteTo(d, n));
  const AxisV margin = hn::Set(d, 1.0 / (1 << 24));
  return hn::AllTrue(
      d, hn::And(hn::Ge(fraction, margin),
                 hn::Le(fraction, hn::Sub(hn::Set(d, 1.0), margin))));
}

// Pillow's fixed-point rounding of w >= 0 (half up, by truncation).
HWY_INLINE AxisVI Fixed(AxisV w, AxisV* t) {
  const AxisD d;
  *t = hn::Add(hn::Set(d, 0.5),
               hn::Mul(w, hn::Set(d, double{1 << kResizePrecisionBits})));
  return hn::DemoteTo(AxisI(), *t);
}

// Outputs i .. i + lanes - 1 (`real` of them) into the axis; false (not
// written) where a window's sum is not positive, which Pillow's filter never
// gives (every window holds its center's pixel) and the scalar code
// handles. Values are kept in arrays, not arrays of vectors: SVE's vectors
// have no size. Where a value is too near an integer the vector is divided
// again; both that and a scalar hand-off are counted
// (NoteHighwayAxisSlowPath), so that a test can see they stay unused.
HWY_INLINE bool AxisVector(const AxisFilter& f, int64_t i, size_t real,
                           int taps, ResizeAxis* axis) {
  const AxisD d;
  const AxisI di;
  constexpr size_t kN = hn::MaxLanes(AxisD());
  AxisV center;
  AxisVI first, count;
  f.Windows(i, &center, &first, &count);
  const AxisVI start =
      hn::Min(first, hn::Set(di, static_cast<int32_t>(f.in_size - taps)));
  const AxisV shift = hn::PromoteTo(d, hn::Sub(first, start));
  const AxisV first_d = hn::PromoteTo(d, first);
  const AxisV count_d = hn::PromoteTo(d, count);
  // Filter values (zero outside the window) and their sums, input by input.
  alignas(64) double raw[kMaxTaps * kN];
  AxisV sum = hn::Zero(d);
  for (int j = 0; j < taps; ++j) {
    const AxisV x = hn::Sub(hn::Set(d, j), shift);  // exact: small integers
    const auto inside = hn::And(hn::Ge(x, hn::Zero(d)), hn::Lt(x, count_d));
    // ((x + first) - center) + 0.5, times ss, as the scalar code orders it.
    const AxisV at =
        hn::Add(hn::Sub(hn::Add(x, first_d), center), hn::Set(d, 0.5));
    const AxisV k = hn::Max(
        hn::Zero(d),
        hn::Sub(hn::Set(d, 1.0), hn::Abs(hn::Mul(at, hn::Set(d, f.axis.ss)))));
    const AxisV value = hn::IfThenElseZero(inside, k);
    hn::Store(value, d, raw + j * kN);
    sum = hn::Add(sum, value);
  }
  if (!hn::AllTrue(d, hn::Gt(sum, hn::Zero(d)))) return false;
  alignas(64) int32_t weights[kMaxTaps * kN];
  const AxisV inverse = hn::Div(hn::Set(d, 1.0), sum);
  bool clear = true;
  for (int j = 0; j < taps; ++j) {
    AxisV t;
    const AxisVI n = Fixed(hn::Mul(hn::Load(d, raw + j * kN), inverse), &t);
    clear = clear && Clear(t, n);
    hn::Store(n, di, weights + j * kN);
  }
  if (!clear) {
    NoteHighwayAxisSlowPath();
    for (int j = 0; j < taps; ++j) {
      AxisV t;
      hn::Store(Fixed(hn::Div(hn::Load(d, raw + j * kN), sum), &t), di,
                weights + j * kN);
    }
  }
  alignas(64) int32_t starts[kN];
  hn::Store(start, di, starts);
  for (size_t l = 0; l < real; ++l) {
    axis->start[i + l] = starts[l];
    int32_t* w = &axis->weights[(i + l) * taps];
    for (int j = 0; j < taps; ++j) w[j] = weights[j * kN + l];
  }
  return true;
}

inline void BilinearAxis(int64_t in_size, int64_t out_size, ResizeAxis* axis) {
  const AxisFilter f(in_size, out_size);
  const int taps = WidestWindow(f, out_size);
  if (taps > kMaxTaps) return PillowBilinearAxis(in_size, out_size, axis);
  axis->in_size = in_size;
  axis->out_size = out_size;
  axis->taps = taps;
  axis->start.resize(static_cast<size_t>(out_size));  // all written below
  axis->weights.resize(static_cast<size_t>(out_size * taps));
  const int64_t N = static_cast<int64_t>(hn::Lanes(AxisD()));
  for (int64_t i = 0; i < out_size; i += N) {
    const size_t real = static_cast<size_t>(std::min(N, out_size - i));
    if (!AxisVector(f, i, real, taps, axis)) {
      NoteHighwayAxisSlowPath();
      return PillowBilinearAxis(in_size, out_size, axis);
    }
  }
}

#else  // no double vectors

inline void BilinearAxis(int64_t in_size, int64_t out_size, ResizeAxis* axis) {
  PillowBilinearAxis(in_size, out_size, axis);
}

#endif  // HWY_HAVE_FLOAT64

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#endif  // include guard
