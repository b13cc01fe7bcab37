// The Highway colour rows (highway_color.h), compiled once per Highway
// target through foreach_target.h.
//
// Blends: one float32 lane per value. A value is promoted to int32, the
// difference from the degenerate value converted to float (exact), then
// d + alpha * (x - d) in two float operations, as Blend.c rounds them;
// ConvertTo truncates toward zero and the saturating demotion to uint8 is
// the extrapolating branch's clamp (inside [0, 1] the value never leaves
// 0..255, so the clamp changes nothing there). Alpha values are put back
// from the input.
//
// Hue: one double lane per pixel. Pillow's HSV conversion mixes float
// variables with double constants; each operation here is that operation
// in that type (float divisions in float lanes, the double expressions in
// double lanes, each float assignment a demotion to float), so that every
// lane rounds as the C does. C's round() (half away from zero) of the
// non-negative products is floor(x) + (x - floor(x) >= 0.5), exact.
//
// Each kernel does whole vectors and leaves the rest of the row to the
// scalar row's code, which computes the same values.

#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/color/highway_color.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/color/color_kernel.h"
#include "kernels/color/highway_color.h"
#include "kernels/color/scalar_color.h"
#include "kernels/highway/target_rows.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---- blends: one float lane per value ----

using DI = hn::ScalableTag<int32_t>;
using DF = hn::Rebind<float, DI>;
using DB = hn::Rebind<uint8_t, DI>;
using VI = hn::Vec<DI>;
using VF = hn::Vec<DF>;

// d + alpha * (x - d) per lane, truncated and clamped to 0..255.
HWY_INLINE VI BlendLanes(VI x, VI d, VF alpha) {
  const DF df;
  const VF diff = hn::ConvertTo(df, hn::Sub(x, d));
  const VF v = hn::Add(hn::ConvertTo(df, d), hn::Mul(alpha, diff));
  return hn::ConvertTo(DI(), v);
}

HWY_INLINE hn::Vec<DB> ToBytes(VI v) { return hn::DemoteTo(DB(), v); }

// Pillow's L24 luma of the pixels' three colour lanes.
HWY_INLINE VI LumaLanes(VI r, VI g, VI b) {
  const DI di;
  VI sum = hn::Mul(r, hn::Set(di, 19595));
  sum = hn::Add(sum, hn::Mul(g, hn::Set(di, 38470)));
  sum = hn::Add(sum, hn::Mul(b, hn::Set(di, 7471)));
  return hn::ShiftRight<16>(hn::Add(sum, hn::Set(di, 0x8000)));
}

void BlendConstant(const uint8_t* in, uint8_t* out, int64_t pixels,
                   int channels, float alpha, uint8_t degenerate) {
  const DI di;
  const DB db;
  const int64_t N = static_cast<int64_t>(hn::Lanes(di));
  const int64_t values = pixels * channels;
  const VF a = hn::Set(DF(), alpha);
  const VI d = hn::Set(di, degenerate);
  // Alpha lanes: every fourth value of an RGBA row, where vectors hold
  // whole pixels.
  const int64_t vector_end = channels == 4 && N % 4 != 0 ? 0 : values;
  const auto keep = hn::Eq(hn::And(hn::Iota(di, 0), hn::Set(di, 3)),
                           hn::Set(di, channels == 4 ? 3 : -1));
  int64_t i = 0;
  for (; i + N <= vector_end; i += N) {
    const VI x = hn::PromoteTo(di, hn::LoadU(db, in + i));
    hn::StoreU(ToBytes(hn::IfThenElse(keep, x, BlendLanes(x, d, a))), db,
               out + i);
  }
  // The rest value by value (RGBA vectors end on a pixel: i % 4 == 0).
  const int tail_channels = channels == 4 ? 4 : 1;
  ScalarColorInfo().blend_constant(in + i, out + i,
                                   (values - i) / tail_channels, tail_channels,
                                   alpha, degenerate);
}

void BlendGray(const uint8_t* in, uint8_t* out, int64_t pixels, int channels,
               float alpha) {
  const DI di;
  const DB db;
  const int64_t N = static_cast<int64_t>(hn::Lanes(di));
  const VF a = hn::Set(DF(), alpha);
  int64_t i = 0;
  for (; i + N <= pixels; i += N) {
    hn::Vec<DB> r8, g8, b8, a8;
    const uint8_t* p = in + i * channels;
    if (channels == 4) {
      hn::LoadInterleaved4(db, p, r8, g8, b8, a8);
    } else {
      hn::LoadInterleaved3(db, p, r8, g8, b8);
    }
    const VI r = hn::PromoteTo(di, r8), g = hn::PromoteTo(di, g8),
             b = hn::PromoteTo(di, b8);
    const VI l = LumaLanes(r, g, b);
    const auto r2 = ToBytes(BlendLanes(r, l, a));
    const auto g2 = ToBytes(BlendLanes(g, l, a));
    const auto b2 = ToBytes(BlendLanes(b, l, a));
    uint8_t* o = out + i * channels;
    if (channels == 4) {
      hn::StoreInterleaved4(r2, g2, b2, a8, db, o);
    } else {
      hn::StoreInterleaved3(r2, g2, b2, db, o);
    }
  }
  ScalarColorInfo().blend_gray(in + i * channels, out + i * channels,
                               pixels - i, channels, alpha);
}

uint64_t LumaSum(const uint8_t* in, int64_t pixels, int channels) {
  const DI di;
  const DB db;
  const int64_t N = static_cast<int64_t>(hn::Lanes(di));
  uint64_t total = 0;
  int64_t i = 0;
  // Reduced every 2^16 vectors: the lanes' sum (up to 64 lanes of 2^16
  // lumas of 255) stays below 2^31.
  constexpr int64_t kFlush = int64_t{1} << 16;
  while (i + N <= pixels) {
    VI sum = hn::Zero(di);
    for (int64_t k = 0; k < kFlush && i + N <= pixels; ++k, i += N) {
      const uint8_t* p = in + i * channels;
      if (channels == 1) {
        sum = hn::Add(sum, hn::PromoteTo(di, hn::LoadU(db, p)));
        continue;
      }
      hn::Vec<DB> r8, g8, b8, a8;
      if (channels == 4) {
        hn::LoadInterleaved4(db, p, r8, g8, b8, a8);
      } else {
        hn::LoadInterleaved3(db, p, r8, g8, b8);
      }
      sum = hn::Add(sum, LumaLanes(hn::PromoteTo(di, r8), hn::PromoteTo(di, g8),
                                   hn::PromoteTo(di, b8)));
    }
    total += static_cast<uint64_t>(hn::GetLane(hn::SumOfLanes(di, sum)));
  }
  return total + ScalarColorInfo().luma_sum(in + i * channels, pixels - i,
                                            channels);
}

void ToGray(const uint8_t* in, uint8_t* out, int64_t pixels, int channels,
            int out_channels) {
  const DI di;
  const DB db;
  const int64_t N = static_cast<int64_t>(hn::Lanes(di));
  int64_t i = 0;
  for (; i + N <= pixels; i += N) {
    hn::Vec<DB> r8, g8, b8, a8;
    const uint8_t* p = in + i * channels;
    if (channels == 4) {
      hn::LoadInterleaved4(db, p, r8, g8, b8, a8);
    } else {
      hn::LoadInterleaved3(db, p, r8, g8, b8);
    }
    const auto l = ToBytes(LumaLanes(hn::PromoteTo(di, r8), hn::PromoteTo(di, g8),
                                     hn::PromoteTo(di, b8)));
    if (out_channels == 1) {
      hn::StoreU(l, db, out + i);
    } else {
      hn::StoreInterleaved3(l, l, l, db, out + i * 3);
    }
  }
  ScalarColorInfo().to_gray(in + i * channels, out + i * out_channels,
                            pixels - i, channels, out_channels);
}

// ---- hue: one double lane per pixel ----

using DD = hn::ScalableTag<double>;
using DDF = hn::Rebind<float, DD>;
using DDI = hn::Rebind<int32_t, DD>;
using DDB = hn::Rebind<uint8_t, DD>;
using VD = hn::Vec<DD>;

// A double rounded to float and back (a C float assignment).
HWY_INLINE VD AsFloat(VD v) {
  return hn::PromoteTo(DD(), hn::DemoteTo(DDF(), v));
}

// float / float, as doubles holding floats.
HWY_INLINE VD DivFloat(VD a, VD b) {
  const DDF df;
  return hn::PromoteTo(DD(), hn::Div(hn::DemoteTo(df, a), hn::DemoteTo(df, b)));
}

// (int)v for non-negative v below 2^31, as a double.
HWY_INLINE VD TruncToInt(VD v) {
  return hn::PromoteTo(DD(), hn::DemoteTo(DDI(), v));
}

// C's round() of non-negative v.
HWY_INLINE VD RoundHalfAway(VD v) {
  const DD dd;
  const VD f = hn::Floor(v);
  return hn::IfThenElse(hn::Ge(hn::Sub(v, f), hn::Set(dd, 0.5)),
                        hn::Add(f, hn::Set(dd, 1.0)), f);
}

// rgb2hsv_row: the hue and saturation bytes (as doubles) of r, g, b.
HWY_INLINE void RgbToHsv(VD r, VD g, VD b, VD& h, VD& s, VD& v) {
  const DD dd;
  const VD zero = hn::Zero(dd);
  const VD maxc = hn::Max(r, hn::Max(g, b));
  const VD minc = hn::Min(r, hn::Min(g, b));
  const auto grey = hn::Eq(maxc, minc);
  // Grey lanes divide by zero; their results are replaced below.
  const VD cr = hn::IfThenElse(grey, hn::Set(dd, 1.0), hn::Sub(maxc, minc));
  const VD sf = DivFloat(cr, hn::IfThenElse(grey, hn::Set(dd, 1.0), maxc));
  const VD rc = DivFloat(hn::Sub(maxc, r), cr);
  const VD gc = DivFloat(hn::Sub(maxc, g), cr);
  const VD bc = DivFloat(hn::Sub(maxc, b), cr);
  const VD hr = AsFloat(hn::Sub(bc, gc));  // float - float: exact as double,
                                           // rounded once to float
  const VD hg = AsFloat(hn::Sub(hn::Add(hn::Set(dd, 2.0), rc), bc));
  const VD hb = AsFloat(hn::Sub(hn::Add(hn::Set(dd, 4.0), gc), rc));
  const VD hue =
      hn::IfThenElse(hn::Eq(r, maxc), hr, hn::IfThenElse(hn::Eq(g, maxc), hg, hb));
  VD x = hn::Add(hn::Div(hue, hn::Set(dd, 6.0)), hn::Set(dd, 1.0));
  x = hn::IfThenElse(hn::Ge(x, hn::Set(dd, 1.0)), hn::Sub(x, hn::Set(dd, 1.0)),
                     x);  // fmod(x, 1.0) for x in [0, 2)
  const VD h_byte = TruncToInt(hn::Mul(AsFloat(x), hn::Set(dd, 255.0)));
  const VD s_byte = TruncToInt(hn::Mul(sf, hn::Set(dd, 255.0)));
  h = hn::IfThenElse(grey, zero, h_byte);
  s = hn::IfThenElse(grey, zero, s_byte);
  v = maxc;
}

// hsv2rgb: r, g, b (as doubles) of the bytes h, s, v.
HWY_INLINE void HsvToRgb(VD h, VD s, VD v, VD& r, VD& g, VD& b) {
  const DD dd;
  const VD one = hn::Set(dd, 1.0);
  const VD x6 = hn::Div(hn::Mul(h, hn::Set(dd, 6.0)), hn::Set(dd, 255.0));
  const VD i = hn::Floor(x6);
  const VD f = AsFloat(hn::Sub(x6, i));
  const VD fs = AsFloat(hn::Div(s, hn::Set(dd, 255.0)));
  const VD p = RoundHalfAway(hn::Mul(v, hn::Sub(one, fs)));
  const VD q = RoundHalfAway(hn::Mul(v, hn::Sub(one, AsFloat(hn::Mul(fs, f)))));
  const VD t =
      RoundHalfAway(hn::Mul(v, hn::Sub(one, hn::Mul(fs, hn::Sub(one, f)))));
  // Sector i % 6 (i is 6 only for h = 255, where it means 0).
  const auto s1 = hn::Eq(i, hn::Set(dd, 1.0));
  const auto s2 = hn::Eq(i, hn::Set(dd, 2.0));
  const auto s3 = hn::Eq(i, hn::Set(dd, 3.0));
  const auto s4 = hn::Eq(i, hn::Set(dd, 4.0));
  const auto s5 = hn::Eq(i, hn::Set(dd, 5.0));
  // Sector 0 (and 6): (v, t, p).
  r = hn::IfThenElse(s1, q, hn::IfThenElse(hn::Or(s2, s3), p,
                                           hn::IfThenElse(s4, t, v)));
  g = hn::IfThenElse(hn::Or(s1, s2), v,
                     hn::IfThenElse(s3, q, hn::IfThenElse(hn::Or(s4, s5), p, t)));
  b = hn::IfThenElse(hn::Or(s3, s4), v,
                     hn::IfThenElse(s2, t, hn::IfThenElse(s5, q, p)));
  const auto grey = hn::Eq(s, hn::Zero(dd));
  r = hn::IfThenElse(grey, v, r);
  g = hn::IfThenElse(grey, v, g);
  b = hn::IfThenElse(grey, v, b);
}

HWY_INLINE VD ToDouble(hn::Vec<DDB> bytes) {
  return hn::PromoteTo(DD(), hn::PromoteTo(DDI(), bytes));
}
HWY_INLINE hn::Vec<DDB> FromDouble(VD v) {
  return hn::DemoteTo(DDB(), hn::DemoteTo(DDI(), v));
}

void ShiftHue(const uint8_t* in, uint8_t* out, int64_t pixels, int channels,
              uint8_t shift) {
  const DD dd;
  const DDB db;
  const int64_t N = static_cast<int64_t>(hn::Lanes(dd));
  const VD shift_by = hn::Set(dd, shift);
  const VD wrap = hn::Set(dd, 256.0);
  int64_t i = 0;
  for (; i + N <= pixels; i += N) {
    hn::Vec<DDB> r8, g8, b8, a8;
    const uint8_t* p = in + i * channels;
    if (channels == 4) {
      hn::LoadInterleaved4(db, p, r8, g8, b8, a8);
    } else {
      hn::LoadInterleaved3(db, p, r8, g8, b8);
    }
    VD h, s, v;
    RgbToHsv(ToDouble(r8), ToDouble(g8), ToDouble(b8), h, s, v);
    h = hn::Add(h, shift_by);  // the uint8 addition, modulo 256
    h = hn::IfThenElse(hn::Ge(h, wrap), hn::Sub(h, wrap), h);
    VD r, g, b;
    HsvToRgb(h, s, v, r, g, b);
    uint8_t* o = out + i * channels;
    if (channels == 4) {
      hn::StoreInterleaved4(FromDouble(r), FromDouble(g), FromDouble(b),
                            hn::Set(db, 255), db, o);
    } else {
      hn::StoreInterleaved3(FromDouble(r), FromDouble(g), FromDouble(b), db, o);
    }
  }
  ScalarColorInfo().shift_hue(in + i * channels, out + i * channels,
                              pixels - i, channels, shift);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace fusednorm {

HWY_EXPORT(BlendConstant);
HWY_EXPORT(BlendGray);
HWY_EXPORT(LumaSum);
HWY_EXPORT(ShiftHue);
HWY_EXPORT(ToGray);

namespace {

void BlendConstantDynamic(const uint8_t* in, uint8_t* out, int64_t pixels,
                          int channels, float alpha, uint8_t degenerate) {
  HWY_DYNAMIC_DISPATCH(BlendConstant)(in, out, pixels, channels, alpha,
                                      degenerate);
}
void BlendGrayDynamic(const uint8_t* in, uint8_t* out, int64_t pixels,
                      int channels, float alpha) {
  HWY_DYNAMIC_DISPATCH(BlendGray)(in, out, pixels, channels, alpha);
}
uint64_t LumaSumDynamic(const uint8_t* in, int64_t pixels, int channels) {
  return HWY_DYNAMIC_DISPATCH(LumaSum)(in, pixels, channels);
}
void ShiftHueDynamic(const uint8_t* in, uint8_t* out, int64_t pixels,
                     int channels, uint8_t shift) {
  HWY_DYNAMIC_DISPATCH(ShiftHue)(in, out, pixels, channels, shift);
}
void ToGrayDynamic(const uint8_t* in, uint8_t* out, int64_t pixels,
                   int channels, int out_channels) {
  HWY_DYNAMIC_DISPATCH(ToGray)(in, out, pixels, channels, out_channels);
}

bool Always() { return true; }

}  // namespace

std::vector<ColorKernelInfo> HighwayColorInfos() {
  std::vector<ColorKernelInfo> rows = {
      {"highway", "any (best Highway target)", 30, &Always,
       &hwy_rows::ActiveTarget, &BlendConstantDynamic, &BlendGrayDynamic,
       &LumaSumDynamic, &ShiftHueDynamic, &ToGrayDynamic},
  };
  hwy_rows::ForEachCompiledTarget([&rows](auto bit) {
    constexpr int kBit = decltype(bit)::value;
    const size_t index = hwy_rows::TableIndex(int64_t{1} << kBit);
    rows.push_back({hwy_rows::TargetText<kBit>(true),
                    hwy_rows::TargetText<kBit>(false), 10,
                    &hwy_rows::TargetSupported<kBit>,
                    &hwy_rows::TargetName<kBit>,
                    HWY_DISPATCH_TABLE(BlendConstant)[index],
                    HWY_DISPATCH_TABLE(BlendGray)[index],
                    HWY_DISPATCH_TABLE(LumaSum)[index],
                    HWY_DISPATCH_TABLE(ShiftHue)[index],
                    HWY_DISPATCH_TABLE(ToGray)[index]});
  });
  return rows;
}

}  // namespace fusednorm
#endif  // HWY_ONCE
