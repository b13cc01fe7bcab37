// The mix kernels' variants in the kernel registry (kernels/registry.h):
// "scalar", "highway" and one row per compiled Highway target. The
// FUSEDNORM_MIX_KERNEL environment variable, when set and non-empty, forces
// a row by id for every caller that does not name one. An unknown id is
// NotFound, one this CPU cannot run Unimplemented: never a silent fallback.
#ifndef FUSEDNORM_KERNELS_MIX_MIX_DISPATCH_H_
#define FUSEDNORM_KERNELS_MIX_MIX_DISPATCH_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kernels/mix/mix_kernel.h"
#include "kernels/registry.h"

namespace fusednorm {

const KernelRegistry<MixKernelInfo>& MixKernels();

// The row named by `id`, or when `id` is empty by FUSEDNORM_MIX_KERNEL, or
// else the highest-priority supported row.
absl::StatusOr<const MixKernelInfo*> SelectMixKernel(absl::string_view id);

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_MIX_MIX_DISPATCH_H_
