// The Highway kernel's row loops for one output dtype and one math: the
// spans around the erase rectangle, the chunks, the dispatch on layout and
// channel count (see highway.cc, the driver, for the steps). Compiled once
// per Highway target through foreach_target.h, and once per dtype and math
// (nine Bazel targets: FUSEDNORM_HWY_DTYPE and FUSEDNORM_HWY_MATH), so that
// they compile in parallel: as one file they took longer than anything else
// in the build (15 minutes under ASan), and one per dtype still 10.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/highway/rows.cc"
#include "hwy/cache_control.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/formats.h"
#include "kernels/highway/convert-inl.h"
#include "kernels/highway/lookup-inl.h"
#include "kernels/highway/rearrange-inl.h"
#include "kernels/highway/stores-inl.h"
#include "kernels/kernel.h"

#if !defined(FUSEDNORM_HWY_DTYPE) || !defined(FUSEDNORM_HWY_MATH)
#error "FUSEDNORM_HWY_DTYPE (DType) and FUSEDNORM_HWY_MATH (Math) must be set"
#endif

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The erase columns [e0, e1) of row h, or an empty range.
HWY_INLINE void EraseColumns(const KernelArgs& a, int64_t h, int64_t* e0,
                             int64_t* e1) {
  *e0 = *e1 = a.width;
  if (ErasesRow(a.erase, h)) {
    *e0 = a.erase.left;
    *e1 = a.erase.left + a.erase.width;
  }
}

// Output pixels [w0, w0 + count) of row h through Lookup16's blocks (AVX3_DL,
// 16-bit CHW or HWC4 outputs, spans of at least one block); returns how many
// pixels that was: count, or 0 where it does not apply.
template <int kC, DType kDType, class Lookup>
HWY_INLINE int64_t LookedUp(const Lookup* lookup, const KernelArgs& a,
                            int64_t h, int64_t w0, int64_t count) {
#if HWY_TARGET == HWY_AVX3_DL
  if constexpr (kDType != DType::kFloat32) {
    const int64_t H = a.height, W = a.width, B = Lookup::kBlock;
    const uint8_t* in_row = a.input + h * a.input_row_stride;
    uint16_t* const out = static_cast<uint16_t*>(a.output);
    if (count < B) return 0;
    // Whole blocks from w0; a last block ending at the span's end overlaps
    // the one before and rewrites its values (the same bits) instead of
    // leaving a remainder to the slower path.
    for (int64_t done = 0; done < count;) {
      const int64_t q = w0 + std::min(done, count - B);  // first output pixel
      const int64_t first = a.flip ? W - (q + B) : q;
      const auto dst = [&](int c) {
        return Lookup::kInterleaved ? out + (h * W + q) * 4
                                    : out + (c * H + h) * W + q;
      };
      lookup->Block(in_row + first * kC, dst, a.nontemporal);
      done = q + B - w0;
    }
    return count;
  }
#endif
  (void)lookup, (void)a, (void)h, (void)w0, (void)count;
  return 0;
}

// One partly erased HWC/HWC4 row written with streaming stores (see RowBuffer).
// `rearrange` is null when the input row is read as it is.
template <int kC, int kStored, class Conv, typename T>
void ErasedRowStreamed(const Conv& convert,
                       const Rearranger<kC, kStored, false>* rearrange,
                       const uint8_t* in_row, int64_t W, int64_t h, int64_t e0,
                       int64_t e1, T* out) {
  Scratch scratch;
  RowBuffer<T> row;
  for (int64_t w0 = 0; w0 < W; w0 += kChunkPixels) {
    const int64_t count = std::min<int64_t>(kChunkPixels, W - w0);
    const uint8_t* src = in_row + w0 * kC;
    if (rearrange != nullptr) {
      rearrange->Run(in_row, W, w0, count, scratch.bytes, 0);
      src = scratch.bytes;
    }
    convert.Run(src, count * kStored, row.values, false);
    row.ZeroErased(w0, count, e0, e1, kStored, row.values);
    StreamCopy(reinterpret_cast<uint8_t*>(out + (h * W + w0) * kStored),
               reinterpret_cast<const uint8_t*>(row.values),
               count * kStored * sizeof(T));
  }
}

// HWC without flip, compact input: the rows outside the erase rectangle are
// contiguous in the input and the output, so each such band is one run; the
// partly erased rows in between are converted around their erased span.
template <int kC, class Conv>
void RunCompactBands(const Conv& convert, const KernelArgs& a) {
  using T = typename Conv::T;
  const int64_t H = a.height, W = a.width;
  T* const out = static_cast<T*>(a.output);
  const int64_t top = a.erase.empty() ? H : a.erase.top;
  const int64_t bottom = a.erase.empty() ? H : top + a.erase.height;
  const int64_t bands[2][2] = {{0, top}, {bottom, H}};
  for (const auto& band : bands) {
    if (band[1] > band[0]) {
      convert.Run(a.input + band[0] * W * kC, (band[1] - band[0]) * W * kC,
                  out + band[0] * W * kC, a.nontemporal);
    }
  }
  const int64_t e0 = a.erase.left, e1 = a.erase.left + a.erase.width;
  for (int64_t h = top; h < bottom; ++h) {
    const uint8_t* in_row = a.input + h * a.input_row_stride;
    if (a.nontemporal) {
      ErasedRowStreamed<kC, kC>(convert, nullptr, in_row, W, h, e0, e1, out);
      continue;
    }
    convert.Run(in_row, e0 * kC, out + h * W * kC, false);
    EraseSpan(out, Layout::kHWC, H, W, kC, h, e0, e1, false);
    convert.Run(in_row + e1 * kC, (W - e1) * kC, out + (h * W + e1) * kC,
                false);
  }
}

// HWC and HWC4 outputs: one converter of period `kStored`.
template <int kC, int kStored, Math kMath, DType kDType>
void RunInterleaved(const KernelConstants& k, const KernelArgs& a) {
  using T = typename Out<kDType>::T;
  const int64_t H = a.height, W = a.width;
  T* const out = static_cast<T*>(a.output);
  Patterns pat;
  int lane_channel[4];
  for (int c = 0; c < 4; ++c) lane_channel[c] = c < kC ? c : -1;
  MakePatterns(k, kStored, lane_channel, 0, &pat);
  const Converter<kStored, kMath, kDType> convert(pat);
  // Direct: the input rows are read as they are, no rearrangement.
  const bool direct = !a.flip && kStored == kC;
  if (direct && a.input_row_stride == W * kC) {
    return RunCompactBands<kC>(convert, a);
  }
  const Rearranger<kC, kStored, false> rearrange(a.flip);
#if HWY_TARGET == HWY_AVX3_DL
  const Lookup16<kC, true> lookup_table(k, a.flip);
  const auto* lookup = kStored == 4 ? &lookup_table : nullptr;
#endif
  Scratch scratch;
  for (int64_t h = 0; h < H; ++h) {
    const uint8_t* in_row = a.input + h * a.input_row_stride;
    int64_t e0, e1;
    EraseColumns(a, h, &e0, &e1);
    if (a.nontemporal && e1 > e0) {
      ErasedRowStreamed<kC, kStored>(convert, direct ? nullptr : &rearrange,
                                     in_row, W, h, e0, e1, out);
      continue;
    }
    const int64_t spans[2][2] = {{0, e0}, {e1, W}};
    for (const auto& span : spans) {
      int64_t begin = span[0];
#if HWY_TARGET == HWY_AVX3_DL
      if (lookup != nullptr) {
        begin += LookedUp<kC, kDType>(lookup, a, h, span[0], span[1] - span[0]);
      }
#endif
      for (int64_t w0 = begin; w0 < span[1]; w0 += kChunkPixels) {
        const int64_t count = std::min<int64_t>(kChunkPixels, span[1] - w0);
        const uint8_t* src = in_row + w0 * kC;
        if (!direct) {
          rearrange.Run(in_row, W, w0, count, scratch.bytes, 0);
          src = scratch.bytes;
        }
        convert.Run(src, count * kStored, out + (h * W + w0) * kStored,
                    a.nontemporal);
      }
    }
    if (e1 > e0) {
      EraseSpan(out, Layout::kHWC4, H, W, kStored, h, e0, e1, a.nontemporal);
    }
  }
}

// The chunk [w0, w0 + count) of a row as kC planes kChunkPixels apart: the
// input row itself for one channel without flip, else rearranged into
// `scratch`.
template <int kC>
HWY_INLINE const uint8_t* Planes(const Rearranger<kC, kC, true>& rearrange,
                                 const KernelArgs& a, const uint8_t* in_row,
                                 int64_t w0, int64_t count, Scratch* scratch) {
  if (kC == 1 && !a.flip) return in_row + w0;
  rearrange.Run(in_row, a.width, w0, count, scratch->bytes, kChunkPixels);
  return scratch->bytes;
}

// One partly erased CHW row written with streaming stores, plane by plane
// (see RowBuffer).
template <int kC, class Conv>
void ErasedPlanarRowStreamed(const Conv* convert,
                             const Rearranger<kC, kC, true>& rearrange,
                             const KernelArgs& a, int64_t h, int64_t e0,
                             int64_t e1) {
  using T = typename Conv::T;
  const int64_t H = a.height, W = a.width;
  T* const out = static_cast<T*>(a.output);
  const uint8_t* in_row = a.input + h * a.input_row_stride;
  Scratch scratch;
  RowBuffer<T> row;
  for (int64_t w0 = 0; w0 < W; w0 += kChunkPixels) {
    const int64_t count = std::min<int64_t>(kChunkPixels, W - w0);
    const uint8_t* planes = Planes(rearrange, a, in_row, w0, count, &scratch);
    for (int c = 0; c < kC; ++c) {
      convert[c].Run(planes + c * kChunkPixels, count, row.values, false);
      row.ZeroErased(w0, count, e0, e1, 1, row.values);
      StreamCopy(reinterpret_cast<uint8_t*>(out + (c * H + h) * W + w0),
                 reinterpret_cast<const uint8_t*>(row.values),
                 count * sizeof(T));
    }
  }
}

// CHW output: the chunk's bytes split into planes, one converter per channel.
template <int kC, Math kMath, DType kDType>
void RunPlanar(const KernelConstants& k, const KernelArgs& a) {
  using T = typename Out<kDType>::T;
  const int64_t H = a.height, W = a.width;
  T* const out = static_cast<T*>(a.output);
  Patterns pat[kMaxChannels];
  for (int c = 0; c < kC; ++c) MakePatterns(k, 1, nullptr, c, &pat[c]);
  using Conv = Converter<1, kMath, kDType>;
  const Conv convert[kMaxChannels] = {Conv(pat[0]), Conv(pat[kC > 1 ? 1 : 0]),
                                      Conv(pat[kC > 2 ? 2 : 0]),
                                      Conv(pat[kC > 3 ? 3 : 0])};
  const Rearranger<kC, kC, true> rearrange(a.flip);
#if HWY_TARGET == HWY_AVX3_DL
  const Lookup16<kC, false> lookup_table(k, a.flip);
  const auto* lookup = &lookup_table;
#else
  const void* lookup = nullptr;
#endif
  Scratch scratch;
  for (int64_t h = 0; h < H; ++h) {
    const uint8_t* in_row = a.input + h * a.input_row_stride;
    int64_t e0, e1;
    EraseColumns(a, h, &e0, &e1);
    if (a.nontemporal && e1 > e0) {
      ErasedPlanarRowStreamed<kC>(convert, rearrange, a, h, e0, e1);
      continue;
    }
    const int64_t spans[2][2] = {{0, e0}, {e1, W}};
    for (const auto& span : spans) {
      const int64_t begin =
          span[0] +
          LookedUp<kC, kDType>(lookup, a, h, span[0], span[1] - span[0]);
      for (int64_t w0 = begin; w0 < span[1]; w0 += kChunkPixels) {
        const int64_t count = std::min<int64_t>(kChunkPixels, span[1] - w0);
        const uint8_t* planes =
            Planes(rearrange, a, in_row, w0, count, &scratch);
        for (int c = 0; c < kC; ++c) {
          convert[c].Run(planes + c * kChunkPixels, count,
                         out + (c * H + h) * W + w0, a.nontemporal);
        }
      }
    }
    if (e1 > e0) {
      EraseSpan(out, Layout::kCHW, H, W, kC, h, e0, e1, a.nontemporal);
    }
  }
}

template <int kC, Math kMath, DType kDType>
void RunChannels(const KernelConstants& k, const KernelArgs& a) {
  switch (k.layout) {
    case Layout::kHWC:
      return RunInterleaved<kC, kC, kMath, kDType>(k, a);
    case Layout::kHWC4:
      return RunInterleaved<kC, 4, kMath, kDType>(k, a);
    case Layout::kCHW:
      return RunPlanar<kC, kMath, kDType>(k, a);
  }
}

template <Math kMath, DType kDType>
void RunTyped(const KernelConstants& k, const KernelArgs& a) {
  switch (a.channels) {
    case 1:
      RunChannels<1, kMath, kDType>(k, a);
      break;
    case 2:
      RunChannels<2, kMath, kDType>(k, a);
      break;
    case 3:
      RunChannels<3, kMath, kDType>(k, a);
      break;
    default:
      RunChannels<4, kMath, kDType>(k, a);
  }
  if (a.nontemporal) hwy::FlushStream();
}

// One dtype's rows in one math (kMath: Math's value), declared in
// highway.cc, which picks among the instances; this file makes the one of
// FUSEDNORM_HWY_DTYPE and FUSEDNORM_HWY_MATH.
template <DType kDType, int kMath>
void RunRows(const KernelConstants& k, const KernelArgs& a) {
  RunTyped<static_cast<Math>(kMath), kDType>(k, a);
}

static_assert(static_cast<int>(Math::kFast) == 0 &&
                  static_cast<int>(Math::kExactDiv) == 1 &&
                  static_cast<int>(Math::kExactFma) == 2,
              "highway.cc names the maths by these values");
// Exact mode by FMA runs only where the target fuses multiply-adds.
#if FUSEDNORM_HWY_MATH != 2 || HWY_NATIVE_FMA
template void RunRows<static_cast<DType>(FUSEDNORM_HWY_DTYPE),
                      FUSEDNORM_HWY_MATH>(const KernelConstants& k,
                                          const KernelArgs& a);
#endif

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();
