// _apply_op (augment_op.h): each op as torchvision's functional call on a
// PIL image computes it.
#include "ops/augment_op.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "ops/color.h"
#include "ops/enhance.h"
#include "ops/image_blocks.h"

namespace fusednorm {
namespace {

constexpr const char* kNames[kAugmentOps] = {
    "Identity",  "ShearX",     "ShearY",       "TranslateX", "TranslateY",
    "Rotate",    "Brightness", "Color",        "Contrast",   "Sharpness",
    "Posterize", "Solarize",   "AutoContrast", "Equalize",   "Invert"};

// math.degrees' factor (CPython: 180.0 / Py_MATH_PI).
constexpr double kRadToDeg = 180.0 / 3.14159265358979323846;

// Brightness, Color and Contrast: ImageEnhance's blend with factor 1 + m.
absl::Status Enhance(const ColorKernelInfo& kernel, Jitter which, double m,
                     const ImageView& input, Image* output) {
  ColorStep step = JitterStep(which, 1.0 + m);
  return AdjustColors(kernel, input, &step, 1,
                      which == Jitter::kContrast ? 0 : -1, output);
}

// F.affine(img, angle=0.0, translate, scale=1.0, shear, center).
absl::Status Affine(const AugmentContext& c, const ImageView& input,
                    Point2 translate, Point2 shear,
                    std::optional<Point2> center, AffineScratch* scratch,
                    Image* output) {
  return TorchvisionAffine(*c.kernel, input, 0.0, translate, 1.0, shear, center,
                           c.filter, c.fill, scratch, output);
}

}  // namespace

const char* AugmentOpName(AugmentOp op) { return kNames[static_cast<int>(op)]; }

std::optional<AugmentOp> AugmentOpNamed(absl::string_view name) {
  for (int k = 0; k < kAugmentOps; ++k) {
    if (name == kNames[k]) return static_cast<AugmentOp>(k);
  }
  return std::nullopt;
}

absl::Status CheckMagnitude(AugmentOp op, double m) {
  const char* name = AugmentOpName(op);
  if (!std::isfinite(m)) {
    return InvalidArgumentCat(name, " magnitude = ", m, ": must be finite");
  }
  switch (op) {
    case AugmentOp::kPosterize:
      if (!(m > -1 && m < 9)) {
        return InvalidArgumentCat(name, " magnitude = ", m,
                                  ": int(magnitude) bits must be in 0..8");
      }
      return absl::OkStatus();
    case AugmentOp::kTranslateX:
    case AugmentOp::kTranslateY:
      if (!(std::fabs(m) < 2147483648.0)) {
        return InvalidArgumentCat(name, " magnitude = ", m,
                                  ": must be under 2^31 pixels");
      }
      return absl::OkStatus();
    case AugmentOp::kBrightness:
    case AugmentOp::kColor:
    case AugmentOp::kContrast:
    case AugmentOp::kSharpness:
      if (!(std::fabs(1.0 + m) <= std::numeric_limits<float>::max())) {
        return InvalidArgumentCat(name, " magnitude = ", m,
                                  ": the factor 1 + magnitude must be a "
                                  "float (Pillow's blend factor)");
      }
      return absl::OkStatus();
    default:
      return absl::OkStatus();
  }
}

absl::Status ApplyAugmentOp(AugmentOp op, double m, const AugmentContext& c,
                            const ImageView& input, AffineScratch* scratch,
                            Image* output) {
  FUSEDNORM_RETURN_IF_ERROR(CheckMagnitude(op, m));
  const AugmentKernelInfo& k = *c.kernel;
  switch (op) {
    case AugmentOp::kIdentity:
      return CopyImage(input, output);
    case AugmentOp::kShearX:
      return Affine(c, input, {0, 0}, {std::atan(m) * kRadToDeg, 0.0},
                    Point2{0, 0}, scratch, output);
    case AugmentOp::kShearY:
      return Affine(c, input, {0, 0}, {0.0, std::atan(m) * kRadToDeg},
                    Point2{0, 0}, scratch, output);
    case AugmentOp::kTranslateX:
      return Affine(c, input, {std::trunc(m), 0}, {0.0, 0.0}, std::nullopt,
                    scratch, output);
    case AugmentOp::kTranslateY:
      return Affine(c, input, {0, std::trunc(m)}, {0.0, 0.0}, std::nullopt,
                    scratch, output);
    case AugmentOp::kRotate:
      return PillowRotate(k, input, m, c.filter, false, std::nullopt, c.fill,
                          scratch, output);
    case AugmentOp::kBrightness:
      return Enhance(*c.color, Jitter::kBrightness, m, input, output);
    case AugmentOp::kColor:
      return Enhance(*c.color, Jitter::kSaturation, m, input, output);
    case AugmentOp::kContrast:
      return Enhance(*c.color, Jitter::kContrast, m, input, output);
    case AugmentOp::kSharpness:
      return Sharpness(k, input, 1.0 + m, output);
    case AugmentOp::kPosterize:
      return Posterize(k, input, static_cast<int>(m), output);
    case AugmentOp::kSolarize:
      return Solarize(k, input, m, output);
    case AugmentOp::kAutoContrast:
      return AutoContrast(k, input, output);
    case AugmentOp::kEqualize:
      return Equalize(k, input, output);
    case AugmentOp::kInvert:
      return Invert(k, input, output);
  }
  return absl::InternalError("unknown augment op");
}

}  // namespace fusednorm
