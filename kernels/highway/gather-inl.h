// AVX3_DL (AVX-512 VBMI) only: the input bytes of a block of 64 output
// pixels put into the order the output needs (flipped, padded to 4 channels,
// or split into planes) with two-source byte permutes.
//
// Rearranger (rearrange-inl.h) does this job for every target with 16-byte
// shuffles: per 16 pixels of 3 channels, 9 shuffles and 6 ORs. Here VPERMI2B
// picks each output byte from two 64-byte registers of input, so a block of
// 64 pixels takes one permute per output register (two and a blend when the
// block's input spans more than two registers), and a zeroing move for
// HWC4's pad bytes.
//
// A per-target part of the Highway kernel: kernels/highway/rows.cc
// includes it once per target (Highway's -inl.h convention), inside no
// namespace; the toggling guard below lets each target's pass through
// foreach_target.h compile it again.

// Per-target include guard.
#if defined(FUSEDNORM_KERNELS_HIGHWAY_GATHER_INL_H_) == \
    defined(HWY_TARGET_TOGGLE)
#ifdef FUSEDNORM_KERNELS_HIGHWAY_GATHER_INL_H_
#undef FUSEDNORM_KERNELS_HIGHWAY_GATHER_INL_H_
#else
#define FUSEDNORM_KERNELS_HIGHWAY_GATHER_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {

#if HWY_TARGET == HWY_AVX3_DL

// Output register o of a block: for interleaved layouts bytes [64 o, 64 o + 64)
// of the block's 64 * kStored; for planes (kPlanar) plane o. Byte i of it
// holds channel c of output pixel q of the block, read from input pixel q
// (63 - q when flipped); HWC4's pad bytes are zero. `pixel_at` reorders a
// plane's bytes (Lookup16 wants them in the order its unpacks undo); null
// keeps them in pixel order.
template <int kC, int kStored, bool kPlanar>
class Gather64 {
 public:
  static constexpr int kOut = kPlanar ? kC : kStored;

  Gather64(bool flip, int (*pixel_at)(int) = nullptr) {
    for (int o = 0; o < kOut; ++o) {
      HWY_ALIGN uint8_t idx[64];
      uint64_t upper = 0, keep = 0;
      for (int i = 0; i < 64; ++i) {
        const int v = 64 * o + i;
        int q = kPlanar ? i : v / kStored;
        if (kPlanar && pixel_at != nullptr) q = pixel_at(i);
        const int c = kPlanar ? o : v % kStored;
        const int src = (flip ? 63 - q : q) * kC + (c < kC ? c : 0);
        idx[i] = static_cast<uint8_t>(src & 127);
        if (src >= 128) upper |= uint64_t{1} << i;
        if (c < kC) keep |= uint64_t{1} << i;
      }
      index_[o] = _mm512_load_si512(idx);
      upper_[o] = upper;
      keep_[o] = keep;
    }
  }

  // The block's input: 64 * kC bytes from `in`, in up to four registers.
  struct Block {
    __m512i r0, r1, r2, r3;
  };
  static HWY_INLINE Block Load(const uint8_t* in) {
    Block b;
    b.r0 = _mm512_loadu_si512(in);
    b.r1 = kC > 1 ? _mm512_loadu_si512(in + 64) : b.r0;
    b.r2 = kC > 2 ? _mm512_loadu_si512(in + 128) : b.r0;
    b.r3 = kC > 3 ? _mm512_loadu_si512(in + 192) : b.r0;
    return b;
  }

  // Output register o of the block.
  HWY_INLINE __m512i Out(const Block& b, int o) const {
    __m512i v = _mm512_permutex2var_epi8(b.r0, index_[o], b.r1);
    if (kC > 2) {
      v = _mm512_mask_blend_epi8(
          upper_[o], v, _mm512_permutex2var_epi8(b.r2, index_[o], b.r3));
    }
    if (kStored > kC) v = _mm512_maskz_mov_epi8(keep_[o], v);
    return v;
  }

 private:
  __m512i index_[kOut];
  __mmask64 upper_[kOut];
  __mmask64 keep_[kOut];
};

#endif  // HWY_TARGET == HWY_AVX3_DL

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
