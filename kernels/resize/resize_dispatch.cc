// The resize dispatch table (resize_dispatch.h).
#include "kernels/resize/resize_dispatch.h"

#include <cstdlib>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/resize/highway_resize.h"
#include "kernels/resize/scalar_resize.h"

namespace fusednorm {
namespace {

// Building the table runs baseline code only (DESIGN.md, "Kernel dispatch").
// Each row's supported() is asked once: on x86 it runs CPUID, which costs
// microseconds under a hypervisor, and resizes select a row every call.
struct Table {
  std::vector<ResizeKernelInfo> rows;
  std::vector<bool> supported;  // rows[i].supported(), asked once
};

const Table& TheTable() {
  static const Table* table = [] {
    auto* t = new Table;
    t->rows.push_back(ScalarResizeInfo());
    for (const ResizeKernelInfo& row : HighwayResizeInfos()) {
      t->rows.push_back(row);
    }
    for (const ResizeKernelInfo& row : t->rows) {
      t->supported.push_back(row.supported());
    }
    return t;
  }();
  return *table;
}

const std::vector<ResizeKernelInfo>& Rows() { return TheTable().rows; }

bool Supported(const ResizeKernelInfo& row) {
  return TheTable().supported[&row - Rows().data()];
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
    if (Supported(row) && (best == nullptr || row.priority > best->priority))
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
    if (!Supported(row)) {
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
  static absl::once_flag once;
  static absl::StatusOr<const ResizeKernelInfo*>* chosen = nullptr;
  absl::call_once(once, [] {
    const char* env = std::getenv("FUSEDNORM_RESIZE_KERNEL");
    if (env == nullptr || *env == '\0') {
      chosen = new absl::StatusOr<const ResizeKernelInfo*>(Best());
      return;
    }
    absl::StatusOr<const ResizeKernelInfo*> found = FindResizeKernel(env);
    if (!found.ok()) {
      found = absl::Status(
          found.status().code(),
          absl::StrCat("FUSEDNORM_RESIZE_KERNEL: ", found.status().message()));
    }
    chosen = new absl::StatusOr<const ResizeKernelInfo*>(found);
  });
  return *chosen;
}

}  // namespace fusednorm
