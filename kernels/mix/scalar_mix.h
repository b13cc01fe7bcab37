// The scalar mix row (mix_kernel.h), the one every other row is tested
// against.
#ifndef FUSEDNORM_KERNELS_MIX_SCALAR_MIX_H_
#define FUSEDNORM_KERNELS_MIX_SCALAR_MIX_H_

#include "kernels/mix/mix_kernel.h"

namespace fusednorm {

MixKernelInfo ScalarMixInfo();

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_MIX_SCALAR_MIX_H_
