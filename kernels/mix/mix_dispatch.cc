// The mix dispatch table (mix_dispatch.h).
#include "kernels/mix/mix_dispatch.h"

#include <utility>
#include <vector>

#include "kernels/mix/highway_mix.h"
#include "kernels/mix/scalar_mix.h"

namespace fusednorm {

const KernelRegistry<MixKernelInfo>& MixKernels() {
  // Building the table runs baseline code only.
  static const auto* registry = [] {
    std::vector<MixKernelInfo> rows = {ScalarMixInfo()};
    for (const MixKernelInfo& row : HighwayMixInfos()) rows.push_back(row);
    return new KernelRegistry<MixKernelInfo>(
        "mix kernel", "FUSEDNORM_MIX_KERNEL", std::move(rows));
  }();
  return *registry;
}

absl::StatusOr<const MixKernelInfo*> SelectMixKernel(absl::string_view id) {
  return MixKernels().Select(
      id, [](const MixKernelInfo&) { return true; }, "batch mixing");
}

}  // namespace fusednorm
