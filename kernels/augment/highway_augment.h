// highway: the SIMD augment rows, compiled once per Highway target and
// dispatched at run time, like the colour kernels' highway rows. No SIMD
// types in this header.
#ifndef FUSEDNORM_KERNELS_AUGMENT_HIGHWAY_AUGMENT_H_
#define FUSEDNORM_KERNELS_AUGMENT_HIGHWAY_AUGMENT_H_

#include <vector>

#include "kernels/augment/augment_kernel.h"

namespace fusednorm {

// "highway" (the best target this CPU supports), then one row per compiled
// target ("highway_avx3", ...), supported only where the CPU has it.
std::vector<AugmentKernelInfo> HighwayAugmentInfos();

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_AUGMENT_HIGHWAY_AUGMENT_H_
