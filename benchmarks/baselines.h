// Baselines for the benchmarks: the memory roofline (widen u8 into the output
// type, no arithmetic) and torchvision's unfused order of passes, vectorised.
#ifndef FUSEDNORM_BENCHMARKS_BASELINES_H_
#define FUSEDNORM_BENCHMARKS_BASELINES_H_

#include <cstddef>
#include <cstdint>

#include "kernels/kernel.h"
#include "ops/fused_normalization.h"

namespace fusednorm {

// Writes out_elems elements of `dtype` to `out`, element k being input byte
// k % in_bytes widened to the type (float, or its 16-bit pattern for
// float16/bfloat16): reads the input once (more for HWC4's extra elements) and
// writes every output byte. With `nontemporal`, aligned stores bypass the
// caches. Best Highway target.
void StreamBaseline(const uint8_t* in, size_t in_bytes, uint8_t* out,
                    size_t out_elems, DType dtype, bool nontemporal);

// One image for UnfusedTorchvision.
struct UnfusedArgs {
  const uint8_t* input = nullptr;  // HWC
  int64_t height = 0, width = 0, row_stride = 0;
  int channels = 0;  // 1..4
  const float* mean = nullptr;
  const float* std = nullptr;
  Augmentation aug;
  DType dtype = DType::kFloat32;
  Layout layout = Layout::kCHW;
  uint8_t* output = nullptr;  // compact dtype/layout
  float* a = nullptr;         // scratch, channels * height * width floats
  float* b = nullptr;         // the same
};

// torchvision's order, one full pass per step over float CHW tensors, each
// pass vectorised with the best Highway target (the kernel's): ToTensor (x /
// 255), RandomHorizontalFlip (a new tensor), Normalize ((t - mean) / std, a
// new tensor), RandomErasing (in place), then .half()/.bfloat16() and
// permute().contiguous() into the output as one pass (none for float32 CHW,
// where Normalize writes the output). Computes torchvision's values exactly.
void UnfusedTorchvision(const UnfusedArgs& args);

}  // namespace fusednorm

#endif  // FUSEDNORM_BENCHMARKS_BASELINES_H_
