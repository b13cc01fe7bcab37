// highway: the SIMD mix rows, compiled once per Highway target and
// dispatched at run time, like the colour kernels' highway rows. No SIMD
// types in this header.
#ifndef FUSEDNORM_KERNELS_MIX_HIGHWAY_MIX_H_
#define FUSEDNORM_KERNELS_MIX_HIGHWAY_MIX_H_

#include <vector>

#include "kernels/mix/mix_kernel.h"

namespace fusednorm {

// "highway" (the best target this CPU supports), then one row per compiled
// target ("highway_avx3", ...), supported only where the CPU has it.
std::vector<MixKernelInfo> HighwayMixInfos();

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_MIX_HIGHWAY_MIX_H_
