// highway: the Highway kernel variant. Covers every dtype x layout x mode x
// channel count with Highway's portable SIMD, compiled once per target
// Highway 1.0.3 builds here (SSSE3, SSE4, AVX2, AVX3, ... on x86; NEON/SVE on
// Arm) and dispatched at run time. No SIMD types in this header.
#ifndef FUSEDNORM_KERNELS_HIGHWAY_HIGHWAY_H_
#define FUSEDNORM_KERNELS_HIGHWAY_HIGHWAY_H_

#include <vector>

#include "kernels/kernel.h"

namespace fusednorm {

// Returns the dispatch-table rows of this variant: "highway" (Highway picks the
// best target this CPU supports, once), then one row per compiled target,
// "highway_avx3", "highway_avx2", "highway_sse4", ..., each supported only
// where the CPU has that target.
std::vector<KernelInfo> HighwayKernelInfos();

// Returns the name of the target "highway" dispatches to on this CPU, e.g.
// "AVX3".
const char* HighwayActiveTarget();

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_HIGHWAY_HIGHWAY_H_
