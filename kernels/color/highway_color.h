// highway: the SIMD colour rows, compiled once per Highway target and
// dispatched at run time, like the resize's highway rows. No SIMD types in
// this header.
#ifndef FUSEDNORM_KERNELS_COLOR_HIGHWAY_COLOR_H_
#define FUSEDNORM_KERNELS_COLOR_HIGHWAY_COLOR_H_

#include <vector>

#include "kernels/color/color_kernel.h"

namespace fusednorm {

// "highway" (the best target this CPU supports), then one row per compiled
// target ("highway_avx3", ...), supported only where the CPU has it.
std::vector<ColorKernelInfo> HighwayColorInfos();

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_COLOR_HIGHWAY_COLOR_H_
