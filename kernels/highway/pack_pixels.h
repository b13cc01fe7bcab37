// Packing 4-byte pixels into 3-byte ones: the fourth byte of each pixel is
// dropped. Pillow keeps RGB images as RGBX rows; the op reads packed RGB.
// Runs the best Highway target this CPU supports (dynamic dispatch: the
// baseline code here never executes another target's instructions).
#ifndef FUSEDNORM_KERNELS_HIGHWAY_PACK_PIXELS_H_
#define FUSEDNORM_KERNELS_HIGHWAY_PACK_PIXELS_H_

#include <cstddef>
#include <cstdint>

namespace fusednorm {

// Reads 4 * pixels bytes from `src` and writes 3 * pixels bytes to `dst`,
// nothing outside either; the ranges must not overlap.
void PackRgbxToRgb(const uint8_t* src, size_t pixels, uint8_t* dst);

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_HIGHWAY_PACK_PIXELS_H_
