// The policies' magnitude bins (augment_space.h).
#include "ops/augment_space.h"

#include <cmath>

namespace fusednorm {
namespace {

constexpr AugmentOp kWideOps[] = {
    AugmentOp::kIdentity,     AugmentOp::kShearX,     AugmentOp::kShearY,
    AugmentOp::kTranslateX,   AugmentOp::kTranslateY, AugmentOp::kRotate,
    AugmentOp::kBrightness,   AugmentOp::kColor,      AugmentOp::kContrast,
    AugmentOp::kSharpness,    AugmentOp::kPosterize,  AugmentOp::kSolarize,
    AugmentOp::kAutoContrast, AugmentOp::kEqualize};

constexpr AugmentOp kAutoOps[] = {
    AugmentOp::kShearX,     AugmentOp::kShearY,   AugmentOp::kTranslateX,
    AugmentOp::kTranslateY, AugmentOp::kRotate,   AugmentOp::kBrightness,
    AugmentOp::kColor,      AugmentOp::kContrast, AugmentOp::kSharpness,
    AugmentOp::kPosterize,  AugmentOp::kSolarize, AugmentOp::kAutoContrast,
    AugmentOp::kEqualize,   AugmentOp::kInvert};

// 8 - round(index / ((bins - 1) / divisor)) in torch's float32 division,
// rounded half to even.
double PosterizeBits(int64_t bins, int64_t index, double divisor) {
  const float by = static_cast<float>(static_cast<double>(bins - 1) / divisor);
  const float q = static_cast<float>(index) / by;
  return 8.0 - std::nearbyint(q);
}

}  // namespace

absl::Span<const AugmentOp> SpaceOps(AugmentSpace space) {
  if (space == AugmentSpace::kAutoAugment) return kAutoOps;
  return kWideOps;
}

bool HasBins(AugmentOp op) {
  switch (op) {
    case AugmentOp::kIdentity:
    case AugmentOp::kAutoContrast:
    case AugmentOp::kEqualize:
    case AugmentOp::kInvert:
      return false;
    default:
      return true;
  }
}

bool IsSigned(AugmentOp op) {
  return HasBins(op) && op != AugmentOp::kPosterize &&
         op != AugmentOp::kSolarize;
}

float TorchLinspace(double start, double end, int64_t steps, int64_t index) {
  const float s = static_cast<float>(start);
  const float e = static_cast<float>(end);
  if (steps == 1) return s;
  const float step = (e - s) / static_cast<float>(steps - 1);
  if (index < steps / 2) return std::fma(step, static_cast<float>(index), s);
  return std::fma(-step, static_cast<float>(steps - index - 1), e);
}

double BinMagnitude(AugmentSpace space, AugmentOp op, int64_t bins,
                    int64_t index, Size2 size) {
  const bool wide = space == AugmentSpace::kTrivialAugmentWide;
  auto linspace = [&](double end) -> double {
    return TorchLinspace(0.0, end, bins, index);
  };
  switch (op) {
    case AugmentOp::kShearX:
    case AugmentOp::kShearY:
      return linspace(wide ? 0.99 : 0.3);
    case AugmentOp::kTranslateX:
      return linspace(wide ? 32.0
                           : 150.0 / 331.0 * static_cast<double>(size.width));
    case AugmentOp::kTranslateY:
      return linspace(wide ? 32.0
                           : 150.0 / 331.0 * static_cast<double>(size.height));
    case AugmentOp::kRotate:
      return linspace(wide ? 135.0 : 30.0);
    case AugmentOp::kBrightness:
    case AugmentOp::kColor:
    case AugmentOp::kContrast:
    case AugmentOp::kSharpness:
      return linspace(wide ? 0.99 : 0.9);
    case AugmentOp::kPosterize:
      return PosterizeBits(bins, index, wide ? 6.0 : 4.0);
    case AugmentOp::kSolarize:
      return TorchLinspace(255.0, 0.0, bins, index);
    default:
      return 0.0;
  }
}

}  // namespace fusednorm
