// Float vectors narrowed to float16 and bfloat16 bits exactly as
// kernels/formats.h's scalar functions round (to nearest even), and the
// register pin that keeps GCC from folding a narrowing into its store.
// Shared by the normalization kernel's stores and the mix kernel.
//
// A per-target part: a file compiled once per Highway target includes it
// inside no namespace; the toggling guard below lets each target's pass
// through foreach_target.h compile it again.

// Per-target include guard.
#if defined(FUSEDNORM_KERNELS_HIGHWAY_NARROW_INL_H_) == \
    defined(HWY_TARGET_TOGGLE)
#ifdef FUSEDNORM_KERNELS_HIGHWAY_NARROW_INL_H_
#undef FUSEDNORM_KERNELS_HIGHWAY_NARROW_INL_H_
#else
#define FUSEDNORM_KERNELS_HIGHWAY_NARROW_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether this target converts between float and float16 in hardware (F16C
// on x86, Arm's NEON and SVE), rounding to nearest even. Highway 1.0.3
// emulates the others (EMU128, SCALAR, SSSE3, SSE4), and its emulated
// narrowing truncates.
constexpr bool kHardwareHalf =
    HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 ||
    HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_NEON ||
    HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 ||
    HWY_TARGET == HWY_SVE_256 || HWY_TARGET == HWY_SVE2_128;

// float -> float16 bits, round to nearest even (overflow -> infinity):
// FloatToHalfBits of kernels/formats.h, a vector at a time. In hardware
// where the target has it, else in integer steps. A NaN gives 0x7E00 in
// the integer steps; the hardware keeps its sign and more of its payload,
// so a caller that may see NaNs makes them the quiet NaN 0x7FC00000
// first, which both turn into 0x7E00 (the mix kernel does).
template <class DU16, class DF>
HWY_INLINE hn::Vec<DU16> HalfBitsOf(DF df, hn::Vec<DF> v) {
  if constexpr (kHardwareHalf) {
    const hn::Rebind<hwy::float16_t, DF> dh;
    return hn::BitCast(DU16(), hn::DemoteTo(dh, v));
  }
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  using VU = hn::Vec<decltype(du)>;
  const VU bits = hn::BitCast(du, v);
  const VU sign = hn::And(bits, hn::Set(du, 0x80000000u));
  const VU abs = hn::Xor(bits, sign);
  // Subnormal (or zero) results: adding 0.5f aligns the half's last bit with
  // the float's last bit, and the float addition rounds to nearest even.
  const auto magic = hn::BitCast(df, hn::Set(du, 0x3F000000u));
  const VU sub = hn::Sub(hn::BitCast(du, hn::Add(hn::BitCast(df, abs), magic)),
                         hn::Set(du, 0x3F000000u));
  // Normal results: rebias the exponent, add 0xfff plus the lowest kept bit,
  // shift.
  const VU odd = hn::And(hn::ShiftRight<13>(abs), hn::Set(du, 1u));
  const VU normal =
      hn::ShiftRight<13>(hn::Add(hn::Add(abs, hn::Set(du, 0xC8000FFFu)),
                                 odd));  // (15 - 127) << 23 + 0xfff
  const auto is_sub =
      hn::Lt(hn::BitCast(di, abs), hn::Set(di, 0x38800000));  // < 2^-14
  const auto is_inf =
      hn::Lt(hn::Set(di, 0x477FFFFF), hn::BitCast(di, abs));  // >= 2^16
  const auto is_nan = hn::Lt(hn::Set(di, 0x7F800000), hn::BitCast(di, abs));
  VU h = hn::IfThenElse(hn::RebindMask(du, is_sub), sub, normal);
  h = hn::IfThenElse(hn::RebindMask(du, is_inf), hn::Set(du, 0x7C00u), h);
  h = hn::Or(h, hn::ShiftRight<16>(sign));
  h = hn::IfThenElse(hn::RebindMask(du, is_nan), hn::Set(du, 0x7E00u), h);
  return hn::DemoteTo(DU16(), hn::BitCast(di, h));  // values fit in 16 bits
}

// The float bits of v rounded to bfloat16, to nearest even, in the top
// half (FloatToBFloat16Bits of kernels/formats.h before its shift; the low
// half is not cleared). Not for NaNs: FloatToBFloat16Bits gives 0x7FC0 for
// them, which a caller that may see them substitutes first (the mix
// kernel does).
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> BFloat16RoundedBits(
    DF df, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du;
  const auto bits = hn::BitCast(du, v);
  const auto lsb = hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 1u));
  return hn::Add(bits, hn::Add(lsb, hn::Set(du, 0x7FFFu)));
}

// float -> bfloat16 bits, round to nearest even: FloatToBFloat16Bits of
// kernels/formats.h, a vector at a time (Highway 1.0.3's DemoteTo truncates).
template <class DU16, class DF>
HWY_INLINE hn::Vec<DU16> BFloat16BitsOf(DF df, hn::Vec<DF> v) {
  const hn::RebindToSigned<DF> di;
  return hn::DemoteTo(
      DU16(), hn::BitCast(di, hn::ShiftRight<16>(BFloat16RoundedBits(df, v))));
}

// Returns v, kept in a register. AMD Zen 4 runs VCVTPS2PH and VPMOVDW with a
// memory destination several times slower than into a register followed by a
// store, and GCC folds the store into them unless the value must first exist
// in a register (measured on Zen 4, float16 HWC4 hot: 37.5 -> 25.4 us). Costs
// nothing elsewhere: the two forms are the same work.
template <class V>
HWY_INLINE V InRegister(V v) {
#if defined(__GNUC__) && (HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || \
                          HWY_TARGET == HWY_AVX3_DL)
  asm("" : "+v"(v.raw));
#endif
  return v;
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
