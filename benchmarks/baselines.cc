// The benchmarks' baselines (baselines.h): the stream roofline and
// torchvision's unfused passes, compiled once per Highway target like the
// kernel. The unfused passes narrow to float16/bfloat16 with the kernel's own
// vector rounding (convert-inl.h): the baseline differs from the kernel in the
// passes over memory, not in the conversion.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "benchmarks/baselines.cc"
#include "benchmarks/baselines.h"
#include "hwy/cache_control.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/formats.h"
#include "kernels/highway/convert-inl.h"

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

// ---- torchvision's passes, vectorised (UnfusedTorchvision) ----

// ToTensor: HWC u8 -> CHW float, x / 255.
template <int kC>
void ToTensorPass(const uint8_t* in, int64_t H, int64_t W, int64_t stride,
                  float* a) {
  const DF df;
  const hn::Rebind<uint8_t, DF> d8;
  const hn::Rebind<int32_t, DF> di;
  const int64_t N = hn::Lanes(df), plane = H * W;
  const auto k255 = hn::Set(df, 255.0f);
  const auto to_float = [&](auto v8) {
    return hn::Div(hn::ConvertTo(df, hn::PromoteTo(di, v8)), k255);
  };
  for (int64_t h = 0; h < H; ++h) {
    const uint8_t* row = in + h * stride;
    float* dst = a + h * W;
    int64_t w = 0;
    for (; w + N <= W; w += N) {
      hn::Vec<decltype(d8)> v0, v1, v2, v3;
      if constexpr (kC == 1) v0 = hn::LoadU(d8, row + w);
      if constexpr (kC == 2) hn::LoadInterleaved2(d8, row + 2 * w, v0, v1);
      if constexpr (kC == 3) hn::LoadInterleaved3(d8, row + 3 * w, v0, v1, v2);
      if constexpr (kC == 4) {
        hn::LoadInterleaved4(d8, row + 4 * w, v0, v1, v2, v3);
      }
      hn::StoreU(to_float(v0), df, dst + w);
      if (kC > 1) hn::StoreU(to_float(v1), df, dst + plane + w);
      if (kC > 2) hn::StoreU(to_float(v2), df, dst + 2 * plane + w);
      if (kC > 3) hn::StoreU(to_float(v3), df, dst + 3 * plane + w);
    }
    for (; w < W; ++w) {
      for (int c = 0; c < kC; ++c)
        dst[c * plane + w] = row[w * kC + c] / 255.0f;
    }
  }
}

// RandomHorizontalFlip: every row of every plane reversed into `b`.
void FlipPass(const float* a, int64_t rows, int64_t W, float* b) {
  const DF df;
  const int64_t N = hn::Lanes(df);
  for (int64_t r = 0; r < rows; ++r) {
    const float* src = a + r * W;
    float* dst = b + r * W;
    int64_t w = 0;
    for (; w + N <= W; w += N) {
      hn::StoreU(hn::Reverse(df, hn::LoadU(df, src + W - w - N)), df, dst + w);
    }
    for (; w < W; ++w) dst[w] = src[W - 1 - w];
  }
}

// Normalize: (t - mean) / std per plane, into `b`.
void NormalizePass(const float* a, int64_t plane, int C, const float* mean,
                   const float* std, float* b) {
  const DF df;
  const int64_t N = hn::Lanes(df);
  for (int c = 0; c < C; ++c) {
    const float* src = a + c * plane;
    float* dst = b + c * plane;
    const auto m = hn::Set(df, mean[c]), s = hn::Set(df, std[c]);
    int64_t i = 0;
    for (; i + N <= plane; i += N) {
      hn::StoreU(hn::Div(hn::Sub(hn::LoadU(df, src + i), m), s), df, dst + i);
    }
    for (; i < plane; ++i) dst[i] = (src[i] - mean[c]) / std[c];
  }
}

// .float()/.half()/.bfloat16() of n values: float, or 16-bit patterns.
template <DType kDType, typename T>
HWY_INLINE void ConvertStore(const float* src, T* dst, size_t n) {
  const DF df;
  const size_t N = hn::Lanes(df);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    StoreValues<kDType>(df, hn::LoadU(df, src + i), dst + i, false);
  }
  for (; i < n; ++i) {
    if constexpr (kDType == DType::kFloat32) {
      dst[i] = src[i];
    } else {
      dst[i] = kDType == DType::kFloat16 ? FloatToHalfBits(src[i])
                                         : FloatToBFloat16Bits(src[i]);
    }
  }
}

// The dtype conversion and permute().contiguous() into `out`, one pass:
// planes converted a row at a time into L1 scratch, then interleaved.
template <DType kDType, int kC, int kStored>
void InterleavePass(const float* b, int64_t H, int64_t W, uint8_t* out) {
  using T = typename Out<kDType>::T;
  const hn::ScalableTag<T> dt;
  const hn::Rebind<T, DF> d;  // one float vector's worth of T
  const int64_t N = hn::Lanes(d), plane = H * W;
  constexpr int64_t kRow = 256;
  HWY_ALIGN T conv[4][kRow] = {};  // plane kC.. stays zero (HWC4 pad)
  T* dst = reinterpret_cast<T*>(out);
  (void)dt;
  for (int64_t p0 = 0; p0 < plane; p0 += kRow) {
    const int64_t n = std::min<int64_t>(kRow, plane - p0);
    for (int c = 0; c < kC; ++c)
      ConvertStore<kDType>(b + c * plane + p0, conv[c], n);
    int64_t i = 0;
    for (; i + N <= n; i += N) {
      const auto v0 = hn::Load(d, conv[0] + i), v1 = hn::Load(d, conv[1] + i),
                 v2 = hn::Load(d, conv[2] + i), v3 = hn::Load(d, conv[3] + i);
      T* to = dst + (p0 + i) * kStored;
      if constexpr (kStored == 1) hn::StoreU(v0, d, to);
      if constexpr (kStored == 2) hn::StoreInterleaved2(v0, v1, d, to);
      if constexpr (kStored == 3) hn::StoreInterleaved3(v0, v1, v2, d, to);
      if constexpr (kStored == 4) hn::StoreInterleaved4(v0, v1, v2, v3, d, to);
    }
    for (; i < n; ++i) {
      for (int c = 0; c < kStored; ++c)
        dst[(p0 + i) * kStored + c] = conv[c][i];
    }
  }
}

template <DType kDType, int kC>
void OutputPass(const float* b, int64_t H, int64_t W, Layout layout,
                uint8_t* out) {
  using T = typename Out<kDType>::T;
  switch (layout) {
    case Layout::kCHW:
      return ConvertStore<kDType>(b, reinterpret_cast<T*>(out), H * W * kC);
    case Layout::kHWC:
      return InterleavePass<kDType, kC, kC>(b, H, W, out);
    case Layout::kHWC4:
      return InterleavePass<kDType, kC, 4>(b, H, W, out);
  }
}

template <int kC>
void UnfusedChannels(const UnfusedArgs& u) {
  const int64_t H = u.height, W = u.width, plane = H * W;
  float* a = u.a;
  float* b = u.b;
  ToTensorPass<kC>(u.input, H, W, u.row_stride, a);
  if (u.aug.flip) {  // a new tensor
    FlipPass(a, kC * H, W, b);
    std::swap(a, b);
  }
  // float32 CHW: Normalize's result is the output tensor itself.
  const bool direct = u.dtype == DType::kFloat32 && u.layout == Layout::kCHW;
  float* norm = direct ? reinterpret_cast<float*>(u.output) : b;
  NormalizePass(a, plane, kC, u.mean, u.std, norm);
  const EraseRect& r = u.aug.erase;  // RandomErasing, in place
  for (int c = 0; c < kC && !r.empty(); ++c) {
    for (int64_t h = r.top; h < r.top + r.height; ++h)
      std::memset(norm + c * plane + h * W + r.left, 0,
                  r.width * sizeof(float));
  }
  if (direct) return;
  switch (u.dtype) {
    case DType::kFloat32:
      return OutputPass<DType::kFloat32, kC>(b, H, W, u.layout, u.output);
    case DType::kFloat16:
      return OutputPass<DType::kFloat16, kC>(b, H, W, u.layout, u.output);
    case DType::kBFloat16:
      return OutputPass<DType::kBFloat16, kC>(b, H, W, u.layout, u.output);
  }
}

void UnfusedImpl(const UnfusedArgs& u) {
  switch (u.channels) {
    case 1:
      return UnfusedChannels<1>(u);
    case 2:
      return UnfusedChannels<2>(u);
    case 3:
      return UnfusedChannels<3>(u);
    default:
      return UnfusedChannels<4>(u);
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#if HWY_ONCE

namespace fusednorm {
HWY_EXPORT(StreamImpl);
HWY_EXPORT(UnfusedImpl);

void UnfusedTorchvision(const UnfusedArgs& args) {
  HWY_DYNAMIC_DISPATCH(UnfusedImpl)(args);
}

void StreamBaseline(const uint8_t* in, size_t in_bytes, uint8_t* out,
                    size_t out_elems, DType dtype, bool nontemporal) {
  HWY_DYNAMIC_DISPATCH(StreamImpl)
  (in, in_bytes, out, out_elems, dtype, nontemporal);
}
}  // namespace fusednorm
#endif  // HWY_ONCE
