// Packing 4-byte pixels into 3-byte ones: the fourth byte of each pixel is
// dropped. Pillow keeps RGB images as RGBX rows; the fused op reads packed
// RGB. The op's variants are rows of the kernel registry
// (kernels/registry.h): "scalar" and "highway" (the best Highway target this
// CPU runs); FUSEDNORM_PACK_KERNEL forces one.
#ifndef FUSEDNORM_KERNELS_PACK_PIXELS_H_
#define FUSEDNORM_KERNELS_PACK_PIXELS_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "kernels/registry.h"

namespace fusednorm {

// Reads 4 * pixels bytes from `src` and writes 3 * pixels bytes to `dst`,
// nothing outside either; the ranges must not overlap.
using PackPixelsFn = void (*)(const uint8_t* src, size_t pixels, uint8_t* dst);

struct PackPixelsInfo {
  const char* id;
  const char* needs;
  int priority;
  bool (*supported)();
  const char* (*target)();
  PackPixelsFn fn;
};

// The registry of the packing's variants.
const KernelRegistry<PackPixelsInfo>& PackPixelsKernels();

// The variant used when none is named (FUSEDNORM_PACK_KERNEL, else the
// best supported), chosen once; errors as KernelRegistry::Forced.
absl::StatusOr<PackPixelsFn> DefaultPackPixels();

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_PACK_PIXELS_H_
