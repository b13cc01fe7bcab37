// The resize dispatch table (resize_dispatch.h).
#include "kernels/resize/resize_dispatch.h"

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/resize/highway_resize.h"
#include "kernels/resize/scalar_resize.h"

namespace fusednorm {

const KernelRegistry<ResizeKernelInfo>& ResizeKernels() {
  // Building the table runs baseline code only.
  static const auto* registry = [] {
    std::vector<ResizeKernelInfo> rows = {ScalarResizeInfo()};
    for (const ResizeKernelInfo& row : HighwayResizeInfos())
      rows.push_back(row);
    return new KernelRegistry<ResizeKernelInfo>(
        "resize kernel", "FUSEDNORM_RESIZE_KERNEL", std::move(rows));
  }();
  return *registry;
}

absl::Span<const ResizeKernelInfo> ResizeKernelTable() {
  return ResizeKernels().rows();
}

absl::StatusOr<const ResizeKernelInfo*> FindResizeKernel(absl::string_view id) {
  return ResizeKernels().Find(id);
}

absl::StatusOr<const ResizeKernelInfo*> SelectResizeKernel(
    absl::string_view id) {
  return ResizeKernels().Select(
      id, [](const ResizeKernelInfo&) { return true; }, "resizing");
}

}  // namespace fusednorm
