// The packing's rows (pack_pixels.h): a scalar reference and Highway.
#include "kernels/pack_pixels.h"

#include <cstring>
#include <vector>

#include "kernels/highway/pack_pixels.h"

namespace fusednorm {
namespace {

void PackScalar(const uint8_t* src, size_t pixels, uint8_t* dst) {
  for (size_t p = 0; p < pixels; ++p) std::memcpy(dst + 3 * p, src + 4 * p, 3);
}

bool Always() { return true; }

}  // namespace

const KernelRegistry<PackPixelsInfo>& PackPixelsKernels() {
  static const auto* registry = new KernelRegistry<PackPixelsInfo>(
      "pack kernel", "FUSEDNORM_PACK_KERNEL",
      {{"scalar", "any CPU", 0, &Always, nullptr, &PackScalar},
       HighwayPackPixelsInfo()});
  return *registry;
}

absl::StatusOr<PackPixelsFn> DefaultPackPixels() {
  absl::StatusOr<const PackPixelsInfo*> row = PackPixelsKernels().Default();
  if (!row.ok()) return row.status();
  return (*row)->fn;
}

}  // namespace fusednorm
