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
// bytes. The scale engine (no rotation or shear) copies a row's run of
// columns as one memcpy where its columns are consecutive (translations),
// else by the same gathers. The engine choice, the coefficients, the column
// table and the row loop are the scalar row's (scalar_augment.h).
//
// affine, BILINEAR: a pixel per double lane: affine_transform's positions
// and bilinear_filter's weights and sums with the same operations in the
// same order (no FMA), its four pixels gathered as above, its clips as
// min/max, NaN positions (which Pillow's check lets through) written as 0,
// what x86's conversion of NaN to a byte gives. The double engine (NEAREST
// outside 16.16's range), BICUBIC, and BILINEAR on SSSE3 and NEON (no
// hardware gather or double floor: slower there) run the scalar row's
// code, as does every row's last partial vector (the scalar spans, which
// compute the same values).
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

// Bilinear: a pixel per double lane, its words in uint32 lanes.
using DD = hn::ScalableTag<double>;
using DW = hn::Rebind<uint32_t, DD>;
using DWI = hn::RebindToSigned<DW>;
using VD = hn::Vec<DD>;
using VW = hn::Vec<DW>;
using VWI = hn::Vec<DWI>;

// A double lane mask as a mask of the word lanes.
HWY_INLINE hn::Mask<DW> WordMask(hn::Mask<DD> m) {
  const DWI dwi;
  const VWI ones = hn::DemoteTo(dwi, hn::IfThenElseZero(m, hn::Set(DD(), 1.0)));
  return hn::RebindMask(DW(), hn::Eq(ones, hn::Set(dwi, 1)));
}

// Byte kB of the words, as int32.
template <int kB>
HWY_INLINE VWI Band(VW words) {
  return hn::BitCast(
      DWI(), hn::And(hn::ShiftRight<8 * kB>(words), hn::Set(DW(), 0xFF)));
}

// BILINEAR of Geometry.c on ints a, b (the pixels): a + (b - a) d.
HWY_INLINE VD LinearInts(VWI a, VWI b, VD d) {
  const DD dd;
  return hn::Add(hn::PromoteTo(dd, a),
                 hn::Mul(hn::PromoteTo(dd, hn::Sub(b, a)), d));
}

// bilinear_filter's band kB of each lane from its four pixels' words; in
// byte kB of the result.
template <int kB>
HWY_INLINE VW BilinearBand(VW p00, VW p01, VW p10, VW p11, VD dx, VD dy,
                           hn::Mask<DD> has_row1) {
  const VD v1 = LinearInts(Band<kB>(p00), Band<kB>(p01), dx);
  const VD v2 = hn::IfThenElse(
      has_row1, LinearInts(Band<kB>(p10), Band<kB>(p11), dx), v1);
  const VD v = hn::Add(v1, hn::Mul(hn::Sub(v2, v1), dy));
  return hn::ShiftLeft<8 * kB>(hn::BitCast(DW(), hn::DemoteTo(DWI(), v)));
}

// affine_transform and bilinear_filter for the lanes of a vector of output
// pixels (x + lane, y); writes those with an input pixel (zero where the
// position is NaN, as x86 converts Pillow's NaN to a byte).
template <int kC>
HWY_INLINE void BilinearVector(const AugmentInput& in, int64_t in_bytes, VD xx,
                               VD yy, uint8_t* out) {
  const DD dd;
  const DW dw;
  const DWI dwi;
  const VD zero = hn::Zero(dd), half = hn::Set(dd, 0.5);
  const VD width = hn::Set(dd, static_cast<double>(in.width));
  const VD height = hn::Set(dd, static_cast<double>(in.height));
  const auto outside = hn::Or(hn::Or(hn::Lt(xx, zero), hn::Ge(xx, width)),
                              hn::Or(hn::Lt(yy, zero), hn::Ge(yy, height)));
  if (hn::AllTrue(dd, outside)) return;
  // (Not Ne: Highway 1.0.3's x86 Ne is an ordered compare, false for NaN.)
  const auto nan = hn::Not(hn::And(hn::Eq(xx, xx), hn::Eq(yy, yy)));
  // Lanes without a pixel, and NaN lanes, compute at (0.5, 0.5).
  const auto unused = hn::Or(outside, nan);
  const VD xs = hn::Sub(hn::IfThenElse(unused, half, xx), half);
  const VD ys = hn::Sub(hn::IfThenElse(unused, half, yy), half);
  const VD fx = hn::Floor(xs), fy = hn::Floor(ys);
  const VD dx = hn::Sub(xs, fx), dy = hn::Sub(ys, fy);
  const auto has_row1 = hn::Lt(hn::Add(fy, hn::Set(dd, 1.0)), height);
  const VWI xi = hn::DemoteTo(dwi, fx), yi = hn::DemoteTo(dwi, fy);
  const VWI one = hn::Set(dwi, 1), zero_i = hn::Zero(dwi);
  const VWI last_x = hn::Set(dwi, static_cast<int32_t>(in.width - 1));
  const VWI x0 = hn::Max(xi, zero_i), x1 = hn::Min(hn::Add(xi, one), last_x);
  const VWI r0 = hn::Max(yi, zero_i);
  const VWI r1 = hn::IfThenElse(hn::RebindMask(dwi, WordMask(has_row1)),
                                hn::Add(yi, one), r0);
  // Offsets of rows and columns (in int32: the input is under 2^31 bytes).
  const VW stride = hn::Set(dw, static_cast<uint32_t>(in.row_stride));
  const VW row0 = hn::Mul(hn::BitCast(dw, r0), stride);
  const VW row1 = hn::Mul(hn::BitCast(dw, r1), stride);
  const VW col0 = hn::Mul(hn::BitCast(dw, x0), hn::Set(dw, kC));
  const VW col1 = hn::Mul(hn::BitCast(dw, x1), hn::Set(dw, kC));
  const VW last = hn::Set(dw, static_cast<uint32_t>(in_bytes - 4));
  const VW p00 = GatherPixels(dw, in.pixels, hn::Add(row0, col0), last);
  const VW p01 = GatherPixels(dw, in.pixels, hn::Add(row0, col1), last);
  const VW p10 = GatherPixels(dw, in.pixels, hn::Add(row1, col0), last);
  const VW p11 = GatherPixels(dw, in.pixels, hn::Add(row1, col1), last);
  VW px = BilinearBand<0>(p00, p01, p10, p11, dx, dy, has_row1);
  if constexpr (kC > 1) {
    px = hn::Or(px, BilinearBand<1>(p00, p01, p10, p11, dx, dy, has_row1));
    px = hn::Or(px, BilinearBand<2>(p00, p01, p10, p11, dx, dy, has_row1));
  }
  if constexpr (kC == 4) {
    px = hn::Or(px, BilinearBand<3>(p00, p01, p10, p11, dx, dy, has_row1));
  }
  px = hn::IfThenZeroElse(WordMask(nan), px);
  StorePixels<kC>(dw, px, WordMask(hn::Not(outside)), hn::AllFalse(dd, outside),
                  out);
}

// Output row y: whole vectors here, the rest by the scalar span. The
// positions are affine_transform's, a0 (x + 0.5) + a1 (y + 0.5) + a2 with
// the same roundings.
template <int kC>
void BilinearRow(const AugmentInput& in, int64_t in_bytes, const double a[6],
                 int64_t y, int64_t out_width, uint8_t* out_row) {
  const DD dd;
  const int64_t N = static_cast<int64_t>(hn::Lanes(dd));
  const double yin = static_cast<double>(y) + 0.5;
  const VD a0 = hn::Set(dd, a[0]), a3 = hn::Set(dd, a[3]);
  const VD a1y = hn::Set(dd, a[1] * yin), a4y = hn::Set(dd, a[4] * yin);
  const VD a2 = hn::Set(dd, a[2]), a5 = hn::Set(dd, a[5]);
  int64_t x = 0;
  for (; x + N <= out_width; x += N) {
    const VD xin =
        hn::Add(hn::Iota(dd, static_cast<double>(x)), hn::Set(dd, 0.5));
    const VD xx = hn::Add(hn::Add(hn::Mul(a0, xin), a1y), a2);
    const VD yy = hn::Add(hn::Add(hn::Mul(a3, xin), a4y), a5);
    BilinearVector<kC>(in, in_bytes, xx, yy, out_row + x * kC);
  }
  ScalarGenericAffineSpan(in, a, AffineFilter::kBilinear, y, x, out_width,
                          out_row);
}

template <int kC>
void BilinearEngine(const AugmentInput& in, const double a[6], uint8_t* out,
                    int64_t out_height, int64_t out_width, int64_t in_bytes) {
  for (int64_t y = 0; y < out_height; ++y) {
    BilinearRow<kC>(in, in_bytes, a, y, out_width, out + y * out_width * kC);
  }
}

template <int kC>
void VectorEngines(const AugmentInput& in, const double a[6], AffineEngine e,
                   uint8_t* out, int64_t out_height, int64_t out_width,
                   int64_t in_bytes) {
  if (e == AffineEngine::kScale) {
    ScaleAffineWith(in, a, out, out_height, out_width, &ScaleRun<kC>);
  } else if (e == AffineEngine::kFixed) {
    FixedEngine<kC>(in, a, out, out_height, out_width, in_bytes);
  } else {
    BilinearEngine<kC>(in, a, out, out_height, out_width, in_bytes);
  }
}

void Affine(const AugmentInput& in, const double a[6], AffineFilter filter,
            uint8_t* out, int64_t out_height, int64_t out_width) {
  if (out_height <= 0 || out_width <= 0) return;
  const AffineEngine e = ChooseAffineEngine(a, filter, out_height, out_width);
  const int64_t in_bytes = GatherableBytes(in);
  // The double engine and BICUBIC run the scalar row's code, as does
  // BILINEAR where the target gathers lane by lane and lacks a double floor
  // (SSSE3, NEON: slower than the scalar code there).
  constexpr bool kBilinearVectors =
      HWY_TARGET != HWY_SSSE3 && HWY_TARGET != HWY_NEON;
  const bool vectors =
      in_bytes != 0 &&
      (e == AffineEngine::kScale || e == AffineEngine::kFixed ||
       (kBilinearVectors && e == AffineEngine::kGeneric &&
        filter == AffineFilter::kBilinear));
  if (!vectors) {
    ScalarAugmentInfo().affine(in, a, filter, out, out_height, out_width);
  } else if (in.channels == 1) {
    VectorEngines<1>(in, a, e, out, out_height, out_width, in_bytes);
  } else if (in.channels == 3) {
    VectorEngines<3>(in, a, e, out, out_height, out_width, in_bytes);
  } else {
    VectorEngines<4>(in, a, e, out, out_height, out_width, in_bytes);
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
