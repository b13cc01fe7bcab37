// Baselines for the benchmarks: the memory roofline (widen u8 into the output
// type, no arithmetic) and torchvision's unfused order of passes.
#ifndef FUSEDNORM_BENCHMARKS_BASELINES_H_
#define FUSEDNORM_BENCHMARKS_BASELINES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

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

// torchvision's order, one full pass per step with float intermediates (CHW):
// ToTensor, RandomHorizontalFlip (a new tensor), Normalize (a new tensor),
// RandomErasing (in place), then .half()/.bfloat16() and permute().contiguous()
// into `out` as `dtype`/`layout` need. `a` and `b` are scratch of h * w * c
// floats.
void UnfusedTorchvision(const uint8_t* in, int64_t h, int64_t w, int c,
                        const float* mean, const float* std,
                        const Augmentation& aug, DType dtype, Layout layout,
                        uint8_t* out, std::vector<float>& a,
                        std::vector<float>& b);

}  // namespace fusednorm

#endif  // FUSEDNORM_BENCHMARKS_BASELINES_H_
