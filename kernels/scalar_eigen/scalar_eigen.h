// scalar_eigen: the portable kernel variant. Covers every dtype x layout x mode
// x channel count with plain loops; Eigen::half and Eigen::bfloat16 do the
// round-to-nearest-even narrowing. The correctness baseline every SIMD variant
// must match bit for bit.
#ifndef FUSEDNORM_KERNELS_SCALAR_EIGEN_SCALAR_EIGEN_H_
#define FUSEDNORM_KERNELS_SCALAR_EIGEN_SCALAR_EIGEN_H_

#include "kernels/kernel.h"

namespace fusednorm {

// Runs the fused op for one image; see KernelArgs for the preconditions.
void ScalarEigenKernel(const KernelConstants& constants,
                       const KernelArgs& args);

// Returns the dispatch-table row for this variant.
KernelInfo ScalarEigenKernelInfo();

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_SCALAR_EIGEN_SCALAR_EIGEN_H_
