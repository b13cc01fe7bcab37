// Conversion of uint8 values to normalized output values, a vector at a time:
// the per-lane constant patterns, the fast and exact formulas, the stores
// (float16 and bfloat16 narrowing: narrow-inl.h), and Converter, which runs
// them over a span of elements.
//
// A per-target part of the Highway kernel: kernels/highway/rows.cc
// includes it once per target (Highway's -inl.h convention), inside no
// namespace; the toggling guard below lets each target's pass through
// foreach_target.h compile it again.

// Per-target include guard.
#if defined(FUSEDNORM_KERNELS_HIGHWAY_CONVERT_INL_H_) == \
    defined(HWY_TARGET_TOGGLE)
#ifdef FUSEDNORM_KERNELS_HIGHWAY_CONVERT_INL_H_
#undef FUSEDNORM_KERNELS_HIGHWAY_CONVERT_INL_H_
#else
#define FUSEDNORM_KERNELS_HIGHWAY_CONVERT_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "kernels/highway/narrow-inl.h"
#include "kernels/kernel.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// Enough float lanes for the widest vector any target has, plus a pattern's
// phase shift.
constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(float);

// Per-call constants as lane patterns: for period P (values per output pixel in
// the order the elements are processed), a[k] holds channel k % P's constant.
struct Patterns {
  HWY_ALIGN float a[kMaxLanes + 4];
  HWY_ALIGN float b[kMaxLanes + 4];
  HWY_ALIGN float r[kMaxLanes + 4];  // exact mode: 1 / std
};

// How values are computed: fast mode, or exact mode with divisions or with
// corrected reciprocals (where the CPU fuses multiply-adds and
// KernelConstants::exact_by_fma vouches for every input).
enum class Math { kFast, kExactDiv, kExactFma };

// Fast mode: y = x * a - b. Exact mode: y = (x / 255 - a) / b. Lanes of
// channels the image lacks (HWC4 padding) get a = 0, b = 1 (exact) or a = 0, b
// = 0 (fast): both give +0.0 for the zero byte the rearrangement puts there.
inline void MakePatterns(const KernelConstants& k, int period,
                         const int* channel_of_lane_mod, int first_channel,
                         Patterns* p) {
  for (size_t i = 0; i < kMaxLanes + 4; ++i) {
    const int c =
        channel_of_lane_mod ? channel_of_lane_mod[i % period] : first_channel;
    const bool pad = c < 0;
    if (k.mode == Mode::kFast) {
      p->a[i] = pad ? 0.0f : k.mul[c];
      p->b[i] = pad ? 0.0f : k.sub[c];
      p->r[i] = 0.0f;
    } else {
      p->a[i] = pad ? 0.0f : k.mean[c];
      p->b[i] = pad ? 1.0f : k.std[c];
      p->r[i] = pad ? 1.0f : k.recip_std[c];
    }
  }
}

HWY_INLINE VF LoadU8AsFloat(DF df, const uint8_t* p) {
  const hn::Rebind<uint8_t, DF> d8;
  const hn::Rebind<int32_t, DF> di;
  return hn::ConvertTo(df, hn::PromoteTo(di, hn::LoadU(d8, p)));
}

template <Math kMath>
HWY_INLINE VF Normalize(DF df, VF x, VF a, VF b, VF r) {
  if (kMath == Math::kFast) {
    // two roundings; -ffp-contract=off keeps them apart
    return hn::Sub(hn::Mul(x, a), b);
  }
  const VF k255 = hn::Set(df, 255.0f);
#if HWY_NATIVE_FMA
  if (kMath == Math::kExactFma) {
    // q = a / b as q0 = a * (1/b), q0 + (a - q0 * b) * (1/b), each FMA rounded
    // once: the same bits as the divisions (checked for every input).
    const VF r255 = hn::Set(df, 1.0f / 255.0f);
    const VF t0 = hn::Mul(x, r255);
    const VF t = hn::MulAdd(hn::NegMulAdd(t0, k255, x), r255, t0);
    const VF d = hn::Sub(t, a);
    const VF y0 = hn::Mul(d, r);
    return hn::MulAdd(hn::NegMulAdd(y0, b, d), r, y0);
  }
#endif
  (void)r;
  // torchvision: x / 255.f, then (t - mean) / std; IEEE division is correctly
  // rounded.
  return hn::Div(hn::Sub(hn::Div(x, k255), a), b);
}

// Output element types: float, or 16-bit patterns for float16/bfloat16.
template <DType kDType>
struct Out {
  using T = uint16_t;
};
template <>
struct Out<DType::kFloat32> {
  using T = float;
};

template <DType kDType>
HWY_INLINE void StoreValues(DF df, VF v, typename Out<kDType>::T* p,
                            bool stream) {
  if constexpr (kDType == DType::kFloat32) {
    if (stream) {
      hn::Stream(v, df, p);
    } else {
      hn::StoreU(v, df, p);
    }
  } else {
    const hn::Rebind<uint16_t, DF> d16;
    const auto bits = InRegister(kDType == DType::kFloat16
                                     ? HalfBitsOf<decltype(d16)>(df, v)
                                     : BFloat16BitsOf<decltype(d16)>(df, v));
    if (stream) {
      hn::Stream(bits, d16, p);
    } else {
      hn::StoreU(bits, d16, p);
    }
  }
}

// Normalizes runs of u8 elements whose lane pattern repeats every kPeriod
// elements (element i uses pattern lane i % kPeriod). Holds only a pointer to
// the patterns: SVE vectors are sizeless, so no class member or array may be
// a vector. The kPeriod (1..4) constant vectors of a block are loaded into
// four variables once per run and stay in registers across its blocks.
template <int kPeriod, Math kMath, DType kDType>
class Converter {
 public:
  using T = typename Out<kDType>::T;

  explicit Converter(const Patterns& pat) : pat_(&pat) {}

  // Converts src[0, n) into dst[0, n); n must start at a pattern phase of 0.
  // Reads and writes nothing outside those ranges.
  HWY_INLINE void Run(const uint8_t* HWY_RESTRICT src, size_t n,
                      T* HWY_RESTRICT dst, bool nontemporal) const {
    const DF df;
    const size_t N = hn::Lanes(df);
    // Streaming stores need aligned, whole 128-bit (or wider) vectors: x86's
    // streaming store of a partial vector (float16 from 4 floats on SSE4)
    // writes 16 bytes. Regular stores want aligned vectors too: a store that
    // straddles two cache lines costs two (a malloc'ed buffer is usually 16
    // bytes past a 64-byte boundary).
    const size_t store_bytes = N * sizeof(T);
    if (store_bytes % 16 != 0 || n < 2 * kPeriod * N) {
      const size_t i = Blocks<false>(src, n, dst);
      Partial(src + i, n - i, dst + i);
      return;
    }
    // Peel a whole number of pixels (periods) until dst is aligned, so that a
    // span starting mid-row (after an erased span) is aligned too.
    size_t peel = 0;
    while (reinterpret_cast<uintptr_t>(dst + peel) % store_bytes != 0) {
      peel += kPeriod;
      if (peel >= kPeriod * N) {  // no pixel boundary is aligned
        peel = 0;
        break;
      }
    }
    const bool aligned =
        reinterpret_cast<uintptr_t>(dst + peel) % store_bytes == 0;
    if (peel > 0) Partial(src, peel, dst);
    const size_t i =
        peel + (aligned && nontemporal
                    ? Blocks<true>(src + peel, n - peel, dst + peel)
                    : Blocks<false>(src + peel, n - peel, dst + peel));
    Partial(src + i, n - i, dst + i);
  }

 private:
  // Vector j of a block starts at element j * N: pattern phase (j * N) % P.
  // j may exceed the period (the load is then unused): it stays in bounds.
  HWY_INLINE VF Pattern(DF df, const float* p, int j) const {
    return hn::LoadU(df, p + (j * hn::Lanes(df)) % kPeriod);
  }

  template <bool kStream>
  HWY_INLINE void One(DF df, const uint8_t* HWY_RESTRICT src,
                      T* HWY_RESTRICT dst, VF a, VF b, VF r) const {
    const VF x = LoadU8AsFloat(df, src);
    StoreValues<kDType>(df, Normalize<kMath>(df, x, a, b, r), dst, kStream);
  }

  // Converts fewer than one block of elements (n < kPeriod * N, starting at
  // phase 0) through a zero-padded block, so that vector loads and stores stay
  // inside the caller's buffers.
  HWY_INLINE void Partial(const uint8_t* HWY_RESTRICT src, size_t n,
                          T* HWY_RESTRICT dst) const {
    if (n == 0) return;
    const DF df;
    const size_t N = hn::Lanes(df);
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    // AVX-512 loads and stores exactly the lanes a mask selects (masked-off
    // lanes never fault), so the tail needs no copies: those cost more than
    // the conversion for the short spans either side of an erased span.
    const hn::Rebind<uint8_t, DF> d8;
    const hn::Rebind<int32_t, DF> di;
    const hn::Rebind<T, DF> dt;
    for (int j = 0; j < kPeriod && j * N < n; ++j) {
      const size_t lanes = std::min(N, n - j * N);
      const VF x = hn::ConvertTo(
          df, hn::PromoteTo(
                  di, hn::MaskedLoad(hn::FirstN(d8, lanes), d8, src + j * N)));
      const VF y =
          Normalize<kMath>(df, x, Pattern(df, pat_->a, j),
                           Pattern(df, pat_->b, j), Pattern(df, pat_->r, j));
      if constexpr (kDType == DType::kFloat32) {
        hn::BlendedStore(y, hn::FirstN(df, lanes), df, dst + j * N);
      } else {
        const hn::Rebind<uint16_t, DF> d16;
        const auto bits = kDType == DType::kFloat16
                              ? HalfBitsOf<decltype(d16)>(df, y)
                              : BFloat16BitsOf<decltype(d16)>(df, y);
        hn::BlendedStore(bits, hn::FirstN(dt, lanes), dt, dst + j * N);
      }
    }
    return;
#endif
    HWY_ALIGN uint8_t in_tail[4 * kMaxLanes] = {};
    HWY_ALIGN T out_tail[4 * kMaxLanes];
    std::memcpy(in_tail, src, n);
    for (int j = 0; j < kPeriod; ++j) {
      One<false>(df, in_tail + j * N, out_tail + j * N, Pattern(df, pat_->a, j),
                 Pattern(df, pat_->b, j), Pattern(df, pat_->r, j));
    }
    std::memcpy(dst, out_tail, n * sizeof(T));
  }

  // Converts the whole blocks of src[0, n); returns how many elements that was.
  template <bool kStream>
  HWY_INLINE size_t Blocks(const uint8_t* HWY_RESTRICT src, size_t n,
                           T* HWY_RESTRICT dst) const {
    const DF df;
    const size_t N = hn::Lanes(df);
    const float *pa = pat_->a, *pb = pat_->b, *pr = pat_->r;
    const VF a0 = Pattern(df, pa, 0), b0 = Pattern(df, pb, 0),
             r0 = Pattern(df, pr, 0);
    const VF a1 = Pattern(df, pa, 1), b1 = Pattern(df, pb, 1),
             r1 = Pattern(df, pr, 1);
    const VF a2 = Pattern(df, pa, 2), b2 = Pattern(df, pb, 2),
             r2 = Pattern(df, pr, 2);
    const VF a3 = Pattern(df, pa, 3), b3 = Pattern(df, pb, 3),
             r3 = Pattern(df, pr, 3);
    const size_t block = kPeriod * N;
    size_t i = 0;
    for (; i + block <= n; i += block) {
      One<kStream>(df, src + i, dst + i, a0, b0, r0);
      if (kPeriod > 1) One<kStream>(df, src + i + N, dst + i + N, a1, b1, r1);
      if (kPeriod > 2) {
        One<kStream>(df, src + i + 2 * N, dst + i + 2 * N, a2, b2, r2);
      }
      if (kPeriod > 3) {
        One<kStream>(df, src + i + 3 * N, dst + i + 3 * N, a3, b3, r3);
      }
    }
    return i;
  }

  const Patterns* pat_;
};

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
