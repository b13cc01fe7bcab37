// The standalone auto-augment transforms (augment_transforms.h):
// torchvision's argument rules and draws.
#include "ops/augment_transforms.h"

#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/round.h"
#include "core/status.h"
#include "kernels/augment/augment_dispatch.h"
#include "ops/enhance.h"
#include "ops/image_blocks.h"

namespace fusednorm {
namespace {

ArgValue PairArg(std::pair<double, double> p) {
  return ArgValue::Tuple({ArgValue::Float(p.first), ArgValue::Float(p.second)});
}

ArgValue OptionalPairArg(const std::optional<std::pair<double, double>>& p) {
  return p ? PairArg(*p) : ArgValue::None();
}

// A (min, max) torch draws from in float32: min <= max, both and their
// difference within float's range (as torch's uniform_ requires);
// InvalidArgument naming op and argument otherwise.
absl::Status CheckRange(const char* op, const char* name,
                        std::pair<double, double> r) {
  constexpr double kMax = std::numeric_limits<float>::max();
  if (std::fabs(r.first) <= kMax && std::fabs(r.second) <= kMax &&
      r.first <= r.second &&
      static_cast<double>(static_cast<float>(r.second)) -
              static_cast<double>(static_cast<float>(r.first)) <=
          kMax) {
    return absl::OkStatus();
  }
  return InvalidArgumentCat(op, " ", name, " = ", FormatArg(PairArg(r)),
                            ": must be finite floats, min <= max, and max - "
                            "min a float");
}

}  // namespace

// ---- AffineOp ----

AffineOp::AffineOp(Interpolation interpolation, FillArg fill,
                   std::optional<Point2> center)
    : interpolation_(interpolation),
      fill_(std::move(fill)),
      center_(center),
      kernel_(SelectAugmentKernel("")) {}

ArgValue AffineOp::CenterArg() const {
  if (!center_) return ArgValue::None();
  return PairArg(*center_);
}

absl::StatusOr<int> AffineOp::OutputChannels(int channels) const {
  return FillableChannels(op_name(), channels, fill_);
}

absl::Status AffineOp::Validate() const {
  FUSEDNORM_RETURN_IF_ERROR(
      PrefixStatus(kernel_.status(), absl::StrCat(op_name(), ": ")));
  if (center_ &&
      !(std::isfinite(center_->first) && std::isfinite(center_->second))) {
    return InvalidArgumentCat(op_name(), " center = ", FormatArg(CenterArg()),
                              ": must be finite");
  }
  return fill_.Validate(op_name());
}

// ---- RandomRotation ----

std::vector<NamedArg> RandomRotation::args() const {
  return {{"degrees", PairArg(degrees_)},
          {"interpolation", ArgValue::Name(InterpolationName(interpolation_))},
          {"expand", ArgValue::Bool(expand_)},
          {"center", CenterArg()},
          {"fill", fill_.Print()}};
}

std::unique_ptr<PreprocessOp> RandomRotation::Clone() const {
  return std::make_unique<RandomRotation>(*this);
}

absl::Status RandomRotation::Validate() const {
  FUSEDNORM_RETURN_IF_ERROR(CheckRange("RandomRotation", "degrees", degrees_));
  return AffineOp::Validate();
}

absl::StatusOr<Size2> RandomRotation::OutputSize(Size2 input) const {
  if (!expand_) return input;
  return InvalidArgumentCat(
      name(), ": with expand=True the size depends on the angle drawn");
}

absl::StatusOr<Size2> RandomRotation::DecidedOutputSize(
    Size2 input, const OpDecision& d) const {
  absl::StatusOr<Size2> size = RotatedSize(input, d.angle, expand_, center_);
  if (size.ok()) {
    FUSEDNORM_RETURN_IF_ERROR(
        PrefixStatus(ValidateOutputSize(size->height, size->width),
                     absl::StrCat(op_name(), ": ")));
    return size;
  }
  return PrefixStatus(size.status(), absl::StrCat(op_name(), ": "));
}

OpDecision RandomRotation::Decide(Size2, SampleStream& stream) const {
  OpDecision d;
  d.angle = stream.UniformFloat32(degrees_.first, degrees_.second);
  return d;
}

absl::Status RandomRotation::Apply(const ImageView& input, const OpDecision& d,
                                   OpWorkspace* ws, Image* output) const {
  FUSEDNORM_RETURN_IF_ERROR(Validate());
  FUSEDNORM_RETURN_IF_ERROR(ValidateImage(input));
  FUSEDNORM_RETURN_IF_ERROR(OutputChannels(input.channels).status());
  FUSEDNORM_RETURN_IF_ERROR(
      DecidedOutputSize({input.height, input.width}, d).status());
  return PrefixStatus(
      PillowRotate(**kernel_, input, d.angle, FilterOf(interpolation_), expand_,
                   center_, fill_.Color(), &ws->affine, output),
      absl::StrCat(op_name(), ": "));
}

std::vector<NamedArg> RandomRotation::DecisionFields(
    const OpDecision& d) const {
  return {{"angle", ArgValue::Float(d.angle)}};
}

absl::StatusOr<OpDecision> RandomRotation::DecisionFromFields(
    const std::vector<NamedArg>& fields, Size2) const {
  DecisionReader r(*this, fields);
  OpDecision d;
  FUSEDNORM_ASSIGN_OR_RETURN(d.angle, r.Float("angle"));
  FUSEDNORM_RETURN_IF_ERROR(r.Done());
  if (!std::isfinite(d.angle)) {
    return r.Error("angle",
                   "must be a finite number (not None, NaN or infinity)");
  }
  return d;
}

// ---- RandomAffine ----

std::vector<NamedArg> RandomAffine::args() const {
  std::vector<ArgValue> shear;
  for (const double v : r_.shear) shear.push_back(ArgValue::Float(v));
  return {{"degrees", PairArg(r_.degrees)},
          {"translate", OptionalPairArg(r_.translate)},
          {"scale", OptionalPairArg(r_.scale)},
          {"shear", r_.shear.empty() ? ArgValue::None()
                                     : ArgValue::Tuple(std::move(shear))},
          {"interpolation", ArgValue::Name(InterpolationName(interpolation_))},
          {"fill", fill_.Print()},
          {"center", CenterArg()}};
}

std::unique_ptr<PreprocessOp> RandomAffine::Clone() const {
  return std::make_unique<RandomAffine>(*this);
}

absl::Status RandomAffine::Validate() const {
  FUSEDNORM_RETURN_IF_ERROR(CheckRange("RandomAffine", "degrees", r_.degrees));
  if (r_.translate) {
    const auto [tx, ty] = *r_.translate;
    if (!(tx >= 0 && tx <= 1 && ty >= 0 && ty <= 1)) {
      return InvalidArgumentCat(
          "RandomAffine translate = ", FormatArg(PairArg(*r_.translate)),
          ": translation fractions must be in [0, 1]");
    }
  }
  if (r_.scale) {
    FUSEDNORM_RETURN_IF_ERROR(CheckRange("RandomAffine", "scale", *r_.scale));
    if (!(static_cast<float>(r_.scale->first) > 0)) {
      return InvalidArgumentCat(
          "RandomAffine scale = ", FormatArg(PairArg(*r_.scale)),
          ": scale values must be positive floats");
    }
  }
  if (!r_.shear.empty()) {
    if (r_.shear.size() != 2 && r_.shear.size() != 4) {
      return InvalidArgumentCat("RandomAffine shear has ", r_.shear.size(),
                                " values: give 1, 2 or 4");
    }
    for (size_t i = 0; i < r_.shear.size(); i += 2) {
      FUSEDNORM_RETURN_IF_ERROR(
          CheckRange("RandomAffine", "shear", {r_.shear[i], r_.shear[i + 1]}));
    }
  }
  return AffineOp::Validate();
}

OpDecision RandomAffine::Decide(Size2 input, SampleStream& stream) const {
  OpDecision d;
  d.angle = stream.UniformFloat32(r_.degrees.first, r_.degrees.second);
  if (r_.translate) {
    const double max_dx =
        r_.translate->first * static_cast<double>(input.width);
    const double max_dy =
        r_.translate->second * static_cast<double>(input.height);
    // int(round(x)).
    d.translate[0] = RoundHalfEven(stream.UniformFloat32(-max_dx, max_dx));
    d.translate[1] = RoundHalfEven(stream.UniformFloat32(-max_dy, max_dy));
  }
  if (r_.scale) {
    d.scale = stream.UniformFloat32(r_.scale->first, r_.scale->second);
  }
  if (!r_.shear.empty()) {
    d.shear[0] = stream.UniformFloat32(r_.shear[0], r_.shear[1]);
    if (r_.shear.size() == 4) {
      d.shear[1] = stream.UniformFloat32(r_.shear[2], r_.shear[3]);
    }
  }
  return d;
}

absl::Status RandomAffine::Apply(const ImageView& input, const OpDecision& d,
                                 OpWorkspace* ws, Image* output) const {
  FUSEDNORM_RETURN_IF_ERROR(Validate());
  FUSEDNORM_RETURN_IF_ERROR(ValidateImage(input));
  FUSEDNORM_RETURN_IF_ERROR(OutputChannels(input.channels).status());
  return PrefixStatus(TorchvisionAffine(**kernel_, input, d.angle,
                                        {static_cast<double>(d.translate[0]),
                                         static_cast<double>(d.translate[1])},
                                        d.scale, {d.shear[0], d.shear[1]},
                                        center_, FilterOf(interpolation_),
                                        fill_.Color(), &ws->affine, output),
                      absl::StrCat(op_name(), ": "));
}

std::vector<NamedArg> RandomAffine::DecisionFields(const OpDecision& d) const {
  return {{"angle", ArgValue::Float(d.angle)},
          {"translate", ArgValue::Tuple({ArgValue::Int(d.translate[0]),
                                         ArgValue::Int(d.translate[1])})},
          {"scale", ArgValue::Float(d.scale)},
          {"shear", PairArg({d.shear[0], d.shear[1]})}};
}

absl::StatusOr<OpDecision> RandomAffine::DecisionFromFields(
    const std::vector<NamedArg>& fields, Size2) const {
  DecisionReader r(*this, fields);
  OpDecision d;
  FUSEDNORM_ASSIGN_OR_RETURN(d.angle, r.Float("angle"));
  FUSEDNORM_ASSIGN_OR_RETURN(d.scale, r.Float("scale"));
  const ArgValue* translate = r.Take("translate");
  const ArgValue* shear = r.Take("shear");
  FUSEDNORM_RETURN_IF_ERROR(r.Done());
  if (translate == nullptr || translate->kind != ArgValue::Kind::kTuple ||
      translate->items.size() != 2 ||
      translate->items[0].kind != ArgValue::Kind::kInt ||
      translate->items[1].kind != ArgValue::Kind::kInt) {
    return r.Error("translate", "must be a (tx, ty) pair of ints");
  }
  if (shear == nullptr || shear->kind != ArgValue::Kind::kTuple ||
      shear->items.size() != 2 || !shear->items[0].is_number() ||
      !shear->items[1].is_number()) {
    return r.Error("shear", "must be a (shear_x, shear_y) pair of numbers");
  }
  for (int k = 0; k < 2; ++k) {
    d.translate[k] = translate->items[k].integer;
    d.shear[k] = shear->items[k].number;
    if (std::llabs(d.translate[k]) >= (int64_t{1} << 31)) {
      return r.Error("translate", "must be under 2^31 pixels");
    }
  }
  if (!std::isfinite(d.angle) || !(d.scale > 0) || !std::isfinite(d.scale) ||
      !std::isfinite(d.shear[0]) || !std::isfinite(d.shear[1])) {
    return r.Error("angle", "angle, scale and shear must be finite, scale > 0");
  }
  return d;
}

// ---- RandomPixelOp ----

RandomPixelOp::RandomPixelOp(double p)
    : p_(p), kernel_(SelectAugmentKernel("")) {}

absl::StatusOr<int> RandomPixelOp::OutputChannels(int channels) const {
  // An op that takes alpha is ImageEnhance's, not ImageOps' tables.
  if (!takes_alpha()) {
    FUSEDNORM_RETURN_IF_ERROR(CheckTableChannels(op_name(), channels));
  }
  return channels;
}

absl::Status RandomPixelOp::Validate() const {
  FUSEDNORM_RETURN_IF_ERROR(CheckProbability(op_name(), "p", p_));
  return PrefixStatus(kernel_.status(), absl::StrCat(op_name(), ": "));
}

OpDecision RandomPixelOp::Decide(Size2, SampleStream& stream) const {
  OpDecision d;
  d.apply = stream.Uniform() < p_;
  return d;
}

absl::Status RandomPixelOp::Apply(const ImageView& input, const OpDecision& d,
                                  OpWorkspace*, Image* output) const {
  FUSEDNORM_RETURN_IF_ERROR(Validate());
  FUSEDNORM_RETURN_IF_ERROR(ValidateImage(input));
  FUSEDNORM_RETURN_IF_ERROR(OutputChannels(input.channels).status());
  if (!d.apply) return CopyImage(input, output);
  return ApplyOp(**kernel_, input, output);
}

std::vector<NamedArg> RandomPixelOp::DecisionFields(const OpDecision& d) const {
  return {{field(), ArgValue::Bool(d.apply)}};
}

absl::StatusOr<OpDecision> RandomPixelOp::DecisionFromFields(
    const std::vector<NamedArg>& fields, Size2) const {
  DecisionReader r(*this, fields);
  OpDecision d;
  FUSEDNORM_ASSIGN_OR_RETURN(d.apply, r.Bool(field()));
  FUSEDNORM_RETURN_IF_ERROR(r.Done());
  return d;
}

// ---- the p-gated ops ----

std::vector<NamedArg> RandomPosterize::args() const {
  return {{"bits", ArgValue::Int(bits_)}, {"p", ArgValue::Float(p_)}};
}

std::unique_ptr<PreprocessOp> RandomPosterize::Clone() const {
  return std::make_unique<RandomPosterize>(*this);
}

absl::Status RandomPosterize::Validate() const {
  if (bits_ < 0 || bits_ > 8) {
    return InvalidArgumentCat("RandomPosterize bits = ", bits_,
                              ": must be in 0..8");
  }
  return RandomPixelOp::Validate();
}

absl::Status RandomPosterize::ApplyOp(const AugmentKernelInfo& kernel,
                                      const ImageView& input,
                                      Image* output) const {
  return Posterize(kernel, input, static_cast<int>(bits_), output);
}

std::vector<NamedArg> RandomSolarize::args() const {
  return {{"threshold", ArgValue::Float(threshold_)},
          {"p", ArgValue::Float(p_)}};
}

std::unique_ptr<PreprocessOp> RandomSolarize::Clone() const {
  return std::make_unique<RandomSolarize>(*this);
}

absl::Status RandomSolarize::Validate() const {
  if (!std::isfinite(threshold_)) {
    return InvalidArgumentCat("RandomSolarize threshold = ", threshold_,
                              ": must be finite");
  }
  return RandomPixelOp::Validate();
}

absl::Status RandomSolarize::ApplyOp(const AugmentKernelInfo& kernel,
                                     const ImageView& input,
                                     Image* output) const {
  return Solarize(kernel, input, threshold_, output);
}

std::vector<NamedArg> RandomAdjustSharpness::args() const {
  return {{"sharpness_factor", ArgValue::Float(factor_)},
          {"p", ArgValue::Float(p_)}};
}

std::unique_ptr<PreprocessOp> RandomAdjustSharpness::Clone() const {
  return std::make_unique<RandomAdjustSharpness>(*this);
}

absl::Status RandomAdjustSharpness::Validate() const {
  if (!(factor_ >= 0 && factor_ <= std::numeric_limits<float>::max())) {
    return InvalidArgumentCat(
        "RandomAdjustSharpness sharpness_factor = ", factor_,
        ": must be non-negative and a float (Pillow's blend factor)");
  }
  return RandomPixelOp::Validate();
}

absl::Status RandomAdjustSharpness::ApplyOp(const AugmentKernelInfo& kernel,
                                            const ImageView& input,
                                            Image* output) const {
  return Sharpness(kernel, input, factor_, output);
}

const char* RandomTableOp::op_name() const {
  switch (kind_) {
    case Kind::kAutocontrast:
      return "RandomAutocontrast";
    case Kind::kEqualize:
      return "RandomEqualize";
    case Kind::kInvert:
      return "RandomInvert";
  }
  return "";
}

const char* RandomTableOp::field() const {
  switch (kind_) {
    case Kind::kAutocontrast:
      return "autocontrast";
    case Kind::kEqualize:
      return "equalize";
    case Kind::kInvert:
      return "invert";
  }
  return "";
}

std::vector<NamedArg> RandomTableOp::args() const {
  return {{"p", ArgValue::Float(p_)}};
}

std::unique_ptr<PreprocessOp> RandomTableOp::Clone() const {
  return std::make_unique<RandomTableOp>(*this);
}

absl::Status RandomTableOp::ApplyOp(const AugmentKernelInfo& kernel,
                                    const ImageView& input,
                                    Image* output) const {
  switch (kind_) {
    case Kind::kAutocontrast:
      return AutoContrast(kernel, input, output);
    case Kind::kEqualize:
      return Equalize(kernel, input, output);
    case Kind::kInvert:
      return Invert(kernel, input, output);
  }
  return absl::InternalError("unknown table op");
}

}  // namespace fusednorm
