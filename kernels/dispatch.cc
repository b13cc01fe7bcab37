// The dispatch table (dispatch.h): its rows, the once-per-process default
// choice, lookup by id and FUSEDNORM_KERNEL.
#include "kernels/dispatch.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/format_names.h"
#include "kernels/highway/highway.h"
#include "kernels/scalar_eigen/scalar_eigen.h"
#if defined(__x86_64__)
#include "kernels/x86_f16c/x86_f16c.h"
#endif

namespace fusednorm {
namespace {

// The table, built explicitly. Add one row (or one function returning rows) per
// variant. Building it runs baseline code only (DESIGN.md, "Kernel dispatch").
const std::vector<KernelInfo>& Rows() {
  static const std::vector<KernelInfo>* rows = [] {
    auto* r = new std::vector<KernelInfo>{ScalarEigenKernelInfo()};
#if defined(__x86_64__)
    r->push_back(X86F16cKernelInfo());
#endif
    for (const KernelInfo& row : HighwayKernelInfos()) r->push_back(row);
    return r;
  }();
  return *rows;
}

std::string KnownIds() {
  std::string ids;
  for (const KernelInfo& row : KernelTable()) {
    absl::StrAppend(&ids, ids.empty() ? "" : ", ", row.id);
  }
  return ids;
}

// The id forced by the environment, or "" when none.
std::string EnvKernelId() {
  const char* env = std::getenv("FUSEDNORM_KERNEL");
  return env == nullptr ? "" : env;
}

}  // namespace

absl::Span<const KernelInfo> KernelTable() {
  return absl::MakeConstSpan(Rows());
}

absl::StatusOr<const KernelInfo*> FindKernel(absl::string_view id) {
  for (const KernelInfo& row : KernelTable()) {
    if (id != row.id) continue;
    if (!row.supported()) {
      return absl::UnimplementedError(
          absl::StrCat("kernel \"", id, "\" needs ", row.needs,
                       ", which this CPU does not have"));
    }
    return &row;
  }
  return absl::NotFoundError(
      absl::StrCat("kernel \"", id,
                   "\" is not a known kernel id (known: ", KnownIds(), ")"));
}

absl::StatusOr<const KernelInfo*> ActiveKernel() {
  static absl::once_flag once;
  static absl::StatusOr<const KernelInfo*>* chosen = nullptr;
  absl::call_once(once, [] {
    absl::StatusOr<const KernelInfo*> forced = ForcedKernel("");
    if (!forced.ok() || *forced != nullptr) {
      chosen = new absl::StatusOr<const KernelInfo*>(forced);
      return;
    }
    const KernelInfo* best = nullptr;
    for (const KernelInfo& row : KernelTable()) {
      if (row.supported() && (best == nullptr || row.priority > best->priority))
        best = &row;
    }
    chosen = new absl::StatusOr<const KernelInfo*>(
        best);  // scalar_eigen always runs
  });
  return *chosen;
}

absl::StatusOr<const KernelInfo*> ForcedKernel(absl::string_view id) {
  if (!id.empty()) return FindKernel(id);
  const std::string env = EnvKernelId();
  if (env.empty()) return nullptr;
  absl::StatusOr<const KernelInfo*> found = FindKernel(env);
  if (!found.ok()) {
    return absl::Status(
        found.status().code(),
        absl::StrCat("FUSEDNORM_KERNEL: ", found.status().message()));
  }
  return found;
}

std::string DescribeKernel(const KernelInfo& row) {
  if (row.target == nullptr) return row.id;
  return absl::StrCat(row.id, " (", row.target(), ")");
}

absl::StatusOr<const KernelInfo*> SelectKernel(absl::string_view id,
                                               DType dtype, Layout layout,
                                               Mode mode, int channels) {
  absl::StatusOr<const KernelInfo*> forced = ForcedKernel(id);
  if (!forced.ok()) return forced.status();
  if (*forced != nullptr) {
    if (!(*forced)->covers(dtype, layout, mode, channels)) {
      return absl::UnimplementedError(
          absl::StrCat("kernel \"", (*forced)->id, "\" does not cover dtype ",
                       DTypeName(dtype), ", layout ", LayoutName(layout),
                       ", mode ", ModeName(mode), ", channels ", channels));
    }
    return *forced;
  }
  const KernelInfo* best = nullptr;
  for (const KernelInfo& row : KernelTable()) {
    if (row.supported() && row.covers(dtype, layout, mode, channels) &&
        (best == nullptr || row.priority > best->priority)) {
      best = &row;
    }
  }
  if (best == nullptr) {
    return absl::UnimplementedError(
        absl::StrCat("no kernel covers dtype ", DTypeName(dtype), ", layout ",
                     LayoutName(layout), ", mode ", ModeName(mode),
                     ", channels ", channels));
  }
  return best;
}

}  // namespace fusednorm
