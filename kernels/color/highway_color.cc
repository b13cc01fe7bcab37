// The Highway colour rows (highway_color.h), compiled once per Highway
// target through foreach_target.h.
//
// A vector holds one pixel per int32 lane; each channel is an int32 lane
// vector that every step of a call updates in registers, rounded to uint8
// after each step as Pillow's intermediate images are, so the image is read
// and written once per call. Two vectors go through the steps side by
// side. RGB pixels move to and from the lanes by byte shuffles on AVX2 and
// AVX3_DL (rgb_lanes-inl.h). On AVX3_DL, constant blends in a row are one
// byte table instead (VBMI permutes look up 64 bytes at once), and a call
// with one goes over the row in chunks that stay in L1 between its runs of
// steps.
//
// Blends: d + alpha * (x - d) in two float operations, as Blend.c rounds
// them (the difference x - d is exact as a float), clamped to 0..255 in
// float (the extrapolating branch's clamp; inside [0, 1] the value never
// leaves 0..255, so it is left out there) and truncated toward zero.
//
// Hue: in float and int32 operations only, none of Pillow's double ones;
// HueSaturation and HsvToRgb say why each byte is Pillow's.
//
// Each kernel does whole vectors and leaves the rest of the row to the
// scalar row's code, which computes the same values. The SCALAR target
// runs the scalar row.

#include <algorithm>
#include <cstdint>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/color/highway_color.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/color/color_kernel.h"
#include "kernels/color/highway_color.h"
#include "kernels/color/rgb_lanes-inl.h"
#include "kernels/color/scalar_color.h"
#include "kernels/highway/target_rows.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR

// Pixels in int32 lanes (a full vector).
using DI = hn::ScalableTag<int32_t>;
using DF = hn::Rebind<float, DI>;
using DB = hn::Rebind<uint8_t, DI>;
using VI = hn::Vec<DI>;
using VF = hn::Vec<DF>;

// A vector of pixels is one int32 lane vector per channel, r, g, b and a,
// passed one by one (SVE's sizeless vectors cannot be members of a
// struct); channels past kC are zero.
template <int kC>
HWY_INLINE void LoadPixels(const uint8_t* p, VI& r, VI& g, VI& b, VI& a) {
  const DB db;
  const DI di;
  g = b = a = hn::Zero(di);
  if constexpr (kC == 3 && rgb_lanes::kShuffled) return LoadRgb(p, r, g, b);
  if constexpr (kC == 1) {
    r = hn::PromoteTo(di, hn::LoadU(db, p));
  } else {
    hn::Vec<DB> rb, gb, bb, ab;
    if constexpr (kC == 4) {
      hn::LoadInterleaved4(db, p, rb, gb, bb, ab);
      a = hn::PromoteTo(di, ab);
    } else {
      hn::LoadInterleaved3(db, p, rb, gb, bb);
    }
    r = hn::PromoteTo(di, rb);
    g = hn::PromoteTo(di, gb);
    b = hn::PromoteTo(di, bb);
  }
}

HWY_INLINE hn::Vec<DB> Bytes(VI v) { return hn::DemoteTo(DB(), v); }

template <int kC>
HWY_INLINE void StorePixels(VI r, VI g, VI b, VI a, uint8_t* p) {
  const DB db;
  if constexpr (kC == 3 && rgb_lanes::kShuffled) return StoreRgb(r, g, b, p);
  if constexpr (kC == 1) {
    hn::StoreU(Bytes(r), db, p);
  } else if constexpr (kC == 3) {
    hn::StoreInterleaved3(Bytes(r), Bytes(g), Bytes(b), db, p);
  } else {
    hn::StoreInterleaved4(Bytes(r), Bytes(g), Bytes(b), Bytes(a), db, p);
  }
}

// Pillow's L24 luma.
HWY_INLINE VI Luma(VI r, VI g, VI b) {
  const DI di;
  VI sum = hn::Mul(r, hn::Set(di, 19595));
  sum = hn::Add(sum, hn::Mul(g, hn::Set(di, 38470)));
  sum = hn::Add(sum, hn::Mul(b, hn::Set(di, 7471)));
  return hn::ShiftRight<16>(hn::Add(sum, hn::Set(di, 0x8000)));
}

// The luma of a vector of kC-channel pixels (L: the value).
template <int kC>
HWY_INLINE VI LumaOf(VI r, VI g, VI b) {
  if constexpr (kC == 1) {
    return r;
  } else {
    return Luma(r, g, b);
  }
}

// Blend.c's value: d + alpha * (x - d), clamped, truncated.
// kClamp false: alpha in [0, 1], where the clamp changes nothing.
template <bool kClamp = true>
HWY_INLINE VI Blend(VI x, VI d, VF alpha) {
  const DF df;
  const VF diff = hn::ConvertTo(df, hn::Sub(x, d));
  VF v = hn::Add(hn::ConvertTo(df, d), hn::Mul(alpha, diff));
  if (kClamp) v = hn::Min(hn::Max(v, hn::Zero(df)), hn::Set(df, 255.0f));
  return Truncate(v);
}

// rgb2hsv_row's hue, saturation and value bytes, without its double
// operations. Its hue byte is (int)((float)fmod(h / 6.0 + 1.0, 1.0) *
// 255.0) of a float h that is base + q or base - q by the case (which
// channel is the maximum, which the minimum, in Pillow's tie order: r
// before g before b), with q the float quotient d / cr of the mid
// channel's distance from the maximum and the range (the other two
// quotients are 0 / cr and cr / cr = 1), so h has one rounding, that of a
// float addition. The float quotient h / 6 (plus 1 where h < 0) times 255
// in float gives the same byte as Pillow's double operations for every
// (case, cr, d), and its s one float product where Pillow's is a double
// one for every (cr, maxc): the hue byte depends on nothing else, and
// testing:color_matrix_test goes over every 24-bit colour. Grey lanes get
// s = 0, which hsv2rgb turns into v whatever h is.
HWY_INLINE void HueSaturation(VI r, VI g, VI b, VI& h, VI& s, VI& v) {
  const DI di;
  const DF df;
  const VI maxc = hn::Max(r, hn::Max(g, b));
  const VI minc = hn::Min(r, hn::Min(g, b));
  const VI cr = hn::Sub(maxc, minc);
  const auto r_max = hn::Eq(r, maxc);
  const auto g_max = hn::Eq(g, maxc);
  const auto b_min = hn::Eq(b, minc);
  const auto r_min = hn::Eq(r, minc);
  // Per case (mid: the third channel) the base and the sign of q:
  //   r max: b min 1 - q (mid g), else -1 + q (mid b);
  //   g max: b min 1 + q (mid r), else 3 - q (mid b);
  //   b max: r min 3 + q (mid g), else 5 - q (mid r).
  const auto fb_min = hn::RebindMask(df, b_min);
  const auto fr_min = hn::RebindMask(df, r_min);
  const VF one = hn::Set(df, 1.0f), minus = hn::Set(df, -1.0f);
  const VF base_r = hn::IfThenElse(fb_min, one, minus);
  const VF sign_r = hn::IfThenElse(fb_min, minus, one);
  const VF base_g = hn::IfThenElse(fb_min, one, hn::Set(df, 3.0f));
  const VF sign_g = hn::IfThenElse(fb_min, one, minus);
  const VF base_b =
      hn::IfThenElse(fr_min, hn::Set(df, 3.0f), hn::Set(df, 5.0f));
  const VF sign_b = hn::IfThenElse(fr_min, one, minus);
  const auto fr_max = hn::RebindMask(df, r_max);
  const auto fg_max = hn::RebindMask(df, g_max);
  const VF base =
      hn::IfThenElse(fr_max, base_r, hn::IfThenElse(fg_max, base_g, base_b));
  const VF sign =
      hn::IfThenElse(fr_max, sign_r, hn::IfThenElse(fg_max, sign_g, sign_b));
  // base + sign * q: the product is exact, so one rounding, fused or not.
  const VF crf = hn::ConvertTo(df, hn::Max(cr, hn::Set(di, 1)));
  // The mid channel's distance from the maximum, whichever channel it is:
  // the three distances sum to cr + d.
  const VI d =
      hn::Sub(hn::Add(hn::Add(maxc, maxc), minc), hn::Add(hn::Add(r, g), b));
  const VF q = hn::Div(hn::ConvertTo(df, d), crf);
  const VF hf = hn::MulAdd(sign, q, base);
  // (float)fmod(h / 6.0 + 1.0, 1.0): the float quotient, plus 1 where h
  // is negative.
  VF frac = hn::Div(hf, hn::Set(df, 6.0f));
  frac = hn::Add(frac, hn::IfThenElseZero(hn::Lt(hf, hn::Zero(df)), one));
  h = Truncate(hn::Mul(frac, hn::Set(df, 255.0f)));
  // s = (int)((float)cr / (float)maxc * 255.0); black lanes divide by 1.
  const VF sf = hn::Div(hn::ConvertTo(df, cr),
                        hn::ConvertTo(df, hn::Max(maxc, hn::Set(di, 1))));
  s = Truncate(hn::Mul(sf, hn::Set(df, 255.0f)));
  v = maxc;
}

// Lanes whose sector (as the bit 1 << i) is one of two.
HWY_INLINE hn::Mask<DI> InSectors(VI bit, int a, int b) {
  const DI di;
  return hn::Ne(hn::And(bit, hn::Set(di, (1 << a) | (1 << b))), hn::Zero(di));
}

// hsv2rgb of bytes h, s, v into colour channels r, g, b. Sector i =
// floor(6h / 255) is an integer division, and m = 6h - 255i the position in
// it (hsv2rgb's f is m / 255). hsv2rgb's p = round(v * (1.0 - s / 255.0))
// is v - round(v * s / 255), whose exact value is never within 1/510 of a
// half-integer (255 is odd), far more than either side's rounding error.
// Its q (odd sectors) and t (even ones) are v - round(v * s * w / 65025)
// with w = m and 255 - m: the product is below 2^24, exact in float, and
// its quotient in float within 3e-5 of the exact value, itself never a
// half-integer. hsv2rgb's float and double roundings move its q and t by up
// to 5e-5, so where the exact value is that near a half-integer (2,262 of
// the 2^24 (h, s, v)) the argument alone does not settle it; the float
// quotient rounds as hsv2rgb does there too, on every one (an enumeration
// of all (h, s, v) when this was written; testing:color_matrix_test with
// FUSEDNORM_EXHAUSTIVE=1 goes over every (h, s, v) hsv2rgb meets).
HWY_INLINE void HsvToRgb(VI h, VI s, VI v, VI& r, VI& g, VI& b) {
  const DI di;
  const DF df;
  const VI h6 = hn::Mul(h, hn::Set(di, 6));
  const VI i = hn::ShiftRight<8>(
      hn::Add(hn::Add(h6, hn::Set(di, 1)), hn::ShiftRight<8>(h6)));
  const VI m = hn::Sub(h6, hn::Mul(i, hn::Set(di, 255)));
  const VI odd = hn::And(i, hn::Set(di, 1));
  const VI vs = hn::Mul(v, s);
  const VI p = hn::Sub(
      v, Nearest(hn::Mul(hn::ConvertTo(df, vs), hn::Set(df, 1.0f / 255))));
  const VI w = hn::IfThenElse(hn::Ne(odd, hn::Zero(di)), m,
                              hn::Sub(hn::Set(di, 255), m));
  const VF y =
      hn::Mul(hn::ConvertTo(df, hn::Mul(vs, w)), hn::Set(df, 1.0f / 65025));
  const VI z = hn::Sub(v, Nearest(y));
  // Sector i % 6 (6 only for h = 255, where it means 0): r is v, z, p in
  // sectors {0, 5, 6}, {1, 4}, {2, 3}; g is z, v, p in {0, 3, 6}, {1, 2},
  // {4, 5}; b is p, z, v in {0, 1, 6}, {2, 5}, {3, 4}. Grey pixels (s = 0)
  // have p = z = v, as hsv2rgb's special case gives them.
  const VI bit = hn::Shl(hn::Set(di, 1), i);
  r = hn::IfThenElse(InSectors(bit, 2, 3), p,
                     hn::IfThenElse(InSectors(bit, 1, 4), z, v));
  g = hn::IfThenElse(InSectors(bit, 1, 2), v,
                     hn::IfThenElse(InSectors(bit, 4, 5), p, z));
  b = hn::IfThenElse(InSectors(bit, 3, 4), v,
                     hn::IfThenElse(InSectors(bit, 2, 5), z, p));
}

template <int kC>
HWY_INLINE void ApplyStep(const ColorStep& step, VI& r, VI& g, VI& b, VI& a) {
  const DI di;
  const VF alpha = hn::Set(DF(), step.alpha);
  switch (step.kind) {
    case ColorStep::Kind::kBlendConstant: {
      const VI d = hn::Set(di, step.degenerate);
      r = Blend(r, d, alpha);
      if constexpr (kC > 1) {
        g = Blend(g, d, alpha);
        b = Blend(b, d, alpha);
      }
      return;
    }
    case ColorStep::Kind::kBlendGray:
      if constexpr (kC > 1) {
        const VI l = Luma(r, g, b);
        if (step.alpha >= 0.0f && step.alpha <= 1.0f) {
          r = Blend<false>(r, l, alpha);
          g = Blend<false>(g, l, alpha);
          b = Blend<false>(b, l, alpha);
        } else {
          r = Blend(r, l, alpha);
          g = Blend(g, l, alpha);
          b = Blend(b, l, alpha);
        }
      }
      return;
    case ColorStep::Kind::kHue:
      if constexpr (kC > 1) {
        VI h, s, v;
        HueSaturation(r, g, b, h, s, v);
        h = hn::And(hn::Add(h, hn::Set(di, step.shift)), hn::Set(di, 255));
        HsvToRgb(h, s, v, r, g, b);
        if constexpr (kC == 4) a = hn::Set(di, 255);
      }
      return;
  }
}

template <int kC>
int64_t AdjustVectors(const uint8_t* in, uint8_t* out, int64_t pixels,
                      const ColorStep* steps, int count, uint64_t* luma_sum) {
  const DI di;
  const int64_t N = static_cast<int64_t>(hn::Lanes(di));
  VI sum = hn::Zero(di);
  int64_t i = 0;
  // Two vectors at a time: their steps are independent, so the CPU can run
  // one's long chains (the divisions) beside the other's.
  VI xr, xg, xb, xa, yr, yg, yb, ya;
  for (; i + 2 * N <= pixels; i += 2 * N) {
    LoadPixels<kC>(in + i * kC, xr, xg, xb, xa);
    LoadPixels<kC>(in + (i + N) * kC, yr, yg, yb, ya);
    for (int k = 0; k < count; ++k) {
      ApplyStep<kC>(steps[k], xr, xg, xb, xa);
      ApplyStep<kC>(steps[k], yr, yg, yb, ya);
    }
    StorePixels<kC>(xr, xg, xb, xa, out + i * kC);
    StorePixels<kC>(yr, yg, yb, ya, out + (i + N) * kC);
    if (luma_sum != nullptr) {
      sum =
          hn::Add(sum, hn::Add(LumaOf<kC>(xr, xg, xb), LumaOf<kC>(yr, yg, yb)));
    }
  }
  for (; i + N <= pixels; i += N) {
    LoadPixels<kC>(in + i * kC, xr, xg, xb, xa);
    for (int k = 0; k < count; ++k) {
      ApplyStep<kC>(steps[k], xr, xg, xb, xa);
    }
    StorePixels<kC>(xr, xg, xb, xa, out + i * kC);
    if (luma_sum != nullptr) sum = hn::Add(sum, LumaOf<kC>(xr, xg, xb));
  }
  // A call has at most kMaxColorPixels: each lane's sum stays below 2^31.
  if (luma_sum != nullptr) {
    *luma_sum += static_cast<uint64_t>(hn::GetLane(hn::SumOfLanes(di, sum)));
  }
  return i;
}

// The steps in registers: whole vectors here, the rest of the row by the
// scalar row.
void AdjustInRegisters(const uint8_t* in, uint8_t* out, int64_t pixels,
                       int channels, const ColorStep* steps, int count,
                       uint64_t* luma_sum) {
  int64_t done = 0;
  if (channels == 1) {
    done = AdjustVectors<1>(in, out, pixels, steps, count, luma_sum);
  } else if (channels == 3) {
    done = AdjustVectors<3>(in, out, pixels, steps, count, luma_sum);
  } else if (channels == 4) {
    done = AdjustVectors<4>(in, out, pixels, steps, count, luma_sum);
  }
  ScalarColorInfo().adjust(in + done * channels, out + done * channels,
                           pixels - done, channels, steps, count, luma_sum);
}

#if HWY_TARGET == HWY_AVX3_DL

// A function of a byte as a table, in four vectors of 64 entries.
struct ByteTable {
  __m512i part[4];
};

// The constant blends steps[0 .. count - 1] of a byte, tabulated by the
// SIMD row on the 256 values as a row of L pixels.
ByteTable TabulateBlends(const ColorStep* steps, int count) {
  alignas(64) uint8_t values[256];
  alignas(64) uint8_t table[256];
  for (int v = 0; v < 256; ++v) values[v] = static_cast<uint8_t>(v);
  AdjustInRegisters(values, table, 256, 1, steps, count, nullptr);
  ByteTable t;
  for (int k = 0; k < 4; ++k) t.part[k] = _mm512_load_si512(table + 64 * k);
  return t;
}

// out[i] = t[in[i]] for `bytes` bytes, 64 at a time (the last vector
// masked), keeping every 4th byte (alpha) of 4-channel pixels.
void LookUp(const ByteTable& t, const uint8_t* in, uint8_t* out, int64_t bytes,
            int channels) {
  const __mmask64 alpha = channels == 4 ? 0x8888888888888888ull : 0;
  for (int64_t i = 0; i < bytes; i += 64) {
    const int64_t n = bytes - i;
    const __mmask64 m = n >= 64 ? ~0ull : (1ull << n) - 1;
    const __m512i x = _mm512_maskz_loadu_epi8(m, in + i);
    const __m512i low = _mm512_permutex2var_epi8(t.part[0], x, t.part[1]);
    const __m512i high = _mm512_permutex2var_epi8(t.part[2], x, t.part[3]);
    __m512i y = _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), low, high);
    y = _mm512_mask_blend_epi8(alpha, y, x);
    // A masked store would make the next run's load of these bytes wait.
    if (n >= 64) {
      _mm512_storeu_si512(out + i, y);
    } else {
      _mm512_mask_storeu_epi8(out + i, m, y);
    }
  }
}

// A call's steps as runs: constant blends in a row (one table) and the
// other steps between them.
struct StepRun {
  const ColorStep* steps;
  int count;
  bool table;
  ByteTable t;
};

int SplitRuns(const ColorStep* steps, int count, StepRun* runs) {
  int n = 0;
  for (int k = 0; k < count;) {
    const bool table = steps[k].kind == ColorStep::Kind::kBlendConstant;
    int end = k + 1;
    while (end < count &&
           (steps[end].kind == ColorStep::Kind::kBlendConstant) == table) {
      ++end;
    }
    runs[n].steps = steps + k;
    runs[n].count = end - k;
    runs[n].table = table;
    if (table) runs[n].t = TabulateBlends(steps + k, end - k);
    ++n;
    k = end;
  }
  return n;
}

// Pixels per chunk: each run goes over a chunk (in L1) before the next.
constexpr int64_t kChunk = 128;

// The runs over each chunk in turn: the first reads `in`, the others the
// chunk of `out` the one before wrote; the last one sums.
void AdjustInChunks(const uint8_t* in, uint8_t* out, int64_t pixels,
                    int channels, const StepRun* runs, int n,
                    uint64_t* luma_sum) {
  for (int64_t start = 0; start < pixels; start += kChunk) {
    const int64_t m = std::min(kChunk, pixels - start);
    const uint8_t* src = in + start * channels;
    uint8_t* dst = out + start * channels;
    for (int r = 0; r < n; ++r, src = dst) {
      uint64_t* sum = r + 1 == n ? luma_sum : nullptr;
      if (!runs[r].table) {
        AdjustInRegisters(src, dst, m, channels, runs[r].steps, runs[r].count,
                          sum);
        continue;
      }
      LookUp(runs[r].t, src, dst, m * channels, channels);
      if (sum != nullptr) {
        AdjustInRegisters(dst, dst, m, channels, nullptr, 0, sum);
      }
    }
  }
}

#endif  // HWY_TARGET == HWY_AVX3_DL

void Adjust(const uint8_t* in, uint8_t* out, int64_t pixels, int channels,
            const ColorStep* steps, int count, uint64_t* luma_sum) {
#if HWY_TARGET == HWY_AVX3_DL
  for (int k = 0; k < count; ++k) {
    if (steps[k].kind != ColorStep::Kind::kBlendConstant) continue;
    StepRun runs[kMaxColorSteps];
    const int n = SplitRuns(steps, count, runs);
    AdjustInChunks(in, out, pixels, channels, runs, n, luma_sum);
    return;
  }
#endif
  AdjustInRegisters(in, out, pixels, channels, steps, count, luma_sum);
}

template <int kC>
int64_t ToGrayVectors(const uint8_t* in, uint8_t* out, int64_t pixels,
                      int out_channels) {
  const DB db;
  const int64_t N = static_cast<int64_t>(hn::Lanes(db));
  int64_t i = 0;
  VI r, g, b, a;
  for (; i + N <= pixels; i += N) {
    LoadPixels<kC>(in + i * kC, r, g, b, a);
    const VI l = Luma(r, g, b);
    if (out_channels == 1) {
      hn::StoreU(Bytes(l), db, out + i);
    } else {
      StorePixels<3>(l, l, l, l, out + i * 3);
    }
  }
  return i;
}

void ToGray(const uint8_t* in, uint8_t* out, int64_t pixels, int channels,
            int out_channels) {
  const int64_t done = channels == 4
                           ? ToGrayVectors<4>(in, out, pixels, out_channels)
                           : ToGrayVectors<3>(in, out, pixels, out_channels);
  ScalarColorInfo().to_gray(in + done * channels, out + done * out_channels,
                            pixels - done, channels, out_channels);
}

#else  // HWY_SCALAR: the scalar row

void Adjust(const uint8_t* in, uint8_t* out, int64_t pixels, int channels,
            const ColorStep* steps, int count, uint64_t* luma_sum) {
  ScalarColorInfo().adjust(in, out, pixels, channels, steps, count, luma_sum);
}

void ToGray(const uint8_t* in, uint8_t* out, int64_t pixels, int channels,
            int out_channels) {
  ScalarColorInfo().to_gray(in, out, pixels, channels, out_channels);
}

#endif  // HWY_TARGET != HWY_SCALAR

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace fusednorm {

HWY_EXPORT(Adjust);
HWY_EXPORT(ToGray);

namespace {

void AdjustDynamic(const uint8_t* in, uint8_t* out, int64_t pixels,
                   int channels, const ColorStep* steps, int count,
                   uint64_t* luma_sum) {
  HWY_DYNAMIC_DISPATCH(Adjust)
  (in, out, pixels, channels, steps, count, luma_sum);
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
       &hwy_rows::ActiveTarget, &AdjustDynamic, &ToGrayDynamic},
  };
  hwy_rows::ForEachCompiledTarget([&rows](auto bit) {
    constexpr int kBit = decltype(bit)::value;
    const size_t index = hwy_rows::TableIndex(int64_t{1} << kBit);
    rows.push_back(
        {hwy_rows::TargetText<kBit>(true), hwy_rows::TargetText<kBit>(false),
         10, &hwy_rows::TargetSupported<kBit>, &hwy_rows::TargetName<kBit>,
         HWY_DISPATCH_TABLE(Adjust)[index], HWY_DISPATCH_TABLE(ToGray)[index]});
  });
  return rows;
}

}  // namespace fusednorm
#endif  // HWY_ONCE
