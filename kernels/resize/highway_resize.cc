// The Highway resize rows (highway_resize.h). This file is compiled once per
// Highway target through foreach_target.h.
//
// Horizontal pass, one input row at a time, one vector of outputs at a time:
// a lane holds one output pixel. For each tap, one gather loads the 4 bytes
// at that pixel's input (all its channels, since channels <= 4), and each
// channel is multiplied by the lane's weight and summed in int32. The
// per-call tables give each lane's byte offset and the weights tap-major, both
// padded to whole vectors, so the pass has no tail: it writes padded rows into
// scratch. A row where the last gather would read past the caller's buffer
// is first copied into a padded scratch row.
//
// Vertical pass: output bytes are the weighted sum of the same byte in the
// rows above and below, so it runs over each row's bytes, a vector at a time,
// whatever the channel count; row ends shorter than a vector are computed one
// value at a time.
//
// A pass whose axis is the identity (no resize on that axis) is skipped; its
// result would be the input, bit for bit.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/resize/highway_resize.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/highway/target_rows.h"
#include "kernels/resize/highway_resize.h"
#include "kernels/resize/resize_kernel.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D32 = hn::ScalableTag<int32_t>;
using DU8 = hn::Rebind<uint8_t, D32>;
using V32 = hn::Vec<D32>;

constexpr int kShift = kResizePrecisionBits;

// The horizontal pass's per-call tables, in scratch->tables: byte offsets of
// each output's first input (padded outputs read pixel 0), then the weights
// tap-major, `padded` entries per tap.
struct HorizontalTables {
  const int32_t* offsets;
  const int32_t* weights;
  int64_t padded;
};

HorizontalTables MakeTables(const ResizeAxis& h, int C,
                            std::vector<int32_t>* t) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(D32()));
  const int64_t padded = (h.out_size + N - 1) / N * N;
  t->assign(static_cast<size_t>(padded * (1 + h.taps)), 0);
  int32_t* offsets = t->data();
  int32_t* weights = offsets + padded;
  for (int64_t x = 0; x < h.out_size; ++x) {
    offsets[x] = h.start[x] * C;
    for (int k = 0; k < h.taps; ++k) {
      weights[k * padded + x] = h.weights[x * h.taps + k];
    }
  }
  return {offsets, weights, padded};
}

// Rounds and stores one vector of output pixels (channel sums in acc).
template <int kC>
HWY_INLINE void StorePixels(const V32* acc, uint8_t* out) {
  const DU8 du8;
  const auto u0 = hn::DemoteTo(du8, hn::ShiftRight<kShift>(acc[0]));
  if constexpr (kC == 1) {
    hn::StoreU(u0, du8, out);
  } else {
    const auto u1 = hn::DemoteTo(du8, hn::ShiftRight<kShift>(acc[1]));
    if constexpr (kC == 2) {
      hn::StoreInterleaved2(u0, u1, du8, out);
    } else {
      const auto u2 = hn::DemoteTo(du8, hn::ShiftRight<kShift>(acc[2]));
      if constexpr (kC == 3) {
        hn::StoreInterleaved3(u0, u1, u2, du8, out);
      } else {
        const auto u3 = hn::DemoteTo(du8, hn::ShiftRight<kShift>(acc[3]));
        hn::StoreInterleaved4(u0, u1, u2, u3, du8, out);
      }
    }
  }
}

// One input row to one padded row of outputs (padded * kC bytes).
template <int kC>
HWY_INLINE void HorizontalRow(const uint8_t* in, const HorizontalTables& t,
                              int taps, uint8_t* out) {
  const D32 d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const int32_t* base = reinterpret_cast<const int32_t*>(in);
  const V32 byte = hn::Set(d, 0xFF);
  for (int64_t x = 0; x < t.padded; x += N) {
    const V32 offsets = hn::LoadU(d, t.offsets + x);
    V32 acc[kC];
    for (int c = 0; c < kC; ++c) {
      acc[c] = hn::Set(d, int32_t{1} << (kShift - 1));
    }
    for (int k = 0; k < taps; ++k) {
      const V32 pixel =
          hn::GatherOffset(d, base, hn::Add(offsets, hn::Set(d, k * kC)));
      const V32 w = hn::LoadU(d, t.weights + k * t.padded + x);
      for (int c = 0; c < kC; ++c) {
        const V32 value = hn::And(hn::ShiftRightSame(pixel, 8 * c), byte);
        acc[c] = hn::Add(acc[c], hn::Mul(value, w));
      }
    }
    StorePixels<kC>(acc, out + x * kC);
  }
}

// The horizontal pass over box rows first .. first + rows - 1 into
// scratch->rows; returns the padded row stride in bytes.
template <int kC>
int64_t HorizontalPass(const ResizeArgs& a, int64_t first, int64_t rows) {
  const ResizeAxis& h = *a.horizontal;
  ResizeScratch& s = *a.scratch;
  const HorizontalTables t = MakeTables(h, kC, &s.tables);
  const int64_t stride = t.padded * kC;
  s.rows.resize(static_cast<size_t>(rows * stride));
  // A gather reads 4 bytes from a pixel's first byte.
  const size_t reach = static_cast<size_t>((h.in_size - 1) * kC + 4);
  for (int64_t r = 0; r < rows; ++r) {
    const size_t at = static_cast<size_t>((first + r) * a.input_row_stride);
    const uint8_t* in = a.input + at;
    if (at + reach > a.input_readable) {
      s.row_copy.assign(reach, 0);
      std::memcpy(s.row_copy.data(), in, static_cast<size_t>(h.in_size * kC));
      in = s.row_copy.data();
    }
    HorizontalRow<kC>(in, t, h.taps, s.rows.data() + r * stride);
  }
  return stride;
}

// One output value (row ends): resize_kernel.h's formula.
HWY_INLINE uint8_t Sample(const uint8_t* in, int64_t step,
                          const int32_t* weights, int taps) {
  int32_t sum = int32_t{1} << (kShift - 1);
  for (int k = 0; k < taps; ++k) sum += in[k * step] * weights[k];
  return static_cast<uint8_t>(
      std::clamp(sum >> kShift, int32_t{0}, int32_t{255}));
}

// One output row from the rows at `in`, `stride` bytes apart.
HWY_INLINE void VerticalRow(const uint8_t* in, int64_t stride,
                            const int32_t* weights, int taps, int64_t row_bytes,
                            uint8_t* out) {
  const D32 d;
  const DU8 du8;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  // Zero weights at the window's ends change nothing: skip them.
  int k0 = 0, k1 = taps;
  while (k0 < k1 - 1 && weights[k0] == 0) ++k0;
  while (k1 > k0 + 1 && weights[k1 - 1] == 0) --k1;
  int64_t j = 0;
  for (; j + 2 * N <= row_bytes; j += 2 * N) {
    V32 acc0 = hn::Set(d, int32_t{1} << (kShift - 1)), acc1 = acc0;
    for (int k = k0; k < k1; ++k) {
      const uint8_t* p = in + k * stride + j;
      const V32 w = hn::Set(d, weights[k]);
      acc0 = hn::Add(acc0, hn::Mul(hn::PromoteTo(d, hn::LoadU(du8, p)), w));
      acc1 = hn::Add(acc1, hn::Mul(hn::PromoteTo(d, hn::LoadU(du8, p + N)), w));
    }
    hn::StoreU(hn::DemoteTo(du8, hn::ShiftRight<kShift>(acc0)), du8, out + j);
    hn::StoreU(hn::DemoteTo(du8, hn::ShiftRight<kShift>(acc1)), du8,
               out + j + N);
  }
  for (; j < row_bytes; ++j) {
    out[j] = Sample(in + j + k0 * stride, stride, weights + k0, k1 - k0);
  }
}

template <int kC>
void Resize(const ResizeArgs& a) {
  const ResizeAxis& h = *a.horizontal;
  const ResizeAxis& v = *a.vertical;
  const int64_t row_bytes = h.out_size * kC;
  const int64_t first = v.start[0];
  const int64_t rows = v.start[v.out_size - 1] + v.taps - first;
  const uint8_t* src = a.input + first * a.input_row_stride;
  int64_t stride = a.input_row_stride;
  if (!IsIdentity(h)) {
    stride = HorizontalPass<kC>(a, first, rows);
    src = a.scratch->rows.data();
  }
  const bool vertical = !IsIdentity(v);
  for (int64_t y = 0; y < v.out_size; ++y) {
    uint8_t* out = a.output + y * a.output_row_stride;
    if (vertical) {
      VerticalRow(src + (v.start[y] - first) * stride, stride,
                  &v.weights[y * v.taps], v.taps, row_bytes, out);
    } else {
      std::memcpy(out, src + (y - first) * stride,
                  static_cast<size_t>(row_bytes));
    }
  }
}

void HighwayResize(const ResizeArgs& a) {
  switch (a.channels) {
    case 1:
      return Resize<1>(a);
    case 2:
      return Resize<2>(a);
    case 3:
      return Resize<3>(a);
    default:
      return Resize<4>(a);
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace fusednorm {

HWY_EXPORT(HighwayResize);

namespace {

void ResizeDynamic(const ResizeArgs& a) {
  HWY_DYNAMIC_DISPATCH(HighwayResize)(a);
}

bool Always() { return true; }

}  // namespace

std::vector<ResizeKernelInfo> HighwayResizeInfos() {
  std::vector<ResizeKernelInfo> rows = {
      {"highway", "any (best Highway target)", 30, &Always, &ResizeDynamic,
       &hwy_rows::ActiveTarget},
  };
  hwy_rows::ForEachCompiledTarget([&rows](auto bit) {
    constexpr int kBit = decltype(bit)::value;
    rows.push_back(
        {hwy_rows::TargetText<kBit>(true), hwy_rows::TargetText<kBit>(false),
         10, &hwy_rows::TargetSupported<kBit>,
         HWY_DISPATCH_TABLE(
             HighwayResize)[hwy_rows::TableIndex(int64_t{1} << kBit)],
         &hwy_rows::TargetName<kBit>});
  });
  return rows;
}

}  // namespace fusednorm
#endif  // HWY_ONCE
