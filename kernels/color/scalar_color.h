// The scalar colour row: Pillow's C transcribed (color_kernel.h), the row
// every other row is tested against.
#ifndef FUSEDNORM_KERNELS_COLOR_SCALAR_COLOR_H_
#define FUSEDNORM_KERNELS_COLOR_SCALAR_COLOR_H_

#include <cstdint>

#include "kernels/color/color_kernel.h"

namespace fusednorm {

ColorKernelInfo ScalarColorInfo();

// Blend.c's value of Image.blend(degenerate, image, alpha) for degenerate
// value d and image value x: d + alpha * (x - d) in float, clamped to
// 0..255 outside alpha in [0, 1], truncated.
uint8_t ScalarBlendValue(uint8_t d, uint8_t x, float alpha);

// hsv2rgb's per-hue and per-saturation parts: the sector i =
// floor(h * 6.0 / 255.0) and its remainder f (a float), and fs = s / 255.0
// as a float.
void ScalarHueSector(uint8_t h, int* i, float* f);
float ScalarSaturationFraction(uint8_t s);

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_COLOR_SCALAR_COLOR_H_
