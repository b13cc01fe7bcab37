// The fused normalization's variants in the kernel registry
// (kernels/registry.h): one explicit row per variant (no self-registration),
// the choice of the best supported variant that covers a configuration, and
// lookup by id.
//
// The FUSEDNORM_KERNEL environment variable, when set and non-empty, forces a
// variant by id for every op that does not name one itself (read once). An
// unknown id is NotFound and an id this CPU cannot run is Unimplemented:
// there is never a silent fallback.
#ifndef FUSEDNORM_KERNELS_DISPATCH_H_
#define FUSEDNORM_KERNELS_DISPATCH_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "kernels/kernel.h"
#include "kernels/registry.h"

namespace fusednorm {

// The registry of the normalization's variants.
const KernelRegistry<KernelInfo>& NormalizeKernels();

// Returns every compiled variant, in table order (supported or not).
absl::Span<const KernelInfo> KernelTable();

// Returns the row with this id: NotFound if no variant has it, Unimplemented if
// this CPU cannot run it.
absl::StatusOr<const KernelInfo*> FindKernel(absl::string_view id);

// Returns the variant used when no id is given: FUSEDNORM_KERNEL if set (errors
// as FindKernel), else the highest-priority supported row. Decided once per
// process.
absl::StatusOr<const KernelInfo*> ActiveKernel();

// Returns the variant forced by `id`, or by FUSEDNORM_KERNEL when `id` is
// empty; nullptr when neither names one. Errors as FindKernel (prefixed
// "FUSEDNORM_KERNEL: " for the environment's).
absl::StatusOr<const KernelInfo*> ForcedKernel(absl::string_view id);

// Returns the row's id, followed by the target it runs in parentheses where it
// has one, e.g. "highway (AVX3)" or "scalar_eigen".
std::string DescribeKernel(const KernelInfo& row);

// Returns the variant for one op configuration. With a non-empty `id` (or, if
// `id` is empty, FUSEDNORM_KERNEL), that variant or an error: NotFound,
// Unimplemented when the CPU cannot run it or it does not cover the
// configuration. Otherwise the highest-priority supported variant that covers
// it.
absl::StatusOr<const KernelInfo*> SelectKernel(absl::string_view id,
                                               DType dtype, Layout layout,
                                               Mode mode, int channels);

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_DISPATCH_H_
