// The Highway mix rows (highway_mix.h), compiled once per Highway target
// through foreach_target.h: a float vector of each sample at a time,
// widened from and narrowed to the dtype as kernels/formats.h does it
// (bfloat16: the top half of a float's bits; float16: in hardware where
// the target has it, else in integer steps; narrow-inl.h narrows); the
// last values that fill no whole vector go through the scalar row. Asked to
// stream, a row mixes the values before `cur`'s first aligned vector with
// the scalar row too, then streams whole vectors. CutMix's paste streams the
// runs' middles as the fused op streams a copy (stores-inl.h).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/mix/highway_mix.cc"
#include "hwy/cache_control.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/highway/narrow-inl.h"
#include "kernels/highway/stores-inl.h"
#include "kernels/highway/target_rows.h"
#include "kernels/mix/highway_mix.h"
#include "kernels/mix/mix_kernel.h"
#include "kernels/mix/scalar_mix.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;
using DU16 = hn::Rebind<uint16_t, DF>;
using DU32 = hn::RebindToUnsigned<DF>;

template <DType kType>
constexpr size_t kBytes = kType == DType::kFloat32 ? 4 : 2;

// The float value of float16 bits, exactly (HalfBitsToFloat of
// kernels/formats.h): in hardware where the target has it, else rebiased
// (normal numbers, infinities, NaNs) or scaled by 2^-24 (subnormals).
HWY_INLINE VF HalfToFloat(hn::Vec<DU16> bits) {
  const DF df;
  if constexpr (kHardwareHalf) {
    const hn::Rebind<hwy::float16_t, DF> dh;
    return hn::PromoteTo(df, hn::BitCast(dh, bits));
  }
  const DU32 du;
  const auto h = hn::PromoteTo(du, bits);
  const auto sign = hn::ShiftLeft<16>(hn::And(h, hn::Set(du, 0x8000u)));
  const auto exp = hn::And(h, hn::Set(du, 0x7C00u));
  const auto mant = hn::And(h, hn::Set(du, 0x3FFu));
  // Normal: exponent + 112 (127 - 15); all ones: the float's all ones.
  auto u = hn::ShiftLeft<13>(
      hn::Add(hn::And(h, hn::Set(du, 0x7FFFu)), hn::Set(du, 112u << 10)));
  u = hn::IfThenElse(hn::Eq(exp, hn::Set(du, 0x7C00u)),
                     hn::Or(hn::Set(du, 0x7F800000u), hn::ShiftLeft<13>(mant)),
                     u);
  const auto sub = hn::BitCast(
      du,
      hn::Mul(hn::ConvertTo(df, hn::BitCast(hn::RebindToSigned<DF>(), mant)),
              hn::Set(df, 1.0f / 16777216.0f)));
  u = hn::IfThenElse(hn::Eq(exp, hn::Zero(du)), sub, u);
  return hn::BitCast(df, hn::Or(u, sign));
}

// The float value of each 16-bit pattern: bfloat16 is the top half of the
// float's bits.
template <DType kType>
HWY_INLINE VF Widen(hn::Vec<DU16> bits) {
  if constexpr (kType == DType::kBFloat16) {
    return hn::BitCast(DF(), hn::ShiftLeft<16>(hn::PromoteTo(DU32(), bits)));
  } else {
    return HalfToFloat(bits);
  }
}

// NaN lanes as the quiet NaN 0x7FC00000, whose narrowing every row and
// kernels/formats.h agree on (bfloat16 0x7FC0, float16 0x7E00): a NaN's
// sign and payload are the compiler's choice of operand order, not a
// rule.
HWY_INLINE VF CanonicalNaN(VF v) {
  const DF df;
  return hn::IfThenElse(hn::IsNaN(v),
                        hn::BitCast(df, hn::Set(DU32(), 0x7FC00000u)), v);
}

template <DType kType>
HWY_INLINE hn::Vec<DU16> Narrow(VF v) {
  if constexpr (kType == DType::kBFloat16) {
    return BFloat16BitsOf<DU16>(DF(), CanonicalNaN(v));
  } else {
    return HalfBitsOf<DU16>(DF(), CanonicalNaN(v));
  }
}

template <DType kType>
HWY_INLINE VF Load(const uint8_t* p) {
  if constexpr (kType == DType::kFloat32) {
    return hn::LoadU(DF(), reinterpret_cast<const float*>(p));
  } else {
    return Widen<kType>(
        hn::LoadU(DU16(), reinterpret_cast<const uint16_t*>(p)));
  }
}

// v rounded to the dtype, as a float (bfloat16: the rounded bits with
// their low half cleared, without narrowing them).
template <DType kType>
HWY_INLINE VF Round(VF v) {
  if constexpr (kType == DType::kFloat32) {
    return v;
  } else if constexpr (kType == DType::kBFloat16) {
    const DF df;
    return hn::BitCast(df, hn::And(BFloat16RoundedBits(df, CanonicalNaN(v)),
                                   hn::Set(DU32(), 0xFFFF0000u)));
  } else {
    return Widen<kType>(Narrow<kType>(v));
  }
}

template <DType kType, bool kStream>
HWY_INLINE void Store(VF v, uint8_t* p) {
  if constexpr (kType == DType::kFloat32) {
    float* f = reinterpret_cast<float*>(p);
    if constexpr (kStream) {
      hn::Stream(v, DF(), f);
    } else {
      hn::StoreU(v, DF(), f);
    }
  } else {
    const auto bits = InRegister(Narrow<kType>(v));
    uint16_t* h = reinterpret_cast<uint16_t*>(p);
    if constexpr (kStream) {
      hn::Stream(bits, DU16(), h);
    } else {
      hn::StoreU(bits, DU16(), h);
    }
  }
}

// Whole vectors; returns the values done. kStream: `cur` is aligned to a
// store's bytes.
template <DType kType, bool kStream>
size_t MixVectors(const uint8_t* HWY_RESTRICT partner,
                  uint8_t* HWY_RESTRICT cur, size_t values, float a, float b) {
  const DF df;
  const size_t n = hn::Lanes(df);
  const VF va = hn::Set(df, a), vb = hn::Set(df, b);
  size_t i = 0;
  for (; i + n <= values; i += n) {
    const size_t at = i * kBytes<kType>;
    const VF x = Round<kType>(hn::Mul(Load<kType>(partner + at), va));
    const VF y = Round<kType>(hn::Mul(Load<kType>(cur + at), vb));
    Store<kType, kStream>(hn::Add(x, y), cur + at);
  }
  return i;
}

// How many values precede `cur`'s first address aligned for a streaming
// store, or -1 when no store can stream: x86 streams whole 16-byte (or
// wider) vectors only, so a narrower one (float16 from 4 floats on SSE4)
// would write past it, and a `cur` not aligned to its dtype never reaches
// an aligned value.
template <DType kType>
int64_t StreamHead(const uint8_t* cur, size_t values) {
  const size_t store_bytes = hn::Lanes(DF()) * kBytes<kType>;
  const uintptr_t off = reinterpret_cast<uintptr_t>(cur) % store_bytes;
  if (store_bytes % 16 != 0 || off % kBytes<kType> != 0) return -1;
  return static_cast<int64_t>(
      std::min(values, (store_bytes - off) % store_bytes / kBytes<kType>));
}

template <DType kType>
void MixAs(const uint8_t* partner, uint8_t* cur, size_t values, float a,
           float b, bool nontemporal) {
  constexpr size_t kB = kBytes<kType>;
  const MixKernelInfo scalar = ScalarMixInfo();
  const int64_t head = nontemporal ? StreamHead<kType>(cur, values) : -1;
  size_t done = 0;
  if (head >= 0) {
    done = static_cast<size_t>(head);
    scalar.mix(kType, partner, cur, done, a, b, false);
    done += MixVectors<kType, true>(partner + done * kB, cur + done * kB,
                                    values - done, a, b);
    hwy::FlushStream();
  } else {
    done = MixVectors<kType, false>(partner, cur, values, a, b);
  }
  scalar.mix(kType, partner + done * kB, cur + done * kB, values - done, a, b,
             false);
}

void Mix(DType dtype, const uint8_t* partner, uint8_t* cur, size_t values,
         float a, float b, bool nontemporal) {
  switch (dtype) {
    case DType::kFloat32:
      return MixAs<DType::kFloat32>(partner, cur, values, a, b, nontemporal);
    case DType::kBFloat16:
      return MixAs<DType::kBFloat16>(partner, cur, values, a, b, nontemporal);
    case DType::kFloat16:
      return MixAs<DType::kFloat16>(partner, cur, values, a, b, nontemporal);
  }
}

// Streamed, each run's middle from its first aligned vector (StreamCopy).
void Paste(const uint8_t* from, uint8_t* to, size_t rows, size_t row_bytes,
           size_t stride, bool nontemporal) {
  if (!nontemporal) {
    return ScalarMixInfo().paste(from, to, rows, row_bytes, stride, false);
  }
  for (size_t r = 0; r < rows; ++r) {
    StreamCopy(to + r * stride, from + r * stride, row_bytes);
  }
  hwy::FlushStream();
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace fusednorm {

HWY_EXPORT(Mix);
HWY_EXPORT(Paste);

namespace {

void MixDynamic(DType dtype, const uint8_t* partner, uint8_t* cur,
                size_t values, float a, float b, bool nontemporal) {
  HWY_DYNAMIC_DISPATCH(Mix)(dtype, partner, cur, values, a, b, nontemporal);
}

void PasteDynamic(const uint8_t* from, uint8_t* to, size_t rows,
                  size_t row_bytes, size_t stride, bool nontemporal) {
  HWY_DYNAMIC_DISPATCH(Paste)(from, to, rows, row_bytes, stride, nontemporal);
}

bool Always() { return true; }

}  // namespace

std::vector<MixKernelInfo> HighwayMixInfos() {
  std::vector<MixKernelInfo> rows = {
      {"highway", "any (best Highway target)", 30, &Always,
       &hwy_rows::ActiveTarget, &MixDynamic, &PasteDynamic},
  };
  hwy_rows::ForEachCompiledTarget([&rows](auto bit) {
    constexpr int kBit = decltype(bit)::value;
    const size_t index = hwy_rows::TableIndex(int64_t{1} << kBit);
    rows.push_back(
        {hwy_rows::TargetText<kBit>(true), hwy_rows::TargetText<kBit>(false),
         10, &hwy_rows::TargetSupported<kBit>, &hwy_rows::TargetName<kBit>,
         HWY_DISPATCH_TABLE(Mix)[index], HWY_DISPATCH_TABLE(Paste)[index]});
  });
  return rows;
}

}  // namespace fusednorm
#endif  // HWY_ONCE
