// The x86_f16c kernel body, the only code in fusednorm compiled with
// -msse4.1 -mf16c (F16C implies AVX, so the compiler emits VEX encodings
// anywhere in this file). Nothing here may run before X86F16cKernelInfo()'s
// supported() check: the dispatch table calls X86F16cRun only through that
// row. Everything but X86F16cRun has internal linkage, so no inline function
// compiled here can stand in for a baseline copy of it at link time
// (x86_f16c_isolation_test checks the archive for such symbols).
#include "kernels/x86_f16c/x86_f16c_body.h"

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/formats.h"

namespace fusednorm {
namespace {

// Per-lane constants for output values in processing order: lane i of the
// vector at phase p belongs to channel (p + i) % period, or is a pad lane.
struct Lanes {
  __m128 a[4];  // fast: mul; exact: mean
  __m128 b[4];  // fast: sub; exact: std
};

Lanes MakeLanes(const KernelConstants& k, int C, int period) {
  Lanes l;
  for (int p = 0; p < period; ++p) {
    alignas(16) float a[4], b[4];
    for (int i = 0; i < 4; ++i) {
      const int c = (4 * p + i) % period;  // vector p starts at element 4p
      const bool pad = c >= C;
      if (k.mode == Mode::kFast) {
        a[i] = pad ? 0.0f : k.mul[c];
        b[i] = pad ? 0.0f : k.sub[c];
      } else {
        a[i] = pad ? 0.0f : k.mean[c];
        b[i] = pad ? 1.0f : k.std[c];
      }
    }
    l.a[p] = _mm_load_ps(a);
    l.b[p] = _mm_load_ps(b);
  }
  return l;
}

template <Mode kMode>
inline __m128 Normalize(__m128i bytes4, __m128 a, __m128 b) {
  const __m128 x = _mm_cvtepi32_ps(_mm_cvtepu8_epi32(bytes4));
  if (kMode == Mode::kFast) return _mm_sub_ps(_mm_mul_ps(x, a), b);
  const __m128 t = _mm_div_ps(x, _mm_set1_ps(255.0f));
  return _mm_div_ps(_mm_sub_ps(t, a), b);
}

// Bytes 4q.. of v moved to the bottom (the shift count must be a constant).
inline __m128i Shift4(__m128i v, int q) {
  switch (q) {
    case 0:
      return v;
    case 1:
      return _mm_srli_si128(v, 4);
    case 2:
      return _mm_srli_si128(v, 8);
    default:
      return _mm_srli_si128(v, 12);
  }
}

// Byte shuffles for a block of 4 output pixels read from 4 * C input bytes,
// reversed when flipped. `block` expands them to `stored` bytes per pixel
// (float32 HWC). pixel[q] puts output pixel q's channels into the low bytes of
// four 32-bit lanes, zero-extended (float16 HWC4: the widening is the shuffle).
struct Shuffles {
  __m128i block;
  __m128i pixel[4];
};

Shuffles MakeShuffles(int C, int stored, bool flip) {
  Shuffles s;
  alignas(16) int8_t idx[16];
  for (int i = 0; i < 16; ++i) idx[i] = -128;  // zero byte
  for (int q = 0; q < 4; ++q) {
    const int p = flip ? 3 - q : q;
    for (int c = 0; c < C; ++c)
      idx[q * stored + c] = static_cast<int8_t>(p * C + c);
  }
  s.block = _mm_load_si128(reinterpret_cast<const __m128i*>(idx));
  for (int q = 0; q < 4; ++q) {
    const int p = flip ? 3 - q : q;
    for (int i = 0; i < 16; ++i) idx[i] = -128;
    for (int c = 0; c < C; ++c) idx[4 * c] = static_cast<int8_t>(p * C + c);
    s.pixel[q] = _mm_load_si128(reinterpret_cast<const __m128i*>(idx));
  }
  return s;
}

// float16 HWC4: two pixels (8 values) as one 256-bit vector, normalized with
// the per-lane constants of a pixel (the same for both), narrowed with one
// VCVTPS2PH.
template <Mode kMode>
inline __m128i TwoPixelsToHalf(__m128i bytes_in, __m128i px0, __m128i px1,
                               const Lanes& l) {
  const __m256i lanes = _mm256_insertf128_si256(
      _mm256_castsi128_si256(_mm_shuffle_epi8(bytes_in, px0)),
      _mm_shuffle_epi8(bytes_in, px1), 1);
  const __m256 x = _mm256_cvtepi32_ps(lanes);
  const __m256 a = _mm256_set_m128(l.a[0], l.a[0]);
  const __m256 b = _mm256_set_m128(l.b[0], l.b[0]);
  __m256 y;
  if (kMode == Mode::kFast) {
    y = _mm256_sub_ps(_mm256_mul_ps(x, a), b);
  } else {
    const __m256 t = _mm256_div_ps(x, _mm256_set1_ps(255.0f));
    y = _mm256_div_ps(_mm256_sub_ps(t, a), b);
  }
  return _mm256_cvtps_ph(y, _MM_FROUND_TO_NEAREST_INT);
}

// Loads exactly 4 * C bytes into the low bytes of a register (the rest zero),
// with register-sized loads only: a byte-wise copy through memory would stall
// the 16-byte reload on store forwarding.
template <int C>
inline __m128i LoadExact(const uint8_t* p) {
  if (C == 4) return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  if (C == 2) return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  int32_t last;
  std::memcpy(&last, p + 4 * C - 4, 4);
  if (C == 1) return _mm_cvtsi32_si128(last);
  return _mm_insert_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)),
                          last, 2);
}

// Normalizes one block of 4 output pixels (their input bytes in `bytes_in`, in
// input order) and stores its 4 * stored values at `dst` (unaligned).
template <int C, bool kHalf, Mode kMode>
inline void Block(__m128i bytes_in, const Shuffles& s, const Lanes& l,
                  uint8_t* dst) {
  if (kHalf) {
    for (int q = 0; q < 4; q += 2) {  // one pixel = 4 lanes = 4 halfs
      _mm_storeu_si128(
          reinterpret_cast<__m128i*>(dst + 8 * q),
          TwoPixelsToHalf<kMode>(bytes_in, s.pixel[q], s.pixel[q + 1], l));
    }
  } else {
    const __m128i bytes = _mm_shuffle_epi8(bytes_in, s.block);
    for (int p = 0; p < C; ++p) {  // vector p: values 4p..4p+3 of the block
      _mm_storeu_ps(reinterpret_cast<float*>(dst) + 4 * p,
                    Normalize<kMode>(Shift4(bytes, p), l.a[p], l.b[p]));
    }
  }
}

// One row, in blocks of 4 output pixels. A block's input bytes (exactly 4 * C
// of them) are loaded with a fixed-size copy, so no load passes the row's end;
// the row's last, partial block goes through a zero-padded copy in and a
// partial copy out.
template <int C, bool kHalf, Mode kMode>
void Row(const uint8_t* in_row, int64_t W, bool flip, const Shuffles& shuffle,
         const Lanes& l, uint8_t* out_row) {
  constexpr int stored = kHalf ? 4 : C;
  constexpr int block_bytes = 4 * stored * (kHalf ? 2 : 4);
  int64_t w0 = 0;
  for (; w0 + 4 <= W; w0 += 4) {
    // Output pixels w0..w0+3 read input pixels w0.. or, flipped, W-w0-4..
    // reversed.
    const uint8_t* src = in_row + (flip ? W - w0 - 4 : w0) * C;
    const __m128i bytes = LoadExact<C>(src);
    Block<C, kHalf, kMode>(bytes, shuffle, l, out_row + w0 / 4 * block_bytes);
  }
  if (w0 == W) return;
  alignas(16) uint8_t buf[16] = {};
  const int64_t n = W - w0;
  for (int64_t q = 0; q < n;
       ++q) {  // placed where a full block would have them
    const int64_t src = flip ? W - 1 - (w0 + q) : w0 + q;
    std::memcpy(buf + (flip ? 3 - q : q) * C, in_row + src * C, C);
  }
  alignas(16) uint8_t tmp[block_bytes];
  Block<C, kHalf, kMode>(_mm_load_si128(reinterpret_cast<const __m128i*>(buf)),
                         shuffle, l, tmp);
  std::memcpy(out_row + w0 / 4 * block_bytes, tmp, n * block_bytes / 4);
}

template <int C, bool kHalf, Mode kMode>
void Image(const KernelConstants& k, const KernelArgs& a) {
  constexpr int stored = kHalf ? 4 : C;
  const size_t esize = kHalf ? 2 : 4;
  const Lanes l = MakeLanes(k, C, stored);
  const Shuffles shuffle = MakeShuffles(C, stored, a.flip);
  const size_t row_bytes = a.width * stored * esize;
  for (int64_t h = 0; h < a.height; ++h) {
    uint8_t* out_row = static_cast<uint8_t*>(a.output) + h * row_bytes;
    Row<C, kHalf, kMode>(a.input + h * a.input_row_stride, a.width, a.flip,
                         shuffle, l, out_row);
    if (ErasesRow(a.erase, h)) {
      // The erased span of this row, while it is still in L1.
      std::memset(out_row + a.erase.left * stored * esize, 0,
                  a.erase.width * stored * esize);
    }
  }
}

template <bool kHalf, Mode kMode>
void ByChannels(const KernelConstants& k, const KernelArgs& a) {
  switch (a.channels) {
    case 1:
      return Image<1, kHalf, kMode>(k, a);
    case 2:
      return Image<2, kHalf, kMode>(k, a);
    case 3:
      return Image<3, kHalf, kMode>(k, a);
    default:
      return Image<4, kHalf, kMode>(k, a);
  }
}

}  // namespace

void X86F16cRun(const KernelConstants& k, const KernelArgs& a) {
  const bool half = k.dtype == DType::kFloat16;
  if (k.mode == Mode::kFast) {
    half ? ByChannels<true, Mode::kFast>(k, a)
         : ByChannels<false, Mode::kFast>(k, a);
  } else {
    half ? ByChannels<true, Mode::kTorchvisionExact>(k, a)
         : ByChannels<false, Mode::kTorchvisionExact>(k, a);
  }
}

}  // namespace fusednorm
