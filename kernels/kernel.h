// The kernel contract: what every fused-normalization kernel variant computes,
// the constants it is handed, and the descriptor the dispatch table keeps for
// it.
//
// A kernel reads a uint8 HWC image and writes, in one pass, the normalized,
// optionally mirrored and partly erased tensor in one of three dtypes and three
// layouts (docs/design.md, "Semantics"). Kernels never validate, allocate or fail:
// FusedNormalization checks every argument first and calls a kernel only with
// arguments that satisfy the preconditions below. This header holds no SIMD
// types.
#ifndef FUSEDNORM_KERNELS_KERNEL_H_
#define FUSEDNORM_KERNELS_KERNEL_H_

#include <cstddef>
#include <cstdint>

#include "core/formats.h"
#include "core/geometry.h"

namespace fusednorm {

// Per-op constants, computed once by MakeKernelConstants and shared by every
// call.
struct KernelConstants {
  DType dtype = DType::kFloat32;
  Layout layout = Layout::kHWC;
  Mode mode = Mode::kFast;
  // Fast mode: y = float(x) * mul[c] - sub[c], with mul = 1 / (255 std) and sub
  // = mean / std each computed in double and rounded once to float.
  float mul[kMaxChannels] = {};
  float sub[kMaxChannels] = {};
  // Exact mode: the float32 mean and std, and table[c][x] = (x / 255.f -
  // mean[c]) / std[c] with every step rounded to float32 (what torchvision
  // computes for a uint8 input).
  float mean[kMaxChannels] = {};
  float std[kMaxChannels] = {};
  alignas(64) float table[kMaxChannels][256] = {};
  // Exact mode without division, for CPUs with a fused multiply-add: each
  // quotient q = a / b as q0 = a * r, q = fma(fma(-q0, b, a), r, q0) with
  // r = 1 / b rounded (one Newton-Markstein correction). MakeKernelConstants
  // checks this against the true divisions for all 256 inputs of every
  // channel; exact_by_fma says whether every check passed.
  float recip255 = 0.0f;
  float recip_std[kMaxChannels] = {};
  bool exact_by_fma = false;
  // float16/bfloat16 output: the bits of the value `mode` computes for input
  // byte x of channel c, rounded as kernels/formats.h rounds, split into low
  // (bits_lo[c][x]) and high bytes. Kernels that look values up (the AVX3_DL
  // CHW and HWC4 paths of kernels/highway) use them instead of computing.
  alignas(64) uint8_t bits_lo[kMaxChannels][256] = {};
  alignas(64) uint8_t bits_hi[kMaxChannels][256] = {};
};

// Fills every field of *constants for per-channel `mean` and `std`
// (kMaxChannels values each; channels beyond the image's are ignored by
// kernels). Requires std not 0 (either sign), all finite.
void MakeKernelConstants(DType dtype, Layout layout, Mode mode,
                         const float* mean, const float* std,
                         KernelConstants* constants);

// Test hook: while `allow` is false, MakeKernelConstants leaves exact_by_fma
// false, so every kernel takes exact mode's division path, also on CPUs that
// fuse multiply-adds (where every preset passes the FMA check). Default true.
// Not for production code; not synchronised with concurrent Create calls.
void AllowExactByFmaForTesting(bool allow);

// One call's arguments. Preconditions, all checked by the op:
//
// - input non-null; height and width >= 1; channels in 1..4;
// - input_row_stride >= width * channels bytes, and the input holds
//   (height - 1) * input_row_stride + width * channels bytes;
// - output non-null, with room for the compact layout;
// - the erase rectangle inside the image.
//
// No alignment is required for either pointer; input and output must not
// overlap. Kernels touch no byte outside those ranges.
struct KernelArgs {
  const uint8_t* input = nullptr;
  int64_t input_row_stride = 0;  // bytes
  int64_t height = 0;
  int64_t width = 0;
  int channels = 0;
  void* output = nullptr;
  bool flip = false;  // output column w reads input column width - 1 - w
  EraseRect erase;
  // Hint: store with non-temporal (streaming) stores, for outputs that will not
  // be read again from this core's caches. Variants without such stores ignore
  // it.
  bool nontemporal = false;
};

// Every kernel variant has this signature.
using KernelFn = void (*)(const KernelConstants& constants,
                          const KernelArgs& args);

// What a dispatch-table row knows about one kernel variant.
struct KernelInfo {
  const char* id;     // "scalar_eigen", "x86_f16c", "highway"
  const char* needs;  // human-readable CPU features, e.g. "SSE4.1 F16C AVX"
  int priority;  // higher wins among the supported variants that cover a config
  bool (*supported)();  // can this CPU run it?
  bool (*covers)(DType dtype, Layout layout, Mode mode, int channels);
  KernelFn fn;
  // For rows that run a SIMD target of a library: returns the target's name
  // (the one the row dispatches to on this CPU, e.g. "AVX3"). nullptr for
  // rows without one.
  const char* (*target)() = nullptr;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_KERNEL_H_
