// torchvision v1's _apply_op (transforms/autoaugment.py) on PIL images:
// the ops the auto-augment policies choose from, each applied with a
// signed magnitude exactly as torchvision's functional calls apply it:
//
//   ShearX/ShearY        affine, shear degrees(atan(m)) on x / y, center
//                        (0, 0)
//   TranslateX/Y         affine, translate int(m) pixels
//   Rotate               rotate by m degrees
//   Brightness, Color,   ImageEnhance with factor 1 + m
//   Contrast, Sharpness
//   Posterize            int(m) bits
//   Solarize             threshold m
//   AutoContrast, Equalize, Invert, Identity   (m unused)
//
// with the policy's interpolation (nearest, bilinear, bicubic) and fill.
#ifndef FUSEDNORM_OPS_AUGMENT_OP_H_
#define FUSEDNORM_OPS_AUGMENT_OP_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/image.h"
#include "kernels/augment/augment_kernel.h"
#include "kernels/color/color_kernel.h"
#include "ops/affine.h"

namespace fusednorm {

enum class AugmentOp : int8_t {
  kIdentity,
  kShearX,
  kShearY,
  kTranslateX,
  kTranslateY,
  kRotate,
  kBrightness,
  kColor,
  kContrast,
  kSharpness,
  kPosterize,
  kSolarize,
  kAutoContrast,
  kEqualize,
  kInvert,
};
inline constexpr int kAugmentOps = 15;

// torchvision's op_name ("ShearX"), and the op of a name.
const char* AugmentOpName(AugmentOp op);
std::optional<AugmentOp> AugmentOpNamed(absl::string_view name);

// What _apply_op takes besides the op and its magnitude, and the kernels.
struct AugmentContext {
  AffineFilter filter = AffineFilter::kNearest;
  FillColor fill;
  const AugmentKernelInfo* kernel = nullptr;
  const ColorKernelInfo* color = nullptr;
};

// InvalidArgument naming the op and the magnitude unless `op` takes
// `magnitude`: finite; Posterize's int(m) in 0..8; factors 1 + m within
// float's range; translations within 2^31 pixels.
absl::Status CheckMagnitude(AugmentOp op, double magnitude);

// _apply_op(input, op, magnitude, interpolation, fill) into `output`
// (LUT ops on 2 or 4 channels are InvalidArgument, as Pillow refuses them).
absl::Status ApplyAugmentOp(AugmentOp op, double magnitude,
                            const AugmentContext& context,
                            const ImageView& input, AffineScratch* scratch,
                            Image* output);

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_AUGMENT_OP_H_
