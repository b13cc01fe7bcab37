// highway: the SIMD resize rows. Compiled once per Highway target and
// dispatched at run time, like the fused kernel's highway rows. No SIMD types
// in this header.
#ifndef FUSEDNORM_KERNELS_RESIZE_HIGHWAY_RESIZE_H_
#define FUSEDNORM_KERNELS_RESIZE_HIGHWAY_RESIZE_H_

#include <cstdint>
#include <vector>

#include "kernels/resize/resize_kernel.h"

namespace fusednorm {

// "highway" (the best target this CPU supports), then one row per compiled
// target ("highway_avx3", "highway_avx2", ...), supported only where the CPU
// has that target.
std::vector<ResizeKernelInfo> HighwayResizeInfos();

// How often the Highway rows' weights code (axis-inl.h) left its quick path
// since the process started: a vector divided again, or an axis handed to the
// scalar code with windows that fit the vector code. Pillow's filter needs
// neither; tests check that the count stays 0.
int64_t HighwayAxisSlowPaths();
void NoteHighwayAxisSlowPath();

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_RESIZE_HIGHWAY_RESIZE_H_
