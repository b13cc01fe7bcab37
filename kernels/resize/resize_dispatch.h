// The Pillow resize's variants in the kernel registry (kernels/registry.h):
// one explicit row per variant ("scalar", "highway" and one per compiled
// Highway target), the choice of the best supported row, and lookup by id.
//
// The FUSEDNORM_RESIZE_KERNEL environment variable, when set and non-empty,
// forces a row by id for every resize that does not name one (read once, at
// the first such resize). An unknown id is NotFound and one this CPU cannot
// run is Unimplemented: never a silent fallback. Which rows this CPU runs is
// asked once.
#ifndef FUSEDNORM_KERNELS_RESIZE_RESIZE_DISPATCH_H_
#define FUSEDNORM_KERNELS_RESIZE_RESIZE_DISPATCH_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "kernels/registry.h"
#include "kernels/resize/resize_kernel.h"

namespace fusednorm {

// The registry of the resize's variants.
const KernelRegistry<ResizeKernelInfo>& ResizeKernels();

// Every compiled row, in table order (supported or not).
absl::Span<const ResizeKernelInfo> ResizeKernelTable();

// The row with this id: NotFound if none has it, Unimplemented if this CPU
// cannot run it.
absl::StatusOr<const ResizeKernelInfo*> FindResizeKernel(absl::string_view id);

// The row named by `id`, or when `id` is empty by FUSEDNORM_RESIZE_KERNEL
// (errors prefixed with the variable's name), or else the highest-priority
// supported row; the choice for an empty `id` is made once.
absl::StatusOr<const ResizeKernelInfo*> SelectResizeKernel(
    absl::string_view id);

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_RESIZE_RESIZE_DISPATCH_H_
