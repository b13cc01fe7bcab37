// The colour dispatch table (color_dispatch.h).
#include "kernels/color/color_dispatch.h"

#include <utility>
#include <vector>

#include "kernels/color/highway_color.h"
#include "kernels/color/scalar_color.h"

namespace fusednorm {

const KernelRegistry<ColorKernelInfo>& ColorKernels() {
  // Building the table runs baseline code only.
  static const auto* registry = [] {
    std::vector<ColorKernelInfo> rows = {ScalarColorInfo()};
    for (const ColorKernelInfo& row : HighwayColorInfos()) rows.push_back(row);
    return new KernelRegistry<ColorKernelInfo>(
        "colour kernel", "FUSEDNORM_COLOR_KERNEL", std::move(rows));
  }();
  return *registry;
}

absl::StatusOr<const ColorKernelInfo*> SelectColorKernel(absl::string_view id) {
  return ColorKernels().Select(
      id, [](const ColorKernelInfo&) { return true; }, "colour ops");
}

}  // namespace fusednorm
