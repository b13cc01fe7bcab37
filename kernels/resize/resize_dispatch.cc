// The resize dispatch table (resize_dispatch.h).
#include "kernels/resize/resize_dispatch.h"

#include <cstdlib>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/resize/highway_resize.h"
#include "kernels/resize/scalar_resize.h"

namespace fusednorm {
namespace {

// Building the table runs baseline code only (DESIGN.md, "Kernel dispatch").
const std::vector<ResizeKernelInfo>& Rows() {
  static const std::vector<ResizeKernelInfo>* rows = [] {
    auto* r = new std::vector<ResizeKernelInfo>{ScalarResizeInfo()};
    for (const ResizeKernelInfo& row : HighwayResizeInfos()) r->push_back(row);
    return r;
  }();
  return *rows;
}

std::string KnownIds() {
  std::string ids;
  for (const ResizeKernelInfo& row : Rows()) {
    absl::StrAppend(&ids, ids.empty() ? "" : ", ", row.id);
  }
  return ids;
}

const ResizeKernelInfo* Best() {
  const ResizeKernelInfo* best = nullptr;
  for (const ResizeKernelInfo& row : Rows()) {
    if (row.supported() && (best == nullptr || row.priority > best->priority))
      best = &row;
  }
  return best;  // "scalar" always runs
}

}  // namespace

absl::Span<const ResizeKernelInfo> ResizeKernelTable() {
  return absl::MakeConstSpan(Rows());
}

absl::StatusOr<const ResizeKernelInfo*> FindResizeKernel(absl::string_view id) {
  for (const ResizeKernelInfo& row : Rows()) {
    if (id != row.id) continue;
    if (!row.supported()) {
      return absl::UnimplementedError(
          absl::StrCat("resize kernel \"", id, "\" needs ", row.needs,
                       ", which this CPU does not have"));
    }
    return &row;
  }
  return absl::NotFoundError(
      absl::StrCat("resize kernel \"", id,
                   "\" is not a known id (known: ", KnownIds(), ")"));
}

absl::StatusOr<const ResizeKernelInfo*> SelectResizeKernel(
    absl::string_view id) {
  if (!id.empty()) return FindResizeKernel(id);
  const char* env = std::getenv("FUSEDNORM_RESIZE_KERNEL");
  if (env == nullptr || *env == '\0') return Best();
  absl::StatusOr<const ResizeKernelInfo*> found = FindResizeKernel(env);
  if (!found.ok()) {
    return absl::Status(
        found.status().code(),
        absl::StrCat("FUSEDNORM_RESIZE_KERNEL: ", found.status().message()));
  }
  return found;
}

}  // namespace fusednorm
