// Pixels to and from int32 lanes, and float lanes back to int32, as the
// colour rows (highway_color.cc) need them, cheaper than Highway's generic
// operations where x86 has the instructions for it:
//
//   LoadRgb / StoreRgb   a vector of RGB pixels as three int32 channel
//                        vectors. AVX3_DL: one masked load and three VBMI
//                        byte permutes of 48 bytes; AVX2: two 16-byte loads
//                        and three in-lane byte shuffles of 24 bytes. The
//                        generic path de-interleaves three byte vectors
//                        and widens each. Stores write exactly the pixels'
//                        bytes, with unmasked stores: a masked store makes
//                        a following load of nearby bytes wait for it.
//   Truncate / Nearest   float -> int32 of values known to lie in int32's
//                        range: on x86 the conversion instruction alone,
//                        without the fix-up for overflowing values that
//                        Highway's ConvertTo and NearestInt add.
//
// A per-target part: highway_color.cc includes it inside no namespace; the
// toggling guard lets each target's pass through foreach_target.h compile
// it again.

// Per-target include guard.
#if defined(FUSEDNORM_KERNELS_COLOR_RGB_LANES_INL_H_) == \
    defined(HWY_TARGET_TOGGLE)
#ifdef FUSEDNORM_KERNELS_COLOR_RGB_LANES_INL_H_
#undef FUSEDNORM_KERNELS_COLOR_RGB_LANES_INL_H_
#else
#define FUSEDNORM_KERNELS_COLOR_RGB_LANES_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR

namespace rgb_lanes {

using DI = hn::ScalableTag<int32_t>;
using DF = hn::Rebind<float, DI>;
using VI = hn::Vec<DI>;
using VF = hn::Vec<DF>;

// Whether LoadRgb and StoreRgb have their own x86 code on this target.
constexpr bool kShuffled = HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX2;

// Byte indices for one vector of pixels: index[c] puts byte c of pixel i
// into the low byte of lane i, zero elsewhere (c < 3); index[3] packs the
// low three bytes of each lane back into three bytes per pixel. AVX3_DL
// indexes the whole 64-byte vector; AVX2 each 16-byte half, the high half
// holding bytes 8..23 of the pixels (so pixel 4 + i starts at 3i + 4).
struct Indices {
  alignas(64) uint8_t index[4][64];
};

constexpr uint8_t kZero = 0x80;  // a shuffle index that gives 0 on AVX2

constexpr Indices MakeIndices() {
  Indices t{};
  for (int k = 0; k < 4; ++k) {
    for (int j = 0; j < 64; ++j) t.index[k][j] = kZero;
  }
  const bool avx2 = HWY_TARGET == HWY_AVX2;
  const int pixels = avx2 ? 8 : 16;
  for (int i = 0; i < pixels; ++i) {
    // AVX2: lane i is in half i / 4, whose bytes start at pixel byte 8.
    const int half = avx2 ? i / 4 : 0;
    const int lane_byte = avx2 ? 4 * (i % 4) : 4 * i;
    const int pixel_byte = avx2 ? 3 * i - 8 * half : 3 * i;
    for (int c = 0; c < 3; ++c) {
      t.index[c][16 * half + lane_byte] = static_cast<uint8_t>(pixel_byte + c);
      // Packed: AVX2 packs each half's four pixels into its low 12 bytes.
      const int packed = avx2 ? 3 * (i % 4) : 3 * i;
      t.index[3][16 * half + packed + c] = static_cast<uint8_t>(lane_byte + c);
    }
  }
  return t;
}

constexpr Indices kIndices = MakeIndices();

}  // namespace rgb_lanes

HWY_INLINE rgb_lanes::VI Truncate(rgb_lanes::VF v) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  return rgb_lanes::VI{_mm512_cvttps_epi32(v.raw)};
#elif HWY_TARGET == HWY_AVX2
  return rgb_lanes::VI{_mm256_cvttps_epi32(v.raw)};
#elif HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_SSSE3
  return rgb_lanes::VI{_mm_cvttps_epi32(v.raw)};
#else
  return hn::ConvertTo(rgb_lanes::DI(), v);
#endif
}

HWY_INLINE rgb_lanes::VI Nearest(rgb_lanes::VF v) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  return rgb_lanes::VI{_mm512_cvtps_epi32(v.raw)};
#elif HWY_TARGET == HWY_AVX2
  return rgb_lanes::VI{_mm256_cvtps_epi32(v.raw)};
#elif HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_SSSE3
  return rgb_lanes::VI{_mm_cvtps_epi32(v.raw)};
#else
  return hn::NearestInt(v);
#endif
}

#if HWY_TARGET == HWY_AVX3_DL

HWY_INLINE __m512i RgbIndex(int k) {
  return _mm512_load_si512(rgb_lanes::kIndices.index[k]);
}

// Only called where kShuffled.
HWY_INLINE void LoadRgb(const uint8_t* p, rgb_lanes::VI& r, rgb_lanes::VI& g,
                        rgb_lanes::VI& b) {
  constexpr __mmask64 kLaneLowBytes = 0x1111111111111111ull;
  const __m512i x = _mm512_maskz_loadu_epi8((__mmask64{1} << 48) - 1, p);
  r = {_mm512_maskz_permutexvar_epi8(kLaneLowBytes, RgbIndex(0), x)};
  g = {_mm512_maskz_permutexvar_epi8(kLaneLowBytes, RgbIndex(1), x)};
  b = {_mm512_maskz_permutexvar_epi8(kLaneLowBytes, RgbIndex(2), x)};
}

// r, g and b hold bytes (0..255).
HWY_INLINE void StoreRgb(rgb_lanes::VI r, rgb_lanes::VI g, rgb_lanes::VI b,
                         uint8_t* p) {
  const rgb_lanes::VI rgb =
      hn::Or(r, hn::Or(hn::ShiftLeft<8>(g), hn::ShiftLeft<16>(b)));
  const __m512i bytes = _mm512_permutexvar_epi8(RgbIndex(3), rgb.raw);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p),
                      _mm512_castsi512_si256(bytes));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p + 32),
                   _mm512_extracti32x4_epi32(bytes, 2));
}

#elif HWY_TARGET == HWY_AVX2

HWY_INLINE __m256i RgbIndex(int k) {
  return _mm256_load_si256(
      reinterpret_cast<const __m256i*>(rgb_lanes::kIndices.index[k]));
}

// Only called where kShuffled.
HWY_INLINE void LoadRgb(const uint8_t* p, rgb_lanes::VI& r, rgb_lanes::VI& g,
                        rgb_lanes::VI& b) {
  const __m256i x = _mm256_inserti128_si256(
      _mm256_castsi128_si256(
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(p))),
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 8)), 1);
  r = {_mm256_shuffle_epi8(x, RgbIndex(0))};
  g = {_mm256_shuffle_epi8(x, RgbIndex(1))};
  b = {_mm256_shuffle_epi8(x, RgbIndex(2))};
}

// r, g and b hold bytes (0..255).
HWY_INLINE void StoreRgb(rgb_lanes::VI r, rgb_lanes::VI g, rgb_lanes::VI b,
                         uint8_t* p) {
  const rgb_lanes::VI rgb =
      hn::Or(r, hn::Or(hn::ShiftLeft<8>(g), hn::ShiftLeft<16>(b)));
  // Each half's 12 bytes at its start, then the halves' first three
  // 32-bit words side by side: 24 bytes.
  const __m256i halves = _mm256_shuffle_epi8(rgb.raw, RgbIndex(3));
  const __m256i bytes = _mm256_permutevar8x32_epi32(
      halves, _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p),
                   _mm256_castsi256_si128(bytes));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(p + 16),
                   _mm256_extracti128_si256(bytes, 1));
}

#else

// Not called: kShuffled is false.
HWY_INLINE void LoadRgb(const uint8_t*, rgb_lanes::VI&, rgb_lanes::VI&,
                        rgb_lanes::VI&) {}
HWY_INLINE void StoreRgb(rgb_lanes::VI, rgb_lanes::VI, rgb_lanes::VI,
                         uint8_t*) {}

#endif

#endif  // HWY_TARGET != HWY_SCALAR

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
