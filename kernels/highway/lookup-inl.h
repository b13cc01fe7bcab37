// AVX3_DL (AVX-512 VBMI) only: CHW float16/bfloat16 output by table lookup.
//
// The input is uint8, so each channel's output is one of 256 16-bit values,
// precomputed per op (KernelConstants::bits_lo/bits_hi, by the same formula
// and rounding as the computing path: the same bits). A block of 64 output
// pixels of one plane is made of byte permutes only:
//
// 1. gather: the plane's 64 input bytes out of the block's 64 * kC
//    interleaved bytes (kC loads), in flipped order when flipping, with one or
//    two two-source permutes (VPERMI2B) and a blend;
// 2. look up: each 256-entry byte table is four registers; two VPERMI2B on
//    the low 7 bits of x plus a blend on its top bit give the low bytes, and
//    the same again the high bytes;
// 3. interleave the low and high bytes into 64 16-bit values with the cheap
//    in-lane unpacks (the gather put the bytes in the order that makes this
//    come out in plane order) and store them.
//
// Seven permutes per 64 values of a plane, where computing takes a widening,
// a conversion to float, a multiply, a subtraction and a narrowing per 16
// values, plus the rearrangement.
//
// A per-target part of the Highway kernel: kernels/highway/highway.cc
// includes it once per target (Highway's -inl.h convention), inside no
// namespace; the toggling guard below lets each target's pass through
// foreach_target.h compile it again.

// Per-target include guard.
#if defined(FUSEDNORM_KERNELS_HIGHWAY_LOOKUP_INL_H_) == \
    defined(HWY_TARGET_TOGGLE)
#ifdef FUSEDNORM_KERNELS_HIGHWAY_LOOKUP_INL_H_
#undef FUSEDNORM_KERNELS_HIGHWAY_LOOKUP_INL_H_
#else
#define FUSEDNORM_KERNELS_HIGHWAY_LOOKUP_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "kernels/kernel.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {

#if HWY_TARGET == HWY_AVX3_DL

// The planes of 64-pixel blocks of kC interleaved channels, looked up.
template <int kC>
class PlaneLookup {
 public:
  static constexpr int64_t kBlock = 64;

  PlaneLookup(const KernelConstants& k, bool flip) : k_(&k) {
    for (int c = 0; c < kC; ++c) {
      HWY_ALIGN uint8_t idx[64];
      uint64_t upper = 0;
      for (int i = 0; i < 64; ++i) {
        const int v = ValueAt(i);
        const int p = flip ? 63 - v : v;  // its input pixel
        const int src = p * kC + c;       // its byte in the block
        idx[i] = static_cast<uint8_t>(src & 127);
        if (src >= 128) upper |= uint64_t{1} << i;
      }
      gather_[c] = _mm512_load_si512(idx);
      upper_[c] = upper;
    }
  }

  // Writes the 64 values of each plane c for the block whose input bytes
  // start at `in` (64 * kC bytes) to plane(c); streams where asked and
  // aligned.
  template <class Plane>
  HWY_INLINE void Block(const uint8_t* in, const Plane& plane,
                        bool nontemporal) const {
    const __m512i in0 = _mm512_loadu_si512(in);
    const __m512i in1 = kC > 1 ? _mm512_loadu_si512(in + 64) : in0;
    const __m512i in2 = kC > 2 ? _mm512_loadu_si512(in + 128) : in0;
    const __m512i in3 = kC > 3 ? _mm512_loadu_si512(in + 192) : in0;
    for (int c = 0; c < kC; ++c) {
      __m512i x = _mm512_permutex2var_epi8(in0, gather_[c], in1);
      if (kC > 2) {
        const __m512i upper = _mm512_permutex2var_epi8(in2, gather_[c], in3);
        x = _mm512_mask_blend_epi8(upper_[c], x, upper);
      }
      const __m512i lo = Lookup(k_->bits_lo[c], x);
      const __m512i hi = Lookup(k_->bits_hi[c], x);
      uint16_t* dst = plane(c);
      Put(dst, _mm512_unpacklo_epi8(lo, hi), nontemporal);
      Put(dst + 32, _mm512_unpackhi_epi8(lo, hi), nontemporal);
    }
  }

 private:
  // The output value (0..63) that gathered byte i holds. The bytes are
  // gathered in the order in which the in-lane unpacks that pair the low and
  // high bytes leave the 16-bit values in plane order: unpacklo takes bytes
  // 0-7 of each 16-byte lane, which hold values 8 L .. 8 L + 7 for lane L
  // (values 0..31 in order), and unpackhi bytes 8-15, values 32 + 8 L ...
  static constexpr int ValueAt(int i) {
    return (i % 16 < 8 ? 0 : 32) + 8 * (i / 16) + i % 8;
  }

  // table[x] for each byte x of `x` (a 256-byte table).
  static HWY_INLINE __m512i Lookup(const uint8_t* table, __m512i x) {
    const __m512i t0 = _mm512_load_si512(table);
    const __m512i t1 = _mm512_load_si512(table + 64);
    const __m512i t2 = _mm512_load_si512(table + 128);
    const __m512i t3 = _mm512_load_si512(table + 192);
    const __m512i below = _mm512_permutex2var_epi8(t0, x, t1);
    const __m512i above = _mm512_permutex2var_epi8(t2, x, t3);
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), below, above);
  }

  static HWY_INLINE void Put(uint16_t* p, __m512i v, bool nontemporal) {
    if (nontemporal && reinterpret_cast<uintptr_t>(p) % 64 == 0) {
      _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v);
    } else {
      _mm512_storeu_si512(p, v);
    }
  }

  const KernelConstants* k_;
  __m512i gather_[kC];
  __mmask64 upper_[kC];
};

#endif  // HWY_TARGET == HWY_AVX3_DL

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
