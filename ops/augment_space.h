// torchvision's _augmentation_space of each auto-augment policy: the ops a
// policy chooses from, in its dict's order, and each op's magnitudes
// (magnitude bins) and sign rule. Bins are the float32 values torch makes:
//
//   AutoAugment (10 bins) and RandAugment     TrivialAugmentWide
//   ShearX, ShearY    linspace(0, 0.3)        linspace(0, 0.99)
//   TranslateX        linspace(0, 150/331 W)  linspace(0, 32)
//   TranslateY        linspace(0, 150/331 H)  linspace(0, 32)
//   Rotate            linspace(0, 30)         linspace(0, 135)
//   Brightness, Color,
//   Contrast, Sharpness  linspace(0, 0.9)     linspace(0, 0.99)
//   Posterize         8 - round(i / ((n - 1) / 4))   ... / 6)
//   Solarize          linspace(255, 0)        linspace(255, 0)
//   AutoContrast, Equalize, Invert, Identity: magnitude 0, no bins.
//
// Every op with bins but Posterize and Solarize is signed (a random sign
// flips it). torch.linspace's values depend on the CPU kernel torch runs:
// these are torch 2's AVX2 and AVX-512 kernels' (each bin one fused
// multiply-add: start + step i below the middle, end - step (n - 1 - i)
// from it), which torch's default kernel and torch 1.13's vectorized one
// differ from in some bins' last bit (bin 15 of linspace(0, 32, 31) is
// 15.999999 here, 16.0 there).
#ifndef FUSEDNORM_OPS_AUGMENT_SPACE_H_
#define FUSEDNORM_OPS_AUGMENT_SPACE_H_

#include <cstdint>

#include "absl/types/span.h"
#include "core/geometry.h"
#include "ops/augment_op.h"

namespace fusednorm {

enum class AugmentSpace { kAutoAugment, kRandAugment, kTrivialAugmentWide };

// The ops of a space in torchvision's order (AutoAugment's: those its
// policies name).
absl::Span<const AugmentOp> SpaceOps(AugmentSpace space);

// Whether `op` has magnitude bins, and whether its magnitude is signed.
bool HasBins(AugmentOp op);
bool IsSigned(AugmentOp op);

// Bin `index` (0 <= index < bins, bins >= 2) of `op` in `space` for an
// image of `size` (the translations' range is the image's in AutoAugment
// and RandAugment), as the double torch's .item() gives.
double BinMagnitude(AugmentSpace space, AugmentOp op, int64_t bins,
                    int64_t index, Size2 size);

// torch.linspace(start, end, steps)[index] (float32; see above).
float TorchLinspace(double start, double end, int64_t steps, int64_t index);

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_AUGMENT_SPACE_H_
