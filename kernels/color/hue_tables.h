// A table that turns the hue byte of Pillow's RGB -> HSV (color_kernel.h)
// into a lookup for the SIMD rows, made once from the scalar row's own
// function.
//
// rgb2hsv_row's hue byte depends on which channel is the maximum, which is
// the minimum (Pillow's tie order: r before g before b), the range
// cr = max - min and the distance d = max - mid of the third channel, and
// on nothing else: the one quotient it divides for is d / cr (the other
// two are cr / cr = 1 or 0), so each of the six cases is a table over
// (cr, d <= cr). testing:color_matrix_test checks the rows built on this
// over every 24-bit colour.
#ifndef FUSEDNORM_KERNELS_COLOR_HUE_TABLES_H_
#define FUSEDNORM_KERNELS_COLOR_HUE_TABLES_H_

#include <cstdint>

namespace fusednorm {

// Entries of one triangle table over (a, b <= a), a and b in 0..255:
// entry a * (a + 1) / 2 + b.
inline constexpr int kHueTriangle = 256 * 257 / 2;

struct HueTables {
  // The hue byte of case k (0..5) at entry k * kHueTriangle + the (cr, d)
  // triangle entry. Cases, with mid the third channel:
  //   0: r max, b min (mid g)   1: r max, g min, b above it (mid b)
  //   2: g max, b min (mid r)   3: g max, r min, b above it (mid b)
  //   4: b max, r min (mid g)   5: b max, g min, r above it (mid r)
  // Four bytes of padding: the rows gather 32 bits at a byte offset.
  uint8_t hue[6 * kHueTriangle + 4];
};

// The tables, made on first use (thread-safe) and kept for the process.
const HueTables& GetHueTables();

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_COLOR_HUE_TABLES_H_
