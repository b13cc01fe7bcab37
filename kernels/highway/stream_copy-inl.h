// A copy whose aligned middle is written with streaming stores, past the
// caches: for output that this core will not read back soon. The caller
// calls hwy::FlushStream() before another thread reads what it wrote.
//
// A per-target part: a file compiled once per Highway target
// (foreach_target.h) includes it inside no namespace; the toggling guard
// below lets each target's pass compile it again.

// Per-target include guard.
#if defined(FUSEDNORM_KERNELS_HIGHWAY_STREAM_COPY_INL_H_) == \
    defined(HWY_TARGET_TOGGLE)
#ifdef FUSEDNORM_KERNELS_HIGHWAY_STREAM_COPY_INL_H_
#undef FUSEDNORM_KERNELS_HIGHWAY_STREAM_COPY_INL_H_
#else
#define FUSEDNORM_KERNELS_HIGHWAY_STREAM_COPY_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

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

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
