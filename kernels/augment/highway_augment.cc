// The Highway augment rows (highway_augment.h), compiled once per Highway
// target through foreach_target.h; each agrees with the scalar row bit for
// bit.
//
// affine, NEAREST: the fixed-point engine a vector of output pixels at a
// time. A row's 16.16 positions are a2 + x a0 and a5 + x a3 in wrapping
// uint32 lanes (Pillow's int sums, as x86 wraps them), >> 16 as int32;
// lanes inside the input gather their pixel as a 4-byte word at its byte
// offset, and a word that would reach past the input's last byte is read
// ending at it and shifted down instead; lanes outside keep the output's
// bytes; a row's last partial vector runs the scalar span. The scale
// engine (no rotation or shear) copies a row's run of columns as one
// memcpy where its columns are consecutive (translations), else by the
// same gathers. The engine choice, the coefficients, the column table and
// the row loop are the scalar row's (scalar_augment.h). The double engine
// (outside 16.16's range) runs the scalar row's code, as does every LA
// (2-channel) image.
//
// affine, BILINEAR and BICUBIC: a pixel per double lane. A row's positions
// are monotonic in x (each rounding is), so its pixels that have an input
// pixel are one run, found from a few positions computed one at a time;
// the run goes in vectors, the last one ending at the run's end (over the
// one before), each vector's input fetched while the one before is
// interpolated; a run shorter than a vector runs the scalar span. The
// positions, FLOOR, the fractions and the filters' sums are Pillow's
// double operations in its order (no FMA). Input pixels are read as 64-bit
// words (gathered: on AVX2 and AVX-512 into zeroed registers), a word that
// would reach past the input's end read ending at its last byte and
// shifted down: one word holds bilinear_filter's two pixels of a row, two
// words (one with one channel) bicubic_filter's four. A pixel byte becomes
// the double 2^52 + byte, so that Pillow's int differences are exact
// differences of such doubles. At BILINEAR's edges (x = -1 or width - 1,
// where XCLIP makes its two pixels one; y = -1 or height - 1, where v2 is
// v1's row) the fraction is made 0, which gives Pillow's value whatever
// the second pixel; vectors inside a row's interior skip that rule, and
// with a3 = 0 a row's y is split once. BICUBIC clamps its taps' columns
// and rows and picks each tap's byte per lane. The byte values are
// truncated, on AVX-512 by adds rounding toward zero. Matrices whose
// positions could overflow (and be NaN, which Pillow's check lets
// through) run the scalar row's code, as do BILINEAR on NEON and of one
// channel on SSSE3 (no hardware gather or double floor: slower there) and
// BICUBIC off x86.
//
// sharpen: float lanes, one byte per lane; SMOOTH's sums in Filter.c's order
// (rows below, at and above; each left to right), multiplies and adds kept
// apart (no FMA: the project compiles with -ffp-contract=off and calls no
// fused operation), clip8 as a clamp and a truncation, and Blend.c's d +
// alpha * (x - d) clamped and truncated, as the colour kernels compute it.
// A row's last partial vector runs on copies of its bytes in a padded
// buffer.
//
// lookup: on AVX3_DL each channel's 256-byte table is four registers that
// VBMI permutes index 64 bytes at a time; elsewhere the scalar row's loop.
// histogram: several sub-histograms, so that runs of equal values do not
// wait on one counter.
//
// The SCALAR target runs the scalar row.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/augment/highway_augment.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/augment/augment_kernel.h"
#include "kernels/augment/highway_augment.h"
#include "kernels/augment/scalar_augment.h"
#include "kernels/highway/target_rows.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Counts kC-channel pixels into kSubs sub-histograms of each channel, in
// turn, so that equal values in a row of pixels do not wait on one counter.
template <int kC, int kSubs>
void CountInto(const uint8_t* in, int64_t pixels, uint32_t* subs) {
  int64_t i = 0;
  for (; i + kSubs <= pixels; i += kSubs, in += kSubs * kC) {
    for (int s = 0; s < kSubs; ++s) {
      for (int c = 0; c < kC; ++c) ++subs[(s * kC + c) * 256 + in[s * kC + c]];
    }
  }
  for (; i < pixels; ++i, in += kC) {
    for (int c = 0; c < kC; ++c) ++subs[c * 256 + in[c]];
  }
}

template <int kC, int kSubs>
void HistogramOf(const uint8_t* in, int64_t pixels, uint32_t* hist) {
  uint32_t subs[kSubs * kC * 256] = {};
  CountInto<kC, kSubs>(in, pixels, subs);
  for (int s = 0; s < kSubs; ++s) {
    for (int k = 0; k < kC * 256; ++k) hist[k] += subs[s * kC * 256 + k];
  }
}

void Histogram(const uint8_t* in, int64_t pixels, int channels,
               uint32_t* hist) {
  if (channels == 1) {
    HistogramOf<1, 4>(in, pixels, hist);
  } else if (channels == 3) {
    HistogramOf<3, 2>(in, pixels, hist);
  } else {
    HistogramOf<4, 2>(in, pixels, hist);
  }
}

#if HWY_TARGET != HWY_SCALAR

// Output pixels in uint32 lanes, one pixel's bytes in the low bytes of a
// lane: a full vector of them (the nearest engines), or as many as a
// vector has double lanes (bilinear).
using DU = hn::ScalableTag<uint32_t>;
using DI = hn::RebindToSigned<DU>;
using VU = hn::Vec<DU>;
using MU = hn::Mask<DU>;

// The pixels at byte `offsets` of `base` in the low bytes of the lanes. No
// word read starts past `last` (the input's size - 4): an offset past it
// reads the word ending at the input's last byte and shifts it down.
template <class D>
HWY_INLINE hn::Vec<D> GatherPixels(D d, const uint8_t* base, hn::Vec<D> offsets,
                                   hn::Vec<D> last) {
  const hn::RebindToSigned<D> di;
  const hn::Vec<D> at = hn::Min(offsets, last);
  const hn::Vec<D> words = hn::BitCast(
      d, hn::GatherOffset(di, reinterpret_cast<const int32_t*>(base),
                          hn::BitCast(di, at)));
  return hn::Shr(words, hn::ShiftLeft<3>(hn::Sub(offsets, at)));
}

// The low byte of each lane. (Not TruncateTo: Highway 1.0.3's AVX3_DL
// version of it permutes 32-bit lanes instead of bytes.)
template <class D>
HWY_INLINE hn::Vec<hn::Rebind<uint8_t, D>> LowBytes(D d, hn::Vec<D> v) {
  return hn::DemoteTo(
      hn::Rebind<uint8_t, D>(),
      hn::BitCast(hn::RebindToSigned<D>(), hn::And(v, hn::Set(d, 0xFF))));
}

// Byte lanes of a uint32 lane mask.
template <class D>
HWY_INLINE hn::Mask<hn::Rebind<uint8_t, D>> ByteMask(D d, hn::Mask<D> m) {
  return hn::MaskFromVec(LowBytes(d, hn::VecFromMask(d, m)));
}

// Stores the kC-byte pixels of `px` at `out`, only the lanes of `valid`
// (every lane when `all`).
template <int kC, class D>
HWY_INLINE void StorePixels(D d, hn::Vec<D> px, hn::Mask<D> valid, bool all,
                            uint8_t* out) {
  const hn::Rebind<uint8_t, D> db;
  if constexpr (kC == 4) {
    uint32_t* words = reinterpret_cast<uint32_t*>(out);
    if (!all) px = hn::IfThenElse(valid, px, hn::LoadU(d, words));
    hn::StoreU(px, d, words);
  } else if constexpr (kC == 1) {
    auto bytes = LowBytes(d, px);
    if (!all) {
      bytes = hn::IfThenElse(ByteMask(d, valid), bytes, hn::LoadU(db, out));
    }
    hn::StoreU(bytes, db, out);
  } else {
    auto r = LowBytes(d, px);
    auto g = LowBytes(d, hn::ShiftRight<8>(px));
    auto b = LowBytes(d, hn::ShiftRight<16>(px));
    if (!all) {
      hn::Vec<decltype(db)> r0, g0, b0;
      hn::LoadInterleaved3(db, out, r0, g0, b0);
      const auto m = ByteMask(d, valid);
      r = hn::IfThenElse(m, r, r0);
      g = hn::IfThenElse(m, g, g0);
      b = hn::IfThenElse(m, b, b0);
    }
    hn::StoreInterleaved3(r, g, b, db, out);
  }
}

// The input's bytes, when the gathers' int32 offsets reach all of them and
// a word fits in them; else 0 (the scalar code runs).
int64_t GatherableBytes(const AugmentInput& in) {
  const int64_t bytes =
      (in.height - 1) * in.row_stride + in.width * in.channels;
  return bytes >= 4 && bytes <= INT32_MAX ? bytes : 0;
}

// affine_fixed's row y: whole vectors here, the rest by the scalar span.
template <int kC>
void FixedRow(const AugmentInput& in, const FixedAffine& f, int64_t y,
              int64_t out_width, int64_t in_bytes, uint8_t* out_row) {
  const DU du;
  const DI di;
  const int64_t N = static_cast<int64_t>(hn::Lanes(du));
  const uint32_t yq = static_cast<uint32_t>(y);
  const VU lane = hn::Iota(du, 0);
  VU xx =
      hn::Add(hn::Set(du, f.a2 + yq * f.a1), hn::Mul(lane, hn::Set(du, f.a0)));
  VU yy =
      hn::Add(hn::Set(du, f.a5 + yq * f.a4), hn::Mul(lane, hn::Set(du, f.a3)));
  const VU step_x = hn::Set(du, static_cast<uint32_t>(N) * f.a0);
  const VU step_y = hn::Set(du, static_cast<uint32_t>(N) * f.a3);
  // Positions >> 16 lie in [-32768, 32767]: the bounds compare unsigned.
  const VU width =
      hn::Set(du, static_cast<uint32_t>(std::min<int64_t>(in.width, 32768)));
  const VU height =
      hn::Set(du, static_cast<uint32_t>(std::min<int64_t>(in.height, 32768)));
  const VU stride = hn::Set(du, static_cast<uint32_t>(in.row_stride));
  const VU last = hn::Set(du, static_cast<uint32_t>(in_bytes - 4));
  int64_t x = 0;
  for (; x + N <= out_width;
       x += N, xx = hn::Add(xx, step_x), yy = hn::Add(yy, step_y)) {
    const VU xin = hn::BitCast(du, hn::ShiftRight<16>(hn::BitCast(di, xx)));
    const VU yin = hn::BitCast(du, hn::ShiftRight<16>(hn::BitCast(di, yy)));
    const MU valid = hn::And(hn::Lt(xin, width), hn::Lt(yin, height));
    if (hn::AllFalse(du, valid)) continue;
    const VU offsets = hn::IfThenElseZero(
        valid, hn::Add(hn::Mul(yin, stride), hn::Mul(xin, hn::Set(du, kC))));
    StorePixels<kC>(du, GatherPixels(du, in.pixels, offsets, last), valid,
                    hn::AllTrue(du, valid), out_row + x * kC);
  }
  ScalarFixedAffineSpan(in, f, y, x, out_width, out_row);
}

template <int kC>
void FixedEngine(const AugmentInput& in, const double a[6], uint8_t* out,
                 int64_t out_height, int64_t out_width, int64_t in_bytes) {
  const FixedAffine f = MakeFixedAffine(a);
  for (int64_t y = 0; y < out_height; ++y) {
    FixedRow<kC>(in, f, y, out_width, in_bytes, out + y * out_width * kC);
  }
}

// A scale-engine run: one copy when its columns are consecutive, else
// gathers through the column table (the tail pixel by pixel).
template <int kC>
void ScaleRun(const uint8_t* in_row, int64_t readable, const int32_t* xin,
              int64_t count, bool consecutive, int, uint8_t* out) {
  if (consecutive) {
    std::memcpy(out, in_row + int64_t{xin[0]} * kC, count * kC);
    return;
  }
  const DU du;
  const DI di;
  const int64_t N = static_cast<int64_t>(hn::Lanes(du));
  int64_t i = 0;
  if (readable >= 4) {
    const VU last = hn::Set(
        du, static_cast<uint32_t>(std::min<int64_t>(readable, INT32_MAX) - 4));
    for (; i + N <= count; i += N) {
      const VU offsets =
          hn::BitCast(du, hn::Mul(hn::LoadU(di, xin + i), hn::Set(di, kC)));
      StorePixels<kC>(du, GatherPixels(du, in_row, offsets, last),
                      hn::FirstN(du, N), true, out + i * kC);
    }
  }
  for (; i < count; ++i) {
    std::memcpy(out + i * kC, in_row + int64_t{xin[i]} * kC, kC);
  }
}

// The x86 targets (SSSE3 to AVX3_DL), whose vectors are SSE and AVX
// registers.
#ifndef FUSEDNORM_X86_TARGET
#define FUSEDNORM_X86_TARGET (HWY_TARGET <= HWY_SSSE3)
#endif

// The interpolating filters (BILINEAR, BICUBIC): a pixel per double lane.
// Input pixels are read as 64-bit words, each holding a run of adjacent
// pixels; a byte of a word becomes the double 2^52 + byte (the byte put
// into 2^52's mantissa), so that differences of pixels are exact.
using DD = hn::ScalableTag<double>;
using DQ = hn::RebindToUnsigned<DD>;
using DQI = hn::RebindToSigned<DD>;
using DW = hn::Rebind<uint32_t, DD>;
using DWI = hn::RebindToSigned<DW>;
using VD = hn::Vec<DD>;
using VQ = hn::Vec<DQ>;
using VW = hn::Vec<DW>;
using VWI = hn::Vec<DWI>;

// An integer n in [0, 2^52) plus 2^52 is exact, with n in the low bits.
constexpr double kTwo52 = 4503599627370496.0;
constexpr uint64_t kTwo52Bits = 0x4330000000000000;

#if FUSEDNORM_X86_TARGET
// With fewer than four channels no pixel reads bytes 6 and 7 of a word:
// they take 2^52's top bytes, and a byte selected with them is 2^52 + byte
// without an OR.
template <int kC>
HWY_INLINE VQ PrepareWords(VQ words) {
  const DQ dq;
  if constexpr (kC == 4) return words;
  return hn::OrAnd(hn::Set(dq, kTwo52Bits), words,
                   hn::Set(dq, 0x0000FFFFFFFFFFFFull));
}

// A selector of byte `index` (< 8, per lane) of each lane's word: byte
// shuffle indices that move it to the lane's low byte and zero the rest
// (keep bytes 6 and 7, PrepareWords').
template <int kC>
HWY_INLINE VQ ByteSelector(VQ index) {
  const DQ dq;
  const VQ lane_in_block = hn::Mul(hn::And(hn::Iota(dq, 0), hn::Set(dq, 1)),
                                   hn::Set(dq, 0x0808080808080808ull));
  const uint64_t rest = kC == 4 ? 0x8080808080808000ull : 0x0706808080808000ull;
  return hn::Add(hn::Or(index, hn::Set(dq, rest)), lane_in_block);
}

// The selector of the byte kB further on.
template <int kB>
HWY_INLINE VQ ByteFurther(VQ selector) {
  return hn::Add(selector, hn::Set(DQ(), kB));
}

// The selected byte b of each lane's word as the double 2^52 + b.
template <int kC>
HWY_INLINE VD ByteValue(VQ words, VQ selector) {
  const DQ dq;
  const VQ bytes = hn::TableLookupBytesOr0(words, selector);
  if constexpr (kC == 4) {
    return hn::BitCast(DD(), hn::Or(bytes, hn::Set(dq, kTwo52Bits)));
  }
  return hn::BitCast(DD(), bytes);
}
#else  // a selector is a shift count
template <int kC>
HWY_INLINE VQ PrepareWords(VQ words) {
  return words;
}

template <int kC>
HWY_INLINE VQ ByteSelector(VQ index) {
  return hn::ShiftLeft<3>(index);
}

template <int kB>
HWY_INLINE VQ ByteFurther(VQ selector) {
  return hn::Add(selector, hn::Set(DQ(), 8 * kB));
}

template <int kC>
HWY_INLINE VD ByteValue(VQ words, VQ selector) {
  const DQ dq;
  return hn::BitCast(
      DD(), hn::OrAnd(hn::Set(dq, kTwo52Bits), hn::Shr(words, selector),
                      hn::Set(dq, 0xFF)));
}
#endif

// The selector of the constant byte kIndex of every lane's word.
template <int kC, int kIndex>
HWY_INLINE VQ ByteAt() {
  return ByteSelector<kC>(hn::Set(DQ(), kIndex));
}

// Byte kIndex of each lane's word as the double 2^52 + byte.
template <int kC, int kIndex>
HWY_INLINE VD ByteValueAt(VQ words) {
  return ByteValue<kC>(words, ByteAt<kC, kIndex>());
}

#if HWY_TARGET <= HWY_AVX3
// A value v in [0, 255] plus 2^(52 - 8 kB), rounded toward zero, has its
// truncation in byte kB of its bits (the fraction below).
template <int kB>
HWY_INLINE __m512i TruncatedInByte(VD v) {
  constexpr double kScale = static_cast<double>(1ull << (52 - 8 * kB));
  return _mm512_castpd_si512(_mm512_add_round_pd(
      v.raw, _mm512_set1_pd(kScale), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
}

// Bytes kB of `from`, the others of `to`.
template <int kB>
HWY_INLINE __m512i WithByte(__m512i from, __m512i to) {
  const __m512i mask = _mm512_set1_epi64(int64_t{0xFF} << (8 * kB));
  return _mm512_ternarylogic_epi64(mask, from, to, 0xCA);
}

// The values of bands 0 .. kC - 1 (each in [0, 255]) truncated, in bytes
// 0 .. kC - 1 of each lane's word.
template <int kC>
HWY_INLINE VW PixelWords(VD v0, VD v1, VD v2, VD v3) {
  __m512i px = TruncatedInByte<0>(v0);
  if constexpr (kC > 1) {
    px = WithByte<1>(TruncatedInByte<1>(v1), px);
    px = WithByte<2>(TruncatedInByte<2>(v2), px);
  }
  if constexpr (kC == 4) px = WithByte<3>(TruncatedInByte<3>(v3), px);
  return VW{_mm512_cvtepi64_epi32(px)};
}
#else
// C's (int)v of values in int's range (on x86 without Highway's clamp).
HWY_INLINE VWI Truncate(VD v) {
#if HWY_TARGET == HWY_AVX2
  return VWI{_mm256_cvttpd_epi32(v.raw)};
#elif FUSEDNORM_X86_TARGET
  return VWI{_mm_cvttpd_epi32(v.raw)};
#else
  return hn::DemoteTo(DWI(), v);
#endif
}

// A value v in [0, 255] truncated, in byte kB of a word lane.
template <int kB>
HWY_INLINE VW ByteLane(VD v) {
  return hn::ShiftLeft<8 * kB>(hn::BitCast(DW(), Truncate(v)));
}

// The values of bands 0 .. kC - 1 (each in [0, 255]) truncated, in bytes
// 0 .. kC - 1 of each lane's word.
template <int kC>
HWY_INLINE VW PixelWords(VD v0, VD v1, VD v2, VD v3) {
  VW px = ByteLane<0>(v0);
  if constexpr (kC > 1) {
    px = hn::Or(px, hn::Or(ByteLane<1>(v1), ByteLane<2>(v2)));
  }
  if constexpr (kC == 4) px = hn::Or(px, ByteLane<3>(v3));
  return px;
}
#endif

// The input as the filters read it.
struct WordSource {
  const uint8_t* pixels;
  uint64_t width, height;
  uint32_t stride;  // 0 for a one-row input (whose stride may be any)
  uint64_t last;    // the input's size - 8: the last offset of a whole word
};

// The 8-byte words at byte `offsets` of `pixels`. (On AVX2 and AVX-512 into
// a register zeroed just before: a gather merges into its destination, and
// with the register the compiler picks, often the last gather's, each
// gather would wait for the one before. The empty asm keeps the zeroing,
// which the compiler would drop as the mask takes every lane.)
HWY_INLINE VQ GatherAt(const uint8_t* pixels, VQ offsets) {
#if HWY_TARGET <= HWY_AVX3
  __m512i words = _mm512_setzero_si512();
  asm volatile("" : "+v"(words));
  return VQ{_mm512_mask_i64gather_epi64(words, 0xFF, offsets.raw, pixels, 1)};
#elif HWY_TARGET == HWY_AVX2
  __m256i words = _mm256_setzero_si256();
  asm volatile("" : "+x"(words));
  return VQ{_mm256_mask_i64gather_epi64(
      words, reinterpret_cast<const long long*>(pixels), offsets.raw,
      _mm256_set1_epi64x(-1), 1)};
#else
  const DQI dqi;
  return hn::BitCast(
      DQ(), hn::GatherOffset(dqi, reinterpret_cast<const int64_t*>(pixels),
                             hn::BitCast(dqi, offsets)));
#endif
}

// The 8-byte words at byte `offsets` of the input. With `near_end` (some
// offset may be past s.last), a word that would reach past the input's
// last byte is read ending at it and shifted down (a word wholly past it,
// whose bytes a filter multiplies by 0, is any bytes of the input).
HWY_INLINE VQ GatherWords(const WordSource& s, VQ offsets, bool near_end) {
  const DQ dq;
  if (!near_end) return GatherAt(s.pixels, offsets);
  const VQ at = hn::Min(offsets, hn::Set(dq, s.last));
  const VQ shift = hn::Min(hn::Sub(offsets, at), hn::Set(dq, 7));
  return hn::Shr(GatherAt(s.pixels, at), hn::ShiftLeft<3>(shift));
}

// The low byte of each word lane.
HWY_INLINE hn::Vec<hn::Rebind<uint8_t, DD>> LowBytesOf(VW v) {
  return LowBytes(DW(), v);
}

// Bytes StorePacked<kC> may write past its pixels.
constexpr int64_t PackSlack(int channels) { return channels == 3 ? 4 : 0; }

// Stores the vector's pixels, kC bytes in the low bytes of each lane of px,
// at `out`; with three channels the PackSlack(3) bytes after them may be
// written too.
template <int kC>
HWY_INLINE void StorePacked(VW px, uint8_t* out) {
  const DW dw;
  const hn::Rebind<uint8_t, DD> db;
  if constexpr (kC == 4) {
    hn::StoreU(px, dw, reinterpret_cast<uint32_t*>(out));
  } else if constexpr (kC == 1) {
    hn::StoreU(LowBytesOf(px), db, out);
  } else {
#if FUSEDNORM_X86_TARGET
    // Each 16-byte block's four pixels (two on SSE4) as 12 (6) bytes.
    const hn::Repartition<uint8_t, DW> d8;
    alignas(16) static constexpr uint8_t kPack[16] = {
        0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 0x80, 0x80, 0x80, 0x80};
    const auto pack = hn::LoadDup128(d8, kPack);
    const auto bytes = hn::TableLookupBytes(hn::BitCast(d8, px), pack);
#if HWY_TARGET <= HWY_AVX3
    const hn::Full128<uint8_t> d16;
    hn::StoreU(hn::LowerHalf(d16, bytes), d16, out);
    hn::StoreU(hn::UpperHalf(d16, bytes), d16, out + 12);
#else
    hn::StoreU(bytes, d8, out);
#endif
#else
    hn::StoreInterleaved3(LowBytesOf(px), LowBytesOf(hn::ShiftRight<8>(px)),
                          LowBytesOf(hn::ShiftRight<16>(px)), db, out);
#endif
  }
}

// BILINEAR of Geometry.c on two pixels given as 2^52 + a, 2^52 + b:
// a + (b - a) d, b - a exact as the difference.
HWY_INLINE VD Lerp(VD a_biased, VD b_biased, VD d) {
  const VD a = hn::Sub(a_biased, hn::Set(DD(), kTwo52));
  return hn::Add(a, hn::Mul(hn::Sub(b_biased, a_biased), d));
}

// bilinear_filter's band kB from the words of its two rows (each holding
// its two pixels).
template <int kC, int kB>
HWY_INLINE VD BilinearBand(VQ w0, VQ w1, VD dx, VD dy) {
  if constexpr (kB >= kC) return dx;  // no such band
  const VD v1 = Lerp(ByteValueAt<kC, kB>(w0), ByteValueAt<kC, kC + kB>(w0), dx);
  const VD v2 = Lerp(ByteValueAt<kC, kB>(w1), ByteValueAt<kC, kC + kB>(w1), dx);
  return hn::Add(v1, hn::Mul(hn::Sub(v2, v1), dy));
}

// Integral doubles in (-2^51, 2^51) as integers.
HWY_INLINE hn::Vec<DQI> ToInt64(VD n) {
  const DQI dqi;
  constexpr double kBias = 6755399441055744.0;  // 2^52 + 2^51
  return hn::Sub(hn::BitCast(dqi, hn::Add(n, hn::Set(DD(), kBias))),
                 hn::BitCast(dqi, hn::Set(DD(), kBias)));
}

// Non-negative integers below 2^32 times `factor`.
HWY_INLINE VQ Times(hn::Vec<DQI> v, uint32_t factor) {
  const hn::Repartition<uint32_t, DQ> d32;
  return hn::MulEven(hn::BitCast(d32, v), hn::Set(d32, factor));
}

// FLOOR of coordinates v less 0.5 as integers i (in [-1, size - 1] where
// v is inside), and the fractions d. Unless kInterior (every i in
// [0, size - 2]), i is clamped to 0 and, at the edges (i = -1 or size - 1)
// where Pillow's two pixels (rows) are one, d is made 0: then a lerp gives
// the first's value whatever the second's (bytes to the right, the row
// below, or any of the input).
template <bool kInterior>
HWY_INLINE void SplitCoordinates(VD v, uint64_t size, hn::Vec<DQI>& i, VD& d) {
  const DD dd;
  const DQI dqi;
  const VD vs = hn::Sub(v, hn::Set(dd, 0.5));
  const VD f = hn::Floor(vs);
  i = ToInt64(f);
  d = hn::Sub(vs, f);
  if constexpr (!kInterior) {
    const auto edge =
        hn::Or(hn::Eq(i, hn::Set(dqi, -1)),
               hn::Gt(i, hn::Set(dqi, static_cast<int64_t>(size) - 2)));
    d = hn::IfThenZeroElse(hn::RebindMask(dd, edge), d);
    i = hn::Max(i, hn::Zero(dqi));
  }
}

// bilinear_filter's words at columns ix of rows iy (SplitCoordinates'),
// every lane's inside the input: Pillow's pixels XCLIP(x), XCLIP(x + 1) of
// rows YCLIP(y) and y + 1 (where inside; else v2 = v1) are one word per
// row, w0 and w1.
template <int kC>
HWY_INLINE void BilinearWords(const WordSource& s, hn::Vec<DQI> ix,
                              hn::Vec<DQI> iy, VQ& w0, VQ& w1) {
  const DQ dq;
  const VQ at0 = hn::Add(Times(iy, s.stride), Times(ix, kC));
  const VQ at1 = hn::Add(at0, hn::Set(dq, s.stride));
  const bool near_end = !hn::AllFalse(dq, hn::Gt(at1, hn::Set(dq, s.last)));
  w0 = PrepareWords<kC>(GatherWords(s, at0, near_end));
  w1 = PrepareWords<kC>(GatherWords(s, at1, near_end));
}

// bilinear_filter's pixels from BilinearFetch's words and fractions.
template <int kC>
HWY_INLINE VW BilinearPixels(VQ w0, VQ w1, VD dx, VD dy) {
  return PixelWords<kC>(
      BilinearBand<kC, 0>(w0, w1, dx, dy), BilinearBand<kC, 1>(w0, w1, dx, dy),
      BilinearBand<kC, 2>(w0, w1, dx, dy), BilinearBand<kC, 3>(w0, w1, dx, dy));
}

// BICUBIC of Geometry.c on a row's four pixels given as 2^52 + v: Pillow's
// p1 = v2, p2 = -v1 + v3, p3 = 2 (v1 - v2) + v3 - v4, p4 = -v1 + v2 - v3 +
// v4 are ints, exact here from differences (p3 as -q: p3 + d p4 is
// d p4 - q), then p1 + d (p2 + d (p3 + d p4)).
HWY_INLINE VD CubicOfBytes(VD v1, VD v2, VD v3, VD v4, VD d) {
  const VD d21 = hn::Sub(v2, v1);
  const VD p1 = hn::Sub(v2, hn::Set(DD(), kTwo52));
  const VD p2 = hn::Sub(v3, v1);
  const VD p4 = hn::Add(d21, hn::Sub(v4, v3));
  const VD q = hn::Add(d21, p4);
  const VD inner = hn::Sub(hn::Mul(d, p4), q);
  return hn::Add(p1, hn::Mul(d, hn::Add(p2, hn::Mul(d, inner))));
}

// BICUBIC on doubles, each sum in Pillow's order (-v1 + v3 is v3 - v1).
HWY_INLINE VD CubicOfDoubles(VD v1, VD v2, VD v3, VD v4, VD d) {
  const VD t = hn::Sub(v1, v2);
  const VD p2 = hn::Sub(v3, v1);
  const VD p3 = hn::Sub(hn::Add(hn::Add(t, t), v3), v4);
  const VD p4 = hn::Add(hn::Sub(hn::Sub(v2, v1), v3), v4);
  return hn::Add(
      v2, hn::Mul(d, hn::Add(p2, hn::Mul(d, hn::Add(p3, hn::Mul(d, p4))))));
}

// A row's cubic of band kB: taps XCLIP(x - 1 .. x + 2) at selectors s0, s1
// of words wa and s2, s3 of words wb.
template <int kC, int kB>
HWY_INLINE VD CubicRow(VQ wa, VQ wb, VQ s0, VQ s1, VQ s2, VQ s3, VD dx) {
  return CubicOfBytes(ByteValue<kC>(wa, ByteFurther<kB>(s0)),
                      ByteValue<kC>(wa, ByteFurther<kB>(s1)),
                      ByteValue<kC>(wb, ByteFurther<kB>(s2)),
                      ByteValue<kC>(wb, ByteFurther<kB>(s3)), dx);
}

// bicubic_filter's band kB from four rows' words: values <= 0 are 0, >= 255
// are 255 (others are truncated when stored).
template <int kC, int kB>
HWY_INLINE VD BicubicBand(VQ a0, VQ b0, VQ a1, VQ b1, VQ a2, VQ b2, VQ a3,
                          VQ b3, VQ s0, VQ s1, VQ s2, VQ s3, VD dx, VD dy) {
  if constexpr (kB >= kC) return dx;  // no such band
  const DD dd;
  const VD v1 = CubicRow<kC, kB>(a0, b0, s0, s1, s2, s3, dx);
  const VD v2 = CubicRow<kC, kB>(a1, b1, s0, s1, s2, s3, dx);
  const VD v3 = CubicRow<kC, kB>(a2, b2, s0, s1, s2, s3, dx);
  const VD v4 = CubicRow<kC, kB>(a3, b3, s0, s1, s2, s3, dx);
  const VD r = CubicOfDoubles(v1, v2, v3, v4, dy);
  return hn::Min(hn::Max(r, hn::Zero(dd)), hn::Set(dd, 255.0));
}

// The clamp of integers v to [0, hi].
HWY_INLINE hn::Vec<DQI> Clamp(hn::Vec<DQI> v, uint64_t hi) {
  const DQI dqi;
  return hn::Min(hn::Max(v, hn::Zero(dqi)),
                 hn::Set(dqi, static_cast<int64_t>(hi)));
}

// kC times integers in [0, 8).
template <int kC>
HWY_INLINE VQ TimesChannels(hn::Vec<DQI> v) {
  const VQ u = hn::BitCast(DQ(), v);
  if constexpr (kC == 1) return u;
  if constexpr (kC == 3) return hn::Add(hn::Add(u, u), u);
  return hn::ShiftLeft<2>(u);
}

// The byte offsets of tap row k (0 .. 3), YCLIP(y - 1 + k): Pillow's rule
// for rows outside (v2 = v1, v3 = v2, v4 = v3) reads the clamped row.
HWY_INLINE VQ CubicRowOffset(const WordSource& s, hn::Vec<DQI> iy, int k) {
  return Times(Clamp(hn::Add(iy, hn::Set(DQI(), k - 1)), s.height - 1),
               s.stride);
}

// bicubic_filter's words, selectors and fractions at positions (xx, yy),
// every lane's inside the input. The taps XCLIP(x - 1 .. x + 2) are runs of
// adjacent or repeated pixels: with one channel one word from XCLIP(x - 1)
// holds all four; else words a hold the first two and words b the last
// two, at bytes chosen per lane (s1 .. s3; the first's is byte 0). Row k's
// words are a_k and b_k.
template <int kC>
HWY_INLINE void BicubicFetch(const WordSource& s, VD xx, VD yy, VQ& a0, VQ& b0,
                             VQ& a1, VQ& b1, VQ& a2, VQ& b2, VQ& a3, VQ& b3,
                             VQ& s1, VQ& s2, VQ& s3, VD& dx, VD& dy) {
  const DD dd;
  const DQI dqi;
  const VD half = hn::Set(dd, 0.5);
  const VD xs = hn::Sub(xx, half), ys = hn::Sub(yy, half);
  const VD fx = hn::Floor(xs), fy = hn::Floor(ys);
  dx = hn::Sub(xs, fx);
  dy = hn::Sub(ys, fy);
  const auto ix = ToInt64(fx), iy = ToInt64(fy);
  const auto one = hn::Set(dqi, 1);
  const auto t0 = Clamp(hn::Sub(ix, one), s.width - 1);
  const auto t1 = Clamp(ix, s.width - 1);
  const auto t2 = Clamp(hn::Add(ix, one), s.width - 1);
  const auto t3 = Clamp(hn::Add(ix, hn::Set(dqi, 2)), s.width - 1);
  const auto tb = kC == 1 ? t0 : t2;  // the first tap of words b
  s1 = ByteSelector<kC>(TimesChannels<kC>(hn::Sub(t1, t0)));
  s2 = ByteSelector<kC>(TimesChannels<kC>(hn::Sub(t2, tb)));
  s3 = ByteSelector<kC>(TimesChannels<kC>(hn::Sub(t3, tb)));
  const VQ ca = Times(t0, kC), cb = Times(tb, kC);
  const VQ r0 = CubicRowOffset(s, iy, 0), r1 = CubicRowOffset(s, iy, 1);
  const VQ r2 = CubicRowOffset(s, iy, 2), r3 = CubicRowOffset(s, iy, 3);
  const bool near_end =
      !hn::AllFalse(DQ(), hn::Gt(hn::Add(r3, cb), hn::Set(DQ(), s.last)));
  a0 = PrepareWords<kC>(GatherWords(s, hn::Add(r0, ca), near_end));
  a1 = PrepareWords<kC>(GatherWords(s, hn::Add(r1, ca), near_end));
  a2 = PrepareWords<kC>(GatherWords(s, hn::Add(r2, ca), near_end));
  a3 = PrepareWords<kC>(GatherWords(s, hn::Add(r3, ca), near_end));
  if constexpr (kC > 1) {
    b0 = PrepareWords<kC>(GatherWords(s, hn::Add(r0, cb), near_end));
    b1 = PrepareWords<kC>(GatherWords(s, hn::Add(r1, cb), near_end));
    b2 = PrepareWords<kC>(GatherWords(s, hn::Add(r2, cb), near_end));
    b3 = PrepareWords<kC>(GatherWords(s, hn::Add(r3, cb), near_end));
  } else {
    b0 = a0;
    b1 = a1;
    b2 = a2;
    b3 = a3;
  }
}

// bicubic_filter's pixels from BicubicFetch's words, selectors and
// fractions.
template <int kC>
HWY_INLINE VW BicubicPixels(VQ a0, VQ b0, VQ a1, VQ b1, VQ a2, VQ b2, VQ a3,
                            VQ b3, VQ s1, VQ s2, VQ s3, VD dx, VD dy) {
  const VQ s0 = ByteAt<kC, 0>();
  return PixelWords<kC>(BicubicBand<kC, 0>(a0, b0, a1, b1, a2, b2, a3, b3, s0,
                                           s1, s2, s3, dx, dy),
                        BicubicBand<kC, 1>(a0, b0, a1, b1, a2, b2, a3, b3, s0,
                                           s1, s2, s3, dx, dy),
                        BicubicBand<kC, 2>(a0, b0, a1, b1, a2, b2, a3, b3, s0,
                                           s1, s2, s3, dx, dy),
                        BicubicBand<kC, 3>(a0, b0, a1, b1, a2, b2, a3, b3, s0,
                                           s1, s2, s3, dx, dy));
}

// affine_transform's coordinate c0 (x + 0.5) + c1 + c2 of output column x,
// c1 being a1 (y + 0.5) or a4 (y + 0.5), with Pillow's roundings.
inline double Coordinate(double c0, double c1, double c2, int64_t x) {
  return c0 * (static_cast<double>(x) + 0.5) + c1 + c2;
}

// The first x of [lo, hi) where `holds` (false, then true along x), else
// hi: a few probes from `guess` on, then bisection.
template <class Holds>
int64_t FirstWhere(const Holds& holds, int64_t lo, int64_t hi, double guess) {
  int64_t b = lo, e = hi;  // the answer is in [b, e]
  int64_t g =
      guess >= static_cast<double>(lo)
          ? (guess < static_cast<double>(hi) ? static_cast<int64_t>(guess)
                                             : hi - 1)
          : lo;
  for (int probe = 0; probe < 3 && b < e && g >= b && g < e; ++probe) {
    if (holds(g)) {
      e = g--;
    } else {
      b = ++g;
    }
  }
  while (b < e) {
    const int64_t mid = b + (e - b) / 2;
    if (holds(mid)) {
      e = mid;
    } else {
      b = mid + 1;
    }
  }
  return b;
}

// The columns [b, e) of [0, n) whose coordinate less `less` (rounded) is
// in [lo, hi): one run, as the coordinate is monotonic along a row (each
// rounding is).
void CoordinateRun(double c0, double c1, double c2, double less, double lo,
                   double hi, int64_t n, int64_t& b, int64_t& e) {
  auto at = [&](int64_t x) { return Coordinate(c0, c1, c2, x) - less; };
  // The first column at `bound`, estimated.
  auto guess = [&](double bound) {
    return std::ceil((bound + less - c1 - c2) / c0 - 0.5);
  };
  if (c0 > 0) {
    b = FirstWhere([&](int64_t x) { return at(x) >= lo; }, 0, n, guess(lo));
    e = FirstWhere([&](int64_t x) { return at(x) >= hi; }, b, n, guess(hi));
  } else if (c0 < 0) {
    b = FirstWhere([&](int64_t x) { return at(x) < hi; }, 0, n, guess(hi));
    e = FirstWhere([&](int64_t x) { return at(x) < lo; }, b, n, guess(lo));
  } else {
    const double v = at(0);
    b = 0;
    e = v >= lo && v < hi ? n : 0;
  }
}

// The output columns [b, e) of row y whose point has an input pixel.
void InsideRun(const AugmentInput& in, const double a[6], int64_t y,
               int64_t out_width, int64_t& b, int64_t& e) {
  const double yin = static_cast<double>(y) + 0.5;
  int64_t bx, ex, by, ey;
  CoordinateRun(a[0], a[1] * yin, a[2], 0.0, 0.0, static_cast<double>(in.width),
                out_width, bx, ex);
  CoordinateRun(a[3], a[4] * yin, a[5], 0.0, 0.0,
                static_cast<double>(in.height), out_width, by, ey);
  b = std::max(bx, by);
  e = std::max(b, std::min(ex, ey));
}

// The output columns [b, e) of row y whose bilinear pixels are two apart
// in both rows and columns (FLOOR of the coordinates less 0.5 in
// [0, size - 2]): no edge there.
void InteriorRun(const AugmentInput& in, const double a[6], int64_t y,
                 int64_t out_width, int64_t& b, int64_t& e) {
  const double yin = static_cast<double>(y) + 0.5;
  int64_t bx, ex, by, ey;
  CoordinateRun(a[0], a[1] * yin, a[2], 0.5, 0.0,
                static_cast<double>(in.width - 1), out_width, bx, ex);
  CoordinateRun(a[3], a[4] * yin, a[5], 0.5, 0.0,
                static_cast<double>(in.height - 1), out_width, by, ey);
  b = std::max(bx, by);
  e = std::max(b, std::min(ex, ey));
}

// affine_transform's positions (xx, yy) of output pixels (x + lane, y),
// a0 (x + 0.5) + a1 (y + 0.5) + a2 with Pillow's roundings.
struct RowPositions {
  double a0, a1y, a2, a3, a4y, a5;
};

RowPositions PositionsOfRow(const double a[6], int64_t y) {
  const double yin = static_cast<double>(y) + 0.5;
  return {a[0], a[1] * yin, a[2], a[3], a[4] * yin, a[5]};
}

HWY_INLINE void PositionsAt(const RowPositions& r, int64_t x, VD& xx, VD& yy) {
  const DD dd;
  const VD xin =
      hn::Add(hn::Set(dd, static_cast<double>(x) + 0.5), hn::Iota(dd, 0.0));
  xx = hn::Add(hn::Add(hn::Mul(hn::Set(dd, r.a0), xin), hn::Set(dd, r.a1y)),
               hn::Set(dd, r.a2));
  yy = hn::Add(hn::Add(hn::Mul(hn::Set(dd, r.a3), xin), hn::Set(dd, r.a4y)),
               hn::Set(dd, r.a5));
}

// Stores the vector of pixels at column x of a row whose run of pixels to
// write ends at column e.
template <int kC>
HWY_INLINE void StoreInRun(VW px, int64_t x, int64_t e, uint8_t* out_row) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(DD()));
  uint8_t* out = out_row + x * kC;
  if ((x + N) * kC + PackSlack(kC) <= e * kC) {
    StorePacked<kC>(px, out);
  } else {  // the run's last pixels: exactly
    uint8_t packed[HWY_MAX_BYTES / 2 + PackSlack(kC)];
    StorePacked<kC>(px, packed);
    std::memcpy(out, packed, static_cast<size_t>(N * kC));
  }
}

// The row's run [b, e) of pixels with an input pixel, when it holds a
// vector; else its pixels by the scalar span and false.
template <AffineFilter kFilter>
bool VectorRun(const AugmentInput& in, const double a[6], int64_t y,
               int64_t out_width, uint8_t* out_row, int64_t& b, int64_t& e) {
  InsideRun(in, a, y, out_width, b, e);
  if (e - b >= static_cast<int64_t>(hn::Lanes(DD()))) return true;
  ScalarGenericAffineSpan(in, a, kFilter, y, b, e, out_row);
  return false;
}

// bilinear_filter's words and fractions for the vector at column x of a
// row (kFlatY: a3 is 0, and the row's iy and dy are given).
template <int kC, bool kFlatY>
HWY_INLINE void BilinearFetch(const WordSource& s, const RowPositions& r,
                              int64_t x, bool interior, hn::Vec<DQI> flat_iy,
                              VD flat_dy, VQ& w0, VQ& w1, VD& dx, VD& dy) {
  VD xx, yy;
  PositionsAt(r, x, xx, yy);
  hn::Vec<DQI> ix, iy = flat_iy;
  dy = flat_dy;
  if (interior) {
    SplitCoordinates<true>(xx, s.width, ix, dx);
    if constexpr (!kFlatY) SplitCoordinates<true>(yy, s.height, iy, dy);
  } else {
    SplitCoordinates<false>(xx, s.width, ix, dx);
    if constexpr (!kFlatY) SplitCoordinates<false>(yy, s.height, iy, dy);
  }
  BilinearWords<kC>(s, ix, iy, w0, w1);
}

// Output row y through bilinear_filter: the run of pixels with an input
// pixel in vectors (the last one ending at the run's end, overlapping the
// one before), each vector's words fetched while the one before is
// interpolated; vectors in the row's interior skip the edges' rules. With
// kFlatY (a3 = 0) every pixel of the row has the same yy, split once.
template <int kC, bool kFlatY>
void BilinearRow(const AugmentInput& in, const WordSource s, const double a[6],
                 int64_t y, int64_t out_width, uint8_t* out_row) {
  int64_t b, e, ib, ie;
  if (!VectorRun<AffineFilter::kBilinear>(in, a, y, out_width, out_row, b, e)) {
    return;
  }
  InteriorRun(in, a, y, out_width, ib, ie);
  const int64_t N = static_cast<int64_t>(hn::Lanes(DD()));
  const RowPositions r = PositionsOfRow(a, y);
  auto interior = [&](int64_t x) { return x >= ib && x + N <= ie; };
  hn::Vec<DQI> flat_iy = hn::Zero(DQI());
  VD flat_dy = hn::Zero(DD());
  if constexpr (kFlatY) {
    VD xx, yy;
    PositionsAt(r, b, xx, yy);
    SplitCoordinates<false>(yy, s.height, flat_iy, flat_dy);
  }
  VD dx, dy;
  VQ w0, w1;
  BilinearFetch<kC, kFlatY>(s, r, b, interior(b), flat_iy, flat_dy, w0, w1, dx,
                            dy);
  for (int64_t x = b;;) {
    const int64_t next = std::min(x + N, e - N);
    VD next_dx = dx, next_dy = dy;
    VQ next_w0 = w0, next_w1 = w1;
    if (next > x) {
      BilinearFetch<kC, kFlatY>(s, r, next, interior(next), flat_iy, flat_dy,
                                next_w0, next_w1, next_dx, next_dy);
    }
    StoreInRun<kC>(BilinearPixels<kC>(w0, w1, dx, dy), x, e, out_row);
    if (next <= x) break;
    x = next;
    w0 = next_w0;
    w1 = next_w1;
    dx = next_dx;
    dy = next_dy;
  }
}

// Output row y through bicubic_filter, as BilinearRow (every vector with
// the edges' rules).
template <int kC>
void BicubicRow(const AugmentInput& in, const WordSource s, const double a[6],
                int64_t y, int64_t out_width, uint8_t* out_row) {
  int64_t b, e;
  if (!VectorRun<AffineFilter::kBicubic>(in, a, y, out_width, out_row, b, e)) {
    return;
  }
  const int64_t N = static_cast<int64_t>(hn::Lanes(DD()));
  const RowPositions r = PositionsOfRow(a, y);
  VD xx, yy, dx, dy;
  VQ a0, b0, a1, b1, a2, b2, a3, b3, s1, s2, s3;
  PositionsAt(r, b, xx, yy);
  BicubicFetch<kC>(s, xx, yy, a0, b0, a1, b1, a2, b2, a3, b3, s1, s2, s3, dx,
                   dy);
  for (int64_t x = b;;) {
    const int64_t next = std::min(x + N, e - N);
    VD ndx = dx, ndy = dy;
    VQ na0 = a0, nb0 = b0, na1 = a1, nb1 = b1, na2 = a2, nb2 = b2, na3 = a3,
       nb3 = b3, ns1 = s1, ns2 = s2, ns3 = s3;
    if (next > x) {
      PositionsAt(r, next, xx, yy);
      BicubicFetch<kC>(s, xx, yy, na0, nb0, na1, nb1, na2, nb2, na3, nb3, ns1,
                       ns2, ns3, ndx, ndy);
    }
    StoreInRun<kC>(
        BicubicPixels<kC>(a0, b0, a1, b1, a2, b2, a3, b3, s1, s2, s3, dx, dy),
        x, e, out_row);
    if (next <= x) break;
    x = next;
    a0 = na0;
    b0 = nb0;
    a1 = na1;
    b1 = nb1;
    a2 = na2;
    b2 = nb2;
    a3 = na3;
    b3 = nb3;
    s1 = ns1;
    s2 = ns2;
    s3 = ns3;
    dx = ndx;
    dy = ndy;
  }
}

// Whether every position of the output's pixels is finite (no product or
// sum overflows); then each coordinate is monotonic along a row.
bool FinitePositions(const double a[6], int64_t out_height, int64_t out_width) {
  const double xm = static_cast<double>(out_width) + 1.0;
  const double ym = static_cast<double>(out_height) + 1.0;
  return std::fabs(a[0]) * xm + std::fabs(a[1]) * ym + std::fabs(a[2]) <
             1e300 &&
         std::fabs(a[3]) * xm + std::fabs(a[4]) * ym + std::fabs(a[5]) < 1e300;
}

template <AffineFilter kFilter, int kC>
void InterpolateEngine(const AugmentInput& in, const double a[6], uint8_t* out,
                       int64_t out_height, int64_t out_width,
                       int64_t in_bytes) {
  const WordSource s{in.pixels, static_cast<uint64_t>(in.width),
                     static_cast<uint64_t>(in.height),
                     in.height > 1 ? static_cast<uint32_t>(in.row_stride) : 0u,
                     static_cast<uint64_t>(in_bytes - 8)};
  for (int64_t y = 0; y < out_height; ++y) {
    uint8_t* out_row = out + y * out_width * kC;
    if constexpr (kFilter == AffineFilter::kBilinear) {
      if (a[3] == 0) {
        BilinearRow<kC, true>(in, s, a, y, out_width, out_row);
      } else {
        BilinearRow<kC, false>(in, s, a, y, out_width, out_row);
      }
    } else {
      BicubicRow<kC>(in, s, a, y, out_width, out_row);
    }
  }
}

template <int kC>
void VectorEngines(const AugmentInput& in, const double a[6], AffineEngine e,
                   AffineFilter filter, uint8_t* out, int64_t out_height,
                   int64_t out_width, int64_t in_bytes) {
  if (e == AffineEngine::kScale) {
    ScaleAffineWith(in, a, out, out_height, out_width, &ScaleRun<kC>);
  } else if (e == AffineEngine::kFixed) {
    FixedEngine<kC>(in, a, out, out_height, out_width, in_bytes);
  } else if (filter == AffineFilter::kBilinear) {
    InterpolateEngine<AffineFilter::kBilinear, kC>(in, a, out, out_height,
                                                   out_width, in_bytes);
  } else {
    InterpolateEngine<AffineFilter::kBicubic, kC>(in, a, out, out_height,
                                                  out_width, in_bytes);
  }
}

// Whether the filter runs vectors with `channels` on this target, where
// measured faster than the scalar code: BICUBIC on x86 (SSSE3 to AVX3_DL);
// BILINEAR but on NEON (no gathers) and with one channel on SSSE3 (no
// double floor and no gathers: as slow as the scalar code there).
constexpr bool FilterVectors(AffineFilter filter, int channels) {
  if (filter == AffineFilter::kBicubic) return HWY_TARGET <= HWY_SSSE3;
  if (HWY_TARGET == HWY_SSSE3) return channels > 1;
  return HWY_TARGET != HWY_NEON;
}

// Whether the vector code runs engine e with `filter` on `in`, of
// `in_bytes` (GatherableBytes). LA images (2 channels), rare in training
// data, have no vector engines.
bool RunsVectors(const AugmentInput& in, const double a[6], AffineEngine e,
                 AffineFilter filter, int64_t in_bytes, int64_t out_height,
                 int64_t out_width) {
  if (in_bytes == 0 || in.channels == 2) return false;
  if (e == AffineEngine::kScale || e == AffineEngine::kFixed) return true;
  return e == AffineEngine::kGeneric && in_bytes >= 8 &&
         FilterVectors(filter, in.channels) &&
         FinitePositions(a, out_height, out_width);
}

void Affine(const AugmentInput& in, const double a[6], AffineFilter filter,
            uint8_t* out, int64_t out_height, int64_t out_width) {
  if (out_height <= 0 || out_width <= 0) return;
  const AffineEngine e = ChooseAffineEngine(a, filter, out_height, out_width);
  const int64_t in_bytes = GatherableBytes(in);
  if (!RunsVectors(in, a, e, filter, in_bytes, out_height, out_width)) {
    ScalarAugmentInfo().affine(in, a, filter, out, out_height, out_width);
  } else if (in.channels == 1) {
    VectorEngines<1>(in, a, e, filter, out, out_height, out_width, in_bytes);
  } else if (in.channels == 3) {
    VectorEngines<3>(in, a, e, filter, out, out_height, out_width, in_bytes);
  } else {
    VectorEngines<4>(in, a, e, filter, out, out_height, out_width, in_bytes);
  }
}

// Sharpen: a byte per float lane.
using DF = hn::ScalableTag<float>;
using DFI = hn::RebindToSigned<DF>;
using DFB = hn::Rebind<uint8_t, DF>;
using VF = hn::Vec<DF>;
using VFI = hn::Vec<DFI>;

HWY_INLINE VFI LoadInts(const uint8_t* p) {
  return hn::PromoteTo(DFI(), hn::LoadU(DFB(), p));
}

HWY_INLINE VF LoadFloats(const uint8_t* p) {
  return hn::ConvertTo(DF(), LoadInts(p));
}

// Filter.c's KERNEL1x3 at p, neighbours kC bytes away.
template <int kC>
HWY_INLINE VF Kernel1x3(const uint8_t* p, VF k0, VF k1, VF k2) {
  const VF left = hn::Mul(LoadFloats(p - kC), k0);
  const VF mid = hn::Mul(LoadFloats(p), k1);
  const VF right = hn::Mul(LoadFloats(p + kC), k2);
  return hn::Add(hn::Add(left, mid), right);
}

// The sharpened bytes of a vector at byte i of a row (as int32): SMOOTH's
// value d (the image's own in alpha lanes), blended with the image's x.
template <int kC>
HWY_INLINE VFI SharpenVector(const uint8_t* above, const uint8_t* row,
                             const uint8_t* below, int64_t i, VF alpha) {
  const DF df;
  const DFI di;
  const VF side = hn::Set(df, kSmoothSide);
  const VF centre = hn::Set(df, kSmoothCentre);
  VF ss = hn::Set(df, 0.5f);
  ss = hn::Add(ss, Kernel1x3<kC>(below, side, side, side));
  ss = hn::Add(ss, Kernel1x3<kC>(row, side, centre, side));
  ss = hn::Add(ss, Kernel1x3<kC>(above, side, side, side));
  const VF k255 = hn::Set(df, 255.0f);
  VFI d = hn::ConvertTo(di, hn::Min(hn::Max(ss, hn::Zero(df)), k255));
  const VFI x = LoadInts(row);
  if constexpr (kC == 4) {
    const VFI channel =
        hn::And(hn::Iota(di, static_cast<int32_t>(i & 3)), hn::Set(di, 3));
    d = hn::IfThenElse(hn::Eq(channel, hn::Set(di, 3)), x, d);
  }
  const VF diff = hn::ConvertTo(df, hn::Sub(x, d));
  const VF v = hn::Add(hn::ConvertTo(df, d), hn::Mul(alpha, diff));
  return hn::ConvertTo(di, hn::Min(hn::Max(v, hn::Zero(df)), k255));
}

// Most float lanes of any vector of this target.
constexpr int64_t kMaxFloatLanes = HWY_MAX_BYTES / sizeof(float);

// The bytes [i, end) of a row's interior (end - i < a vector) through
// copies of them and their neighbours in padded buffers.
template <int kC>
void SharpenTail(const uint8_t* above, const uint8_t* row, const uint8_t* below,
                 int64_t i, int64_t end, VF alpha, uint8_t* out_row) {
  const int64_t n = end - i;
  uint8_t rows[3][kMaxFloatLanes + 2 * kC] = {};
  std::memcpy(rows[0], above + i - kC, n + 2 * kC);
  std::memcpy(rows[1], row + i - kC, n + 2 * kC);
  std::memcpy(rows[2], below + i - kC, n + 2 * kC);
  const VFI v =
      SharpenVector<kC>(rows[0] + kC, rows[1] + kC, rows[2] + kC, i, alpha);
  uint8_t result[kMaxFloatLanes];
  hn::StoreU(hn::DemoteTo(DFB(), v), DFB(), result);
  std::memcpy(out_row + i, result, n);
}

template <int kC>
void SharpenRowVectors(const uint8_t* above, const uint8_t* row,
                       const uint8_t* below, int64_t width, float alpha_value,
                       uint8_t* out_row) {
  const DF df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  const VF alpha = hn::Set(df, alpha_value);
  const int64_t end = (width - 1) * kC;
  int64_t i = kC;
  for (; i + N <= end; i += N) {
    const VFI v = SharpenVector<kC>(above + i, row + i, below + i, i, alpha);
    hn::StoreU(hn::DemoteTo(DFB(), v), DFB(), out_row + i);
  }
  if (i < end) SharpenTail<kC>(above, row, below, i, end, alpha, out_row);
}

void SharpenRow(const uint8_t* above, const uint8_t* row, const uint8_t* below,
                int64_t width, int channels, float alpha, void*,
                uint8_t* out_row) {
  if (channels == 1) {
    SharpenRowVectors<1>(above, row, below, width, alpha, out_row);
  } else if (channels == 3) {
    SharpenRowVectors<3>(above, row, below, width, alpha, out_row);
  } else {
    SharpenRowVectors<4>(above, row, below, width, alpha, out_row);
  }
}

void Sharpen(const AugmentInput& in, float alpha, uint8_t* out) {
  SharpenWith(in, alpha, out, &SharpenRow, nullptr);
}

#if HWY_TARGET == HWY_AVX3_DL

// A channel's table in four vectors of 64 entries.
struct ByteTable {
  __m512i part[4];
};

HWY_INLINE __m512i LookUp64(const ByteTable& t, __m512i x) {
  const __m512i low = _mm512_permutex2var_epi8(t.part[0], x, t.part[1]);
  const __m512i high = _mm512_permutex2var_epi8(t.part[2], x, t.part[3]);
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), low, high);
}

// Bytes of channel c in a vector starting at a byte of channel `phase`.
__mmask64 ChannelMask(int channels, int phase, int c) {
  __mmask64 m = 0;
  for (int j = 0; j < 64; ++j) {
    if ((phase + j) % channels == c) m |= __mmask64{1} << j;
  }
  return m;
}

// Each channel's table on all 64 bytes, kept where the byte is of that
// channel; the last vector masked.
template <int kC>
void LookUpVectors(const uint8_t* in, uint8_t* out, int64_t bytes,
                   const uint8_t* luts) {
  ByteTable t[kC];
  for (int c = 0; c < kC; ++c) {
    for (int k = 0; k < 4; ++k) {
      t[c].part[k] = _mm512_loadu_si512(luts + c * 256 + 64 * k);
    }
  }
  // 64 bytes later the channel is 64 % kC further on.
  __mmask64 masks[kC][kC];
  for (int p = 0; p < kC; ++p) {
    for (int c = 0; c < kC; ++c) masks[p][c] = ChannelMask(kC, p, c);
  }
  int phase = 0;
  for (int64_t i = 0; i < bytes; i += 64, phase = (phase + 64) % kC) {
    const int64_t n = bytes - i;
    const __mmask64 m = n >= 64 ? ~0ull : (1ull << n) - 1;
    const __m512i x = _mm512_maskz_loadu_epi8(m, in + i);
    __m512i y = LookUp64(t[0], x);
    for (int c = 1; c < kC; ++c) {
      y = _mm512_mask_blend_epi8(masks[phase][c], y, LookUp64(t[c], x));
    }
    _mm512_mask_storeu_epi8(out + i, m, y);
  }
}

void LookUp(const uint8_t* in, uint8_t* out, int64_t pixels, int channels,
            const uint8_t* luts) {
  const int64_t bytes = pixels * channels;
  if (channels == 1) {
    LookUpVectors<1>(in, out, bytes, luts);
  } else if (channels == 3) {
    LookUpVectors<3>(in, out, bytes, luts);
  } else {
    LookUpVectors<4>(in, out, bytes, luts);
  }
}

#else  // not AVX3_DL: the scalar row's loop

void LookUp(const uint8_t* in, uint8_t* out, int64_t pixels, int channels,
            const uint8_t* luts) {
  ScalarAugmentInfo().lookup(in, out, pixels, channels, luts);
}

#endif  // HWY_TARGET == HWY_AVX3_DL

#else  // HWY_SCALAR: the scalar row

void Affine(const AugmentInput& in, const double a[6], AffineFilter filter,
            uint8_t* out, int64_t out_height, int64_t out_width) {
  ScalarAugmentInfo().affine(in, a, filter, out, out_height, out_width);
}

void Sharpen(const AugmentInput& in, float alpha, uint8_t* out) {
  ScalarAugmentInfo().sharpen(in, alpha, out);
}

void LookUp(const uint8_t* in, uint8_t* out, int64_t pixels, int channels,
            const uint8_t* luts) {
  ScalarAugmentInfo().lookup(in, out, pixels, channels, luts);
}

#endif  // HWY_TARGET != HWY_SCALAR

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace fusednorm {

HWY_EXPORT(Affine);
HWY_EXPORT(Sharpen);
HWY_EXPORT(LookUp);
HWY_EXPORT(Histogram);

namespace {

void AffineDynamic(const AugmentInput& in, const double a[6],
                   AffineFilter filter, uint8_t* out, int64_t out_height,
                   int64_t out_width) {
  HWY_DYNAMIC_DISPATCH(Affine)(in, a, filter, out, out_height, out_width);
}

void SharpenDynamic(const AugmentInput& in, float alpha, uint8_t* out) {
  HWY_DYNAMIC_DISPATCH(Sharpen)(in, alpha, out);
}

void LookUpDynamic(const uint8_t* in, uint8_t* out, int64_t pixels,
                   int channels, const uint8_t* luts) {
  HWY_DYNAMIC_DISPATCH(LookUp)(in, out, pixels, channels, luts);
}

void HistogramDynamic(const uint8_t* in, int64_t pixels, int channels,
                      uint32_t* hist) {
  HWY_DYNAMIC_DISPATCH(Histogram)(in, pixels, channels, hist);
}

bool Always() { return true; }

}  // namespace

std::vector<AugmentKernelInfo> HighwayAugmentInfos() {
  std::vector<AugmentKernelInfo> rows = {
      {"highway", "any (best Highway target)", 30, &Always,
       &hwy_rows::ActiveTarget, &AffineDynamic, &SharpenDynamic, &LookUpDynamic,
       &HistogramDynamic},
  };
  hwy_rows::ForEachCompiledTarget([&rows](auto bit) {
    constexpr int kBit = decltype(bit)::value;
    const size_t index = hwy_rows::TableIndex(int64_t{1} << kBit);
    rows.push_back(
        {hwy_rows::TargetText<kBit>(true), hwy_rows::TargetText<kBit>(false),
         10, &hwy_rows::TargetSupported<kBit>, &hwy_rows::TargetName<kBit>,
         HWY_DISPATCH_TABLE(Affine)[index], HWY_DISPATCH_TABLE(Sharpen)[index],
         HWY_DISPATCH_TABLE(LookUp)[index],
         HWY_DISPATCH_TABLE(Histogram)[index]});
  });
  return rows;
}

}  // namespace fusednorm
#endif  // HWY_ONCE
