// The x86_f16c dispatch-table row: the CPU check and what the variant covers.
// Compiled for the x86-64 baseline (no ISA flags): the table builds this row
// and calls supported() on every CPU, so nothing here may use an instruction
// an old CPU lacks. The kernel itself is in x86_f16c_body.cc.
#include "kernels/x86_f16c/x86_f16c.h"

#include <cpuid.h>

#include "kernels/x86_f16c/x86_f16c_body.h"

namespace fusednorm {
namespace {

bool CpuSupported() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  const bool sse41 = ecx & (1u << 19);
  const bool osxsave = ecx & (1u << 27);
  const bool avx = ecx & (1u << 28);
  const bool f16c = ecx & (1u << 29);
  if (!(sse41 && osxsave && avx && f16c)) return false;
  unsigned xcr0_lo, xcr0_hi;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  return (xcr0_lo & 6u) == 6u;  // the OS saves XMM and YMM state
}

bool Covers(DType dtype, Layout layout, Mode, int channels) {
  return channels >= 1 && channels <= kMaxChannels &&
         ((dtype == DType::kFloat32 && layout == Layout::kHWC) ||
          (dtype == DType::kFloat16 && layout == Layout::kHWC4));
}

}  // namespace

KernelInfo X86F16cKernelInfo() {
  return {"x86_f16c", "SSE4.1 F16C AVX (OS-enabled YMM state)",
          20,         &CpuSupported,
          &Covers,    &X86F16cRun};
}

}  // namespace fusednorm
