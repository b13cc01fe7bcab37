// x86_f16c: the original system's SSE4.1 + F16C design, done without its
// faults: no load past the end of an input row, rounding to nearest even, and
// every channel count. Covers float32 HWC and float16 HWC4 (the original's two
// layouts) in both modes. Its supported() check requires SSE4.1, F16C and AVX
// with OS-enabled YMM state; only the kernel body (x86_f16c_body.cc) is
// compiled with -msse4.1 -mf16c, this row is baseline code.
#ifndef FUSEDNORM_KERNELS_X86_F16C_X86_F16C_H_
#define FUSEDNORM_KERNELS_X86_F16C_X86_F16C_H_

#include "kernels/kernel.h"

namespace fusednorm {

// Returns the dispatch-table row of this variant (x86-64 builds only).
KernelInfo X86F16cKernelInfo();

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_X86_F16C_X86_F16C_H_
