// The output formats' rules, each in one place:
//
// - float32 to float16 / bfloat16 bits, rounding to nearest even, and back;
// - where element (c, h, w) of an output layout is stored;
// - which rows and pixels an erase rectangle covers.
//
// Kernels, ops, tools and benchmarks share these. The independent reference
// in testing/ keeps its own versions on purpose, and its tests check these
// against it.
//
// Every function here is `static inline`: each translation unit that does not
// inline one keeps a private copy. A kernel body built with ISA flags
// (x86_f16c_body.cc) must not leave a shared (weak) copy of a header function,
// which the linker could hand to baseline callers on CPUs without those
// instructions; x86_f16c_isolation_test checks its archive for such symbols.
#ifndef FUSEDNORM_KERNELS_FORMATS_H_
#define FUSEDNORM_KERNELS_FORMATS_H_

#include <cstdint>
#include <cstring>

#include "kernels/kernel.h"

namespace fusednorm {

// Returns the float16 bits of `f`, rounded to nearest even (what torch's
// .half() and F16C's vcvtps2ph give); overflow gives infinity, any NaN
// the quiet NaN 0x7E00 (whose sign and payload no rule fixes: a sum of
// two NaNs keeps whichever the compiler put first).
static inline uint16_t FloatToHalfBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint32_t sign = u & 0x80000000u;
  u ^= sign;
  uint32_t h;
  if (u > 0x7F800000u) return 0x7E00u;
  if (u >= 0x47800000u) {  // >= 2^16: infinity (65520 up reach it below)
    h = 0x7C00u;
  } else if (u < 0x38800000u) {
    // Below 2^-14 (subnormal or zero): adding 0.5f lines the half's last bit
    // up with the float's, and the float addition rounds to nearest even.
    float a;
    std::memcpy(&a, &u, 4);
    a += 0.5f;
    std::memcpy(&h, &a, 4);
    h -= 0x3F000000u;
  } else {
    // Rebias the exponent ((15 - 127) << 23), add 0xfff plus the lowest kept
    // bit, and shift: ties go to the even neighbour.
    h = (u + 0xC8000FFFu + ((u >> 13) & 1u)) >> 13;
  }
  return static_cast<uint16_t>(h | (sign >> 16));
}

// Returns the bfloat16 bits of `f`, rounded to nearest even (torch's
// .bfloat16()); a NaN gives torch's 0x7FC0.
static inline uint16_t FloatToBFloat16Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0u;
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// Returns the float value of float16 bits `h` (exact: every half is a float).
static inline float HalfBitsToFloat(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
  uint32_t u;
  if (exp == 0x1F) {
    u = sign | 0x7F800000u | (mant << 13);  // infinity or NaN
  } else if (exp != 0) {
    u = sign | ((exp + 112) << 23) | (mant << 13);  // 112 = 127 - 15
  } else {
    // Zero or subnormal: mant * 2^-24, exact in float.
    float v = static_cast<float>(mant) * (1.0f / 16777216.0f);
    std::memcpy(&u, &v, 4);
    u |= sign;
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Returns the float value of bfloat16 bits `b`.
static inline float BFloat16BitsToFloat(uint16_t b) {
  const uint32_t u = uint32_t{b} << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Returns the element index (not bytes) of value (c, h, w) in a compact
// `layout` output of height x width with `channels` image channels.
static inline int64_t OutputIndex(Layout layout, int64_t height, int64_t width,
                                  int channels, int c, int64_t h, int64_t w) {
  if (layout == Layout::kCHW) return (c * height + h) * width + w;
  return (h * width + w) * StoredChannels(layout, channels) + c;
}

// Returns whether the erase rectangle covers any pixel of output row `h`.
static inline bool ErasesRow(const EraseRect& r, int64_t h) {
  return !r.empty() && h >= r.top && h < r.top + r.height;
}

// Returns whether the erase rectangle covers output pixel (h, w).
static inline bool ErasesPixel(const EraseRect& r, int64_t h, int64_t w) {
  return ErasesRow(r, h) && w >= r.left && w < r.left + r.width;
}

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_FORMATS_H_
