// scalar: the portable reference resize row. Plain loops over
// resize_kernel.h's formula, both passes always run, in the order asked;
// every other row must agree with it bit for bit.
#ifndef FUSEDNORM_KERNELS_RESIZE_SCALAR_RESIZE_H_
#define FUSEDNORM_KERNELS_RESIZE_SCALAR_RESIZE_H_

#include "kernels/resize/resize_kernel.h"

namespace fusednorm {

ResizeKernelInfo ScalarResizeInfo();

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_RESIZE_SCALAR_RESIZE_H_
