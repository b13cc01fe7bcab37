// The entry point of the x86_f16c kernel body (x86_f16c_body.cc, the one
// translation unit built with SSE4.1 and F16C). Internal to kernels/x86_f16c:
// callers go through X86F16cKernelInfo(), whose supported() check must pass
// first.
#ifndef FUSEDNORM_KERNELS_X86_F16C_X86_F16C_BODY_H_
#define FUSEDNORM_KERNELS_X86_F16C_X86_F16C_BODY_H_

#include "kernels/kernel.h"

namespace fusednorm {

// Runs the kernel for one image. Needs SSE4.1, F16C and AVX.
void X86F16cRun(const KernelConstants& constants, const KernelArgs& args);

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_X86_F16C_X86_F16C_BODY_H_
