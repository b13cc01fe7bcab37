// Where the values go: scratch for a chunk, streaming copies, erased spans
// (zeros, streamed when the rest is) and whole rows assembled in L1.
//
// A per-target part of the Highway kernel: kernels/highway/rows.cc
// includes it once per target (Highway's -inl.h convention), inside no
// namespace; the toggling guard below lets each target's pass through
// foreach_target.h compile it again.

// Per-target include guard.
#if defined(FUSEDNORM_KERNELS_HIGHWAY_STORES_INL_H_) == \
    defined(HWY_TARGET_TOGGLE)
#ifdef FUSEDNORM_KERNELS_HIGHWAY_STORES_INL_H_
#undef FUSEDNORM_KERNELS_HIGHWAY_STORES_INL_H_
#else
#define FUSEDNORM_KERNELS_HIGHWAY_STORES_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "kernels/kernel.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Pixels per chunk: a chunk's rearranged bytes and output values stay in L1.
constexpr int64_t kChunkPixels = 256;

// Scratch for one chunk of rearranged bytes (Rearranger's 16-pixel blocks store
// exactly their own bytes, so no slack is needed).
struct Scratch {
  HWY_ALIGN uint8_t bytes[kMaxChannels * kChunkPixels];
};

// Copies n bytes to dst with streaming stores for its aligned middle.
HWY_INLINE void StreamCopy(uint8_t* HWY_RESTRICT dst,
                           const uint8_t* HWY_RESTRICT src, size_t n) {
  const hn::ScalableTag<uint8_t> d8;
  const size_t V = hn::Lanes(d8);
  size_t i = 0;
  if (V >= 16 && n >= 2 * V) {
    i = (V - reinterpret_cast<uintptr_t>(dst) % V) % V;
    std::memcpy(dst, src, i);
    for (; i + V <= n; i += V) hn::Stream(hn::LoadU(d8, src + i), d8, dst + i);
  }
  std::memcpy(dst + i, src + i, n - i);
}

// With streaming stores, a row that is partly erased is assembled in L1 (values
// and zeros) and then streamed whole: regular stores to lines that streaming
// stores also write would pull those lines into the cache and stall the writes.
template <typename T>
struct RowBuffer {
  HWY_ALIGN T values[kMaxChannels * kChunkPixels];

  // Zeroes pixels [e0, e1) of the chunk starting at pixel w0 (count pixels of
  // `stored` values each, from `first`).
  void ZeroErased(int64_t w0, int64_t count, int64_t e0, int64_t e1, int stored,
                  T* first) {
    const int64_t lo = std::max(w0, e0), hi = std::min(w0 + count, e1);
    if (hi > lo)
      std::memset(first + (lo - w0) * stored, 0,
                  (hi - lo) * stored * sizeof(T));
  }
};

// Sets n values at dst to +0.0: with streaming stores for the aligned middle
// when `nontemporal`, so erased spans bypass the caches like the rest.
template <typename T>
void Zero(T* dst, size_t n, bool nontemporal) {
  const hn::ScalableTag<uint8_t> d8;
  const size_t V = hn::Lanes(d8);
  uint8_t* p = reinterpret_cast<uint8_t*>(dst);
  size_t bytes = n * sizeof(T);
  if (nontemporal && V >= 16 && bytes >= 2 * V) {
    const size_t head = (V - reinterpret_cast<uintptr_t>(p) % V) % V;
    std::memset(p, 0, head);
    p += head;
    bytes -= head;
    for (; bytes >= V; p += V, bytes -= V) hn::Stream(hn::Zero(d8), d8, p);
  }
  std::memset(p, 0, bytes);
}

// The erased span [e0, e1) of row h: +0.0 in every stored value.
template <typename T>
void EraseSpan(T* out, Layout layout, int64_t H, int64_t W, int stored,
               int64_t h, int64_t e0, int64_t e1, bool nontemporal) {
  if (layout == Layout::kCHW) {
    for (int c = 0; c < stored; ++c) {
      Zero(out + (c * H + h) * W + e0, e1 - e0, nontemporal);
    }
  } else {
    Zero(out + (h * W + e0) * stored, (e1 - e0) * stored, nontemporal);
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
