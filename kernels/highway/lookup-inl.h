// AVX3_DL (AVX-512 VBMI) only: CHW and HWC4 float16/bfloat16 output by table
// lookup.
//
// The input is uint8, so each channel's output is one of 256 16-bit values,
// precomputed per op (KernelConstants::bits_lo/bits_hi, by the same formula
// and rounding as the computing path: the same bits). A block of 64 output
// pixels is made of byte permutes only, per channel:
//
// 1. gather: the plane's 64 input bytes out of the block's 64 * kC
//    interleaved bytes (kC loads), in flipped order when flipping, with one or
//    two two-source permutes (VPERMI2B) and a blend (Gather64, gather-inl.h);
// 2. look up: each 256-entry byte table is four registers; two VPERMI2B on
//    the low 7 bits of x plus a blend on its top bit give the low bytes, and
//    the same again the high bytes;
// 3. interleave the low and high bytes into 64 16-bit values with the cheap
//    in-lane unpacks, and for HWC4 the channels' values into pixels with two
//    more levels of them (the gather put the bytes in the order that makes
//    all this come out in output order), and store them.
//
// Seven permutes per 64 values of a plane, where computing takes a widening,
// a conversion to float, a multiply, a subtraction and a narrowing per 16
// values, plus the rearrangement.
//
// A per-target part of the Highway kernel: kernels/highway/rows.cc
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
#include "kernels/highway/gather-inl.h"
#include "kernels/kernel.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {

#if HWY_TARGET == HWY_AVX3_DL

// 64-pixel blocks of kC interleaved input channels, looked up and written as
// CHW planes or as HWC4 pixels (kHwc4).
template <int kC, bool kHwc4>
class Lookup16 {
 public:
  static constexpr int64_t kBlock = 64;
  static constexpr bool kInterleaved = kHwc4;

  Lookup16(const KernelConstants& k, bool flip)
      : k_(&k), gather_(flip, &PixelAt) {}

  // Looks up the block whose input bytes start at `in` (64 * kC bytes). CHW:
  // writes plane c's 64 values to dst(c). HWC4: writes the 64 pixels (4
  // values each, pad lanes zero) to dst(0). Streams where asked and aligned.
  template <class Dst>
  HWY_INLINE void Block(const uint8_t* in, const Dst& dst,
                        bool nontemporal) const {
    const auto block = Gather::Load(in);
    // Per channel, the 16-bit values of the block's two halves.
    __m512i half[2][4];
    for (int c = 0; c < 4; ++c) {
      if (c >= kC) {
        half[0][c] = half[1][c] = _mm512_setzero_si512();
        continue;
      }
      const __m512i x = gather_.Out(block, c);
      const __mmask64 top = _mm512_movepi8_mask(x);
      const __m512i lo = Lookup(k_->bits_lo[c], x, top);
      const __m512i hi = Lookup(k_->bits_hi[c], x, top);
      half[0][c] = _mm512_unpacklo_epi8(lo, hi);
      half[1][c] = _mm512_unpackhi_epi8(lo, hi);
      if (!kHwc4) {
        Put(dst(c), half[0][c], nontemporal);
        Put(dst(c) + 32, half[1][c], nontemporal);
      }
    }
    if (!kHwc4) return;
    for (int h = 0; h < 2; ++h) {
      const __m512i* w = half[h];
      const __m512i p_lo = _mm512_unpacklo_epi16(w[0], w[1]);
      const __m512i p_hi = _mm512_unpackhi_epi16(w[0], w[1]);
      const __m512i q_lo = _mm512_unpacklo_epi16(w[2], w[3]);
      const __m512i q_hi = _mm512_unpackhi_epi16(w[2], w[3]);
      uint16_t* to = dst(0) + 128 * h;
      Put(to, _mm512_unpacklo_epi32(p_lo, q_lo), nontemporal);
      Put(to + 32, _mm512_unpackhi_epi32(p_lo, q_lo), nontemporal);
      Put(to + 64, _mm512_unpacklo_epi32(p_hi, q_hi), nontemporal);
      Put(to + 96, _mm512_unpackhi_epi32(p_hi, q_hi), nontemporal);
    }
  }

 private:
  // The output pixel (0..63) that gathered byte i holds. The bytes are
  // gathered in the order in which Block's in-lane unpacks leave the values
  // in output order. unpacklo_epi8 pairs the low and high bytes 0-7 of each
  // 16-byte lane L into 16-bit values 8 L .. 8 L + 7 of the block's first
  // half, unpackhi_epi8 bytes 8-15 into the second half's.
  static int PixelAt(int i) {
    const int h = i % 16 < 8 ? 0 : 1, j = 8 * (i / 16) + i % 8;
    if (!kHwc4) return 32 * h + j;
    // HWC4: output vector o of half h holds u64 pixels n = 0..7; pixel n
    // takes u32 m of p_lo (o < 2) or p_hi (o >= 2), which takes u16 j of
    // each channel's half. Inverted: j -> (o, n).
    for (int o = 0; o < 4; ++o) {
      for (int n = 0; n < 8; ++n) {
        const int m = 4 * (n / 2) + 2 * (o % 2) + n % 2;
        if (8 * (m / 4) + 4 * (o / 2) + m % 4 == j) return 32 * h + 8 * o + n;
      }
    }
    return -1;  // not reached: every j is taken once
  }

  // table[x] for each byte x of `x` (a 256-byte table); `top` holds the
  // bytes' top bits.
  static HWY_INLINE __m512i Lookup(const uint8_t* table, __m512i x,
                                   __mmask64 top) {
    const __m512i t0 = _mm512_load_si512(table);
    const __m512i t1 = _mm512_load_si512(table + 64);
    const __m512i t2 = _mm512_load_si512(table + 128);
    const __m512i t3 = _mm512_load_si512(table + 192);
    const __m512i below = _mm512_permutex2var_epi8(t0, x, t1);
    const __m512i above = _mm512_permutex2var_epi8(t2, x, t3);
    return _mm512_mask_blend_epi8(top, below, above);
  }

  static HWY_INLINE void Put(uint16_t* p, __m512i v, bool nontemporal) {
    if (nontemporal && reinterpret_cast<uintptr_t>(p) % 64 == 0) {
      _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v);
    } else {
      _mm512_storeu_si512(p, v);
    }
  }

  using Gather = Gather64<kC, kC, true>;

  const KernelConstants* k_;
  Gather gather_;  // the block's planes, in PixelAt's order
};

#endif  // HWY_TARGET == HWY_AVX3_DL

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
