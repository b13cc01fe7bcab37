// The normalization's rows in the kernel registry (dispatch.h).
#include "kernels/dispatch.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/format_names.h"
#include "kernels/highway/highway.h"
#include "kernels/scalar_eigen/scalar_eigen.h"
#if defined(__x86_64__)
#include "kernels/x86_f16c/x86_f16c.h"
#endif

namespace fusednorm {

const KernelRegistry<KernelInfo>& NormalizeKernels() {
  // Building the table runs baseline code only: each variant's rows come
  // from a function compiled for the baseline.
  static const auto* registry = [] {
    std::vector<KernelInfo> rows = {ScalarEigenKernelInfo()};
#if defined(__x86_64__)
    rows.push_back(X86F16cKernelInfo());
#endif
    for (const KernelInfo& row : HighwayKernelInfos()) rows.push_back(row);
    return new KernelRegistry<KernelInfo>("kernel", "FUSEDNORM_KERNEL",
                                          std::move(rows));
  }();
  return *registry;
}

absl::Span<const KernelInfo> KernelTable() { return NormalizeKernels().rows(); }

absl::StatusOr<const KernelInfo*> FindKernel(absl::string_view id) {
  return NormalizeKernels().Find(id);
}

absl::StatusOr<const KernelInfo*> ActiveKernel() {
  return NormalizeKernels().Default();
}

absl::StatusOr<const KernelInfo*> ForcedKernel(absl::string_view id) {
  return NormalizeKernels().Forced(id);
}

std::string DescribeKernel(const KernelInfo& row) {
  return NormalizeKernels().Describe(row);
}

absl::StatusOr<const KernelInfo*> SelectKernel(absl::string_view id,
                                               DType dtype, Layout layout,
                                               Mode mode, int channels) {
  return NormalizeKernels().Select(
      id,
      [&](const KernelInfo& row) {
        return row.covers(dtype, layout, mode, channels);
      },
      absl::StrCat("dtype ", DTypeName(dtype), ", layout ", LayoutName(layout),
                   ", mode ", ModeName(mode), ", channels ", channels));
}

}  // namespace fusednorm
