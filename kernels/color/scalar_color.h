// The scalar colour row: Pillow's C transcribed (color_kernel.h), the row
// every other row is tested against.
#ifndef FUSEDNORM_KERNELS_COLOR_SCALAR_COLOR_H_
#define FUSEDNORM_KERNELS_COLOR_SCALAR_COLOR_H_

#include <cstdint>

#include "kernels/color/color_kernel.h"

namespace fusednorm {

ColorKernelInfo ScalarColorInfo();

// One pixel through Pillow's rgb2hsv_row and hsv2rgb (3 bytes each), for
// tests of the conversion itself.
void ScalarRgbToHsv(const uint8_t* rgb, uint8_t* hsv);
void ScalarHsvToRgb(const uint8_t* hsv, uint8_t* rgb);

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_COLOR_SCALAR_COLOR_H_
