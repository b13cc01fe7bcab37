// The augment dispatch table (augment_dispatch.h).
#include "kernels/augment/augment_dispatch.h"

#include <utility>
#include <vector>

#include "kernels/augment/highway_augment.h"
#include "kernels/augment/scalar_augment.h"

namespace fusednorm {

const KernelRegistry<AugmentKernelInfo>& AugmentKernels() {
  // Building the table runs baseline code only.
  static const auto* registry = [] {
    std::vector<AugmentKernelInfo> rows = {ScalarAugmentInfo()};
    for (const AugmentKernelInfo& row : HighwayAugmentInfos()) {
      rows.push_back(row);
    }
    return new KernelRegistry<AugmentKernelInfo>(
        "augment kernel", "FUSEDNORM_AUGMENT_KERNEL", std::move(rows));
  }();
  return *registry;
}

absl::StatusOr<const AugmentKernelInfo*> SelectAugmentKernel(
    absl::string_view id) {
  return AugmentKernels().Select(
      id, [](const AugmentKernelInfo&) { return true; }, "augment ops");
}

}  // namespace fusednorm
