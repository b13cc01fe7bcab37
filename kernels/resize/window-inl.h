// AVX3_DL part of the Highway resize rows (highway_resize.cc): the horizontal
// pass fetches a vector of output pixels' inputs with one two-table byte
// permute (VPERMI2B) from a 128-byte window of the row instead of a gather.
// On Zen 4 a 16-lane gather costs about as much as 45 simple instructions;
// the permute costs one.
//
// For each block of 16 outputs the window starts at the block's first input
// byte; a block whose inputs span more than 128 bytes (downscales by more
// than about 2.5x for 3 channels) keeps the gather. The tables hold, per
// block, the window's byte offset (or -1) and, per tap, the 64 byte indices
// that put output j's input pixel in dword j (bytes >= channels are zeroed
// by the permute's mask).
//
// Included once per target; the code exists for HWY_AVX3_DL only.

#if defined(FUSEDNORM_KERNELS_RESIZE_WINDOW_INL_H_) == \
    defined(HWY_TARGET_TOGGLE)
#ifdef FUSEDNORM_KERNELS_RESIZE_WINDOW_INL_H_
#undef FUSEDNORM_KERNELS_RESIZE_WINDOW_INL_H_
#else
#define FUSEDNORM_KERNELS_RESIZE_WINDOW_INL_H_
#endif

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hwy/highway.h"
#include "kernels/resize/resize_kernel.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_AVX3_DL

constexpr int64_t kWindowBytes = 128;
constexpr int64_t kWindowLanes = 16;  // int32 outputs per block

// The window tables of one horizontal axis, appended to `t`; their positions
// are returned by offset so that `t` may grow while they are made.
struct WindowTables {
  size_t bases = 0;    // blocks entries: window byte offset, or -1
  size_t indices = 0;  // blocks * taps * 16 entries: 64 byte indices each
  int64_t reach = 0;   // bytes from a row's start that the windows read
};

HWY_INLINE WindowTables MakeWindowTables(const ResizeAxis& h, int C,
                                         int64_t padded,
                                         std::vector<int32_t>* t) {
  const int64_t blocks = padded / kWindowLanes;
  WindowTables w;
  w.bases = t->size();
  w.indices = w.bases + static_cast<size_t>(blocks);
  t->resize(w.indices + static_cast<size_t>(blocks * h.taps * kWindowLanes));
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t x0 = b * kWindowLanes;
    const int64_t x1 = std::min(x0 + kWindowLanes, h.out_size) - 1;
    const int64_t base = int64_t{h.start[x0]} * C;
    const int64_t end = (int64_t{h.start[x1]} + h.taps) * C;
    const bool fits = end - base <= kWindowBytes;
    (*t)[w.bases + b] = fits ? static_cast<int32_t>(base) : -1;
    if (!fits) continue;
    w.reach = std::max(w.reach, base + kWindowBytes);
    for (int k = 0; k < h.taps; ++k) {
      uint8_t* idx = reinterpret_cast<uint8_t*>(
          &(*t)[w.indices + (b * h.taps + k) * kWindowLanes]);
      for (int64_t j = 0; j < kWindowLanes; ++j) {
        const int64_t x = std::min(x0 + j, x1);  // padded lanes: any input
        for (int i = 0; i < 4; ++i) {
          const int64_t at = (int64_t{h.start[x]} + k) * C + i - base;
          idx[4 * j + i] = static_cast<uint8_t>(i < C ? at : 0);
        }
      }
    }
  }
  return w;
}

// The 16 output pixels of block `b` for tap `k`, one per dword, from the
// window at `row + base`.
template <int kC>
HWY_INLINE hn::Vec<hn::ScalableTag<int32_t>> WindowPixels(
    const uint8_t* window, const int32_t* indices) {
  constexpr uint64_t kMask = kC == 1   ? 0x1111111111111111ull
                             : kC == 2 ? 0x3333333333333333ull
                             : kC == 3 ? 0x7777777777777777ull
                                       : ~0ull;
  const __m512i lo = _mm512_loadu_si512(window);
  const __m512i hi = _mm512_loadu_si512(window + 64);
  const __m512i idx = _mm512_loadu_si512(indices);
  return hn::Vec<hn::ScalableTag<int32_t>>{
      _mm512_maskz_permutex2var_epi8(kMask, lo, idx, hi)};
}

#endif  // HWY_TARGET == HWY_AVX3_DL

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#endif  // include guard
