#include <cstddef>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "benchmarks/stream_baseline.cc"
#include "benchmarks/stream_baseline.h"
#include "hwy/cache_control.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class D, class V, typename T>
HWY_INLINE void Put(D d, V v, T* p, bool stream) {
  if (stream) {
    hn::Stream(v, d, p);
  } else {
    hn::StoreU(v, d, p);
  }
}

// Widens n bytes into n output elements; vector body, scalar tail.
template <typename T>
void Widen(const uint8_t* in, size_t n, T* out, bool nontemporal) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  const hn::Rebind<uint8_t, decltype(d)> d8;
  const bool stream = nontemporal && N * sizeof(T) >= 16 &&
                      reinterpret_cast<uintptr_t>(out) % (N * sizeof(T)) == 0;
  size_t i = 0;
  for (; i + N <= n; i += N) {
    if constexpr (sizeof(T) == 4) {
      const hn::Rebind<int32_t, decltype(d)> di;
      Put(d, hn::ConvertTo(d, hn::PromoteTo(di, hn::LoadU(d8, in + i))),
          out + i, stream);
    } else {
      Put(d, hn::PromoteTo(d, hn::LoadU(d8, in + i)), out + i, stream);
    }
  }
  for (; i < n; ++i) out[i] = static_cast<T>(in[i]);
}

void StreamImpl(const uint8_t* in, size_t in_bytes, uint8_t* out,
                size_t out_elems, DType dtype, bool nontemporal) {
  const size_t esize = DTypeSize(dtype);
  for (size_t k = 0; k < out_elems; k += in_bytes) {
    const size_t n = out_elems - k < in_bytes ? out_elems - k : in_bytes;
    if (esize == 4) {
      Widen(in, n, reinterpret_cast<float*>(out) + k, nontemporal);
    } else {
      Widen(in, n, reinterpret_cast<uint16_t*>(out) + k, nontemporal);
    }
  }
  if (nontemporal) hwy::FlushStream();
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace fusednorm {
HWY_EXPORT(StreamImpl);

void StreamBaseline(const uint8_t* in, size_t in_bytes, uint8_t* out,
                    size_t out_elems, DType dtype, bool nontemporal) {
  HWY_DYNAMIC_DISPATCH(StreamImpl)
  (in, in_bytes, out, out_elems, dtype, nontemporal);
}
}  // namespace fusednorm
#endif  // HWY_ONCE
