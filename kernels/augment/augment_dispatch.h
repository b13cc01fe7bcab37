// The augment kernels' variants in the kernel registry (kernels/registry.h):
// "scalar", "highway" and one row per compiled Highway target. The
// FUSEDNORM_AUGMENT_KERNEL environment variable, when set and non-empty,
// forces a row by id for every augment op that does not name one (read when
// the op is made). An unknown id is NotFound, one this CPU cannot run
// Unimplemented: never a silent fallback.
#ifndef FUSEDNORM_KERNELS_AUGMENT_AUGMENT_DISPATCH_H_
#define FUSEDNORM_KERNELS_AUGMENT_AUGMENT_DISPATCH_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kernels/augment/augment_kernel.h"
#include "kernels/registry.h"

namespace fusednorm {

const KernelRegistry<AugmentKernelInfo>& AugmentKernels();

// The row named by `id`, or when `id` is empty by FUSEDNORM_AUGMENT_KERNEL,
// or else the highest-priority supported row. Ops call it once, when they
// are made.
absl::StatusOr<const AugmentKernelInfo*> SelectAugmentKernel(
    absl::string_view id);

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_AUGMENT_AUGMENT_DISPATCH_H_
