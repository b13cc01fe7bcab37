// The benchmarks' baselines (baselines.h): the stream roofline, compiled once
// per Highway target like the kernel, and torchvision's unfused passes.
#include <cstddef>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "benchmarks/baselines.cc"
#include "benchmarks/baselines.h"
#include "hwy/cache_control.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/formats.h"

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
#include <cstring>

namespace fusednorm {
HWY_EXPORT(StreamImpl);

void UnfusedTorchvision(const uint8_t* in, int64_t H, int64_t W, int C,
                        const float* mean, const float* std,
                        const Augmentation& aug, DType dtype, Layout layout,
                        uint8_t* out, std::vector<float>& a,
                        std::vector<float>& b) {
  const int64_t plane = H * W;
  for (int c = 0; c < C; ++c) {  // ToTensor: HWC u8 -> CHW float / 255
    for (int64_t p = 0; p < plane; ++p)
      a[c * plane + p] = in[p * C + c] / 255.0f;
  }
  if (aug.flip) {  // RandomHorizontalFlip: a new tensor
    for (int c = 0; c < C; ++c) {
      for (int64_t h = 0; h < H; ++h) {
        const float* src = &a[c * plane + h * W];
        float* dst = &b[c * plane + h * W];
        for (int64_t w = 0; w < W; ++w) dst[w] = src[W - 1 - w];
      }
    }
    a.swap(b);
  }
  for (int c = 0; c < C; ++c) {  // Normalize: a new tensor
    for (int64_t p = 0; p < plane; ++p)
      b[c * plane + p] = (a[c * plane + p] - mean[c]) / std[c];
  }
  const EraseRect& r = aug.erase;  // RandomErasing, in place
  for (int c = 0; c < C; ++c) {
    for (int64_t h = r.top; h < r.top + r.height; ++h) {
      std::memset(&b[c * plane + h * W + r.left], 0, r.width * sizeof(float));
    }
  }
  const int stored = StoredChannels(layout, C);
  for (int c = 0; c < stored; ++c) {
    for (int64_t h = 0; h < H; ++h) {
      for (int64_t w = 0; w < W; ++w) {
        const float v = c < C ? b[(c * H + h) * W + w] : 0.0f;
        const int64_t idx = OutputIndex(layout, H, W, C, c, h, w);
        if (dtype == DType::kFloat32) {
          std::memcpy(out + idx * 4, &v, 4);
          continue;
        }
        const uint16_t bits = dtype == DType::kBFloat16 ? FloatToBFloat16Bits(v)
                                                        : FloatToHalfBits(v);
        std::memcpy(out + idx * 2, &bits, 2);
      }
    }
  }
}

void StreamBaseline(const uint8_t* in, size_t in_bytes, uint8_t* out,
                    size_t out_elems, DType dtype, bool nontemporal) {
  HWY_DYNAMIC_DISPATCH(StreamImpl)
  (in, in_bytes, out, out_elems, dtype, nontemporal);
}
}  // namespace fusednorm
#endif  // HWY_ONCE
