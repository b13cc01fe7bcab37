// The auto-augment policies (auto_augment.h): torchvision's tables and
// draws, and the ops applied one after the other through the worker's
// buffers.
#include "ops/auto_augment.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "kernels/augment/augment_dispatch.h"
#include "kernels/color/color_dispatch.h"
#include "ops/image_blocks.h"

namespace fusednorm {
namespace {

// One op of an AutoAugment sub-policy: its probability and its bin of 10
// (-1: torchvision's None, the ops without bins).
struct PolicyOp {
  AugmentOp op;
  double p;
  int bin;
};
using SubPolicy = std::pair<PolicyOp, PolicyOp>;

constexpr AugmentOp kPosterize = AugmentOp::kPosterize;
constexpr AugmentOp kRotate = AugmentOp::kRotate;
constexpr AugmentOp kSolarize = AugmentOp::kSolarize;
constexpr AugmentOp kAutoContrast = AugmentOp::kAutoContrast;
constexpr AugmentOp kEqualize = AugmentOp::kEqualize;
constexpr AugmentOp kColor = AugmentOp::kColor;
constexpr AugmentOp kInvert = AugmentOp::kInvert;
constexpr AugmentOp kContrast = AugmentOp::kContrast;
constexpr AugmentOp kSharpness = AugmentOp::kSharpness;
constexpr AugmentOp kShearX = AugmentOp::kShearX;
constexpr AugmentOp kShearY = AugmentOp::kShearY;
constexpr AugmentOp kTranslateX = AugmentOp::kTranslateX;
constexpr AugmentOp kTranslateY = AugmentOp::kTranslateY;
constexpr AugmentOp kBrightness = AugmentOp::kBrightness;

// AutoAugmentPolicy.IMAGENET's sub-policies, in torchvision's order.
constexpr SubPolicy kImagenet[] = {
    {{kPosterize, 0.4, 8}, {kRotate, 0.6, 9}},
    {{kSolarize, 0.6, 5}, {kAutoContrast, 0.6, -1}},
    {{kEqualize, 0.8, -1}, {kEqualize, 0.6, -1}},
    {{kPosterize, 0.6, 7}, {kPosterize, 0.6, 6}},
    {{kEqualize, 0.4, -1}, {kSolarize, 0.2, 4}},
    {{kEqualize, 0.4, -1}, {kRotate, 0.8, 8}},
    {{kSolarize, 0.6, 3}, {kEqualize, 0.6, -1}},
    {{kPosterize, 0.8, 5}, {kEqualize, 1.0, -1}},
    {{kRotate, 0.2, 3}, {kSolarize, 0.6, 8}},
    {{kEqualize, 0.6, -1}, {kPosterize, 0.4, 6}},
    {{kRotate, 0.8, 8}, {kColor, 0.4, 0}},
    {{kRotate, 0.4, 9}, {kEqualize, 0.6, -1}},
    {{kEqualize, 0.0, -1}, {kEqualize, 0.8, -1}},
    {{kInvert, 0.6, -1}, {kEqualize, 1.0, -1}},
    {{kColor, 0.6, 4}, {kContrast, 1.0, 8}},
    {{kRotate, 0.8, 8}, {kColor, 1.0, 2}},
    {{kColor, 0.8, 8}, {kSolarize, 0.8, 7}},
    {{kSharpness, 0.4, 7}, {kInvert, 0.6, -1}},
    {{kShearX, 0.6, 5}, {kEqualize, 1.0, -1}},
    {{kColor, 0.4, 0}, {kEqualize, 0.6, -1}},
    {{kEqualize, 0.4, -1}, {kSolarize, 0.2, 4}},
    {{kSolarize, 0.6, 5}, {kAutoContrast, 0.6, -1}},
    {{kInvert, 0.6, -1}, {kEqualize, 1.0, -1}},
    {{kColor, 0.6, 4}, {kContrast, 1.0, 8}},
    {{kEqualize, 0.8, -1}, {kEqualize, 0.6, -1}},
};

// AutoAugmentPolicy.CIFAR10's.
constexpr SubPolicy kCifar10[] = {
    {{kInvert, 0.1, -1}, {kContrast, 0.2, 6}},
    {{kRotate, 0.7, 2}, {kTranslateX, 0.3, 9}},
    {{kSharpness, 0.8, 1}, {kSharpness, 0.9, 3}},
    {{kShearY, 0.5, 8}, {kTranslateY, 0.7, 9}},
    {{kAutoContrast, 0.5, -1}, {kEqualize, 0.9, -1}},
    {{kShearY, 0.2, 7}, {kPosterize, 0.3, 7}},
    {{kColor, 0.4, 3}, {kBrightness, 0.6, 7}},
    {{kSharpness, 0.3, 9}, {kBrightness, 0.7, 9}},
    {{kEqualize, 0.6, -1}, {kEqualize, 0.5, -1}},
    {{kContrast, 0.6, 7}, {kSharpness, 0.6, 5}},
    {{kColor, 0.7, 7}, {kTranslateX, 0.5, 8}},
    {{kEqualize, 0.3, -1}, {kAutoContrast, 0.4, -1}},
    {{kTranslateY, 0.4, 3}, {kSharpness, 0.2, 6}},
    {{kBrightness, 0.9, 6}, {kColor, 0.2, 8}},
    {{kSolarize, 0.5, 2}, {kInvert, 0.0, -1}},
    {{kEqualize, 0.2, -1}, {kAutoContrast, 0.6, -1}},
    {{kEqualize, 0.2, -1}, {kEqualize, 0.6, -1}},
    {{kColor, 0.9, 9}, {kEqualize, 0.6, -1}},
    {{kAutoContrast, 0.8, -1}, {kSolarize, 0.2, 8}},
    {{kBrightness, 0.1, 3}, {kColor, 0.7, 0}},
    {{kSolarize, 0.4, 5}, {kAutoContrast, 0.9, -1}},
    {{kTranslateY, 0.9, 9}, {kTranslateY, 0.7, 9}},
    {{kAutoContrast, 0.9, -1}, {kSolarize, 0.8, 3}},
    {{kEqualize, 0.8, -1}, {kInvert, 0.1, -1}},
    {{kTranslateY, 0.7, 9}, {kAutoContrast, 0.9, -1}},
};

// AutoAugmentPolicy.SVHN's.
constexpr SubPolicy kSvhn[] = {
    {{kShearX, 0.9, 4}, {kInvert, 0.2, -1}},
    {{kShearY, 0.9, 8}, {kInvert, 0.7, -1}},
    {{kEqualize, 0.6, -1}, {kSolarize, 0.6, 6}},
    {{kInvert, 0.9, -1}, {kEqualize, 0.6, -1}},
    {{kEqualize, 0.6, -1}, {kRotate, 0.9, 3}},
    {{kShearX, 0.9, 4}, {kAutoContrast, 0.8, -1}},
    {{kShearY, 0.9, 8}, {kInvert, 0.4, -1}},
    {{kShearY, 0.9, 5}, {kSolarize, 0.2, 6}},
    {{kInvert, 0.9, -1}, {kAutoContrast, 0.8, -1}},
    {{kEqualize, 0.6, -1}, {kRotate, 0.9, 3}},
    {{kShearX, 0.9, 4}, {kSolarize, 0.3, 3}},
    {{kShearY, 0.8, 8}, {kInvert, 0.7, -1}},
    {{kEqualize, 0.9, -1}, {kTranslateY, 0.6, 6}},
    {{kInvert, 0.9, -1}, {kEqualize, 0.6, -1}},
    {{kContrast, 0.3, 3}, {kRotate, 0.8, 4}},
    {{kInvert, 0.8, -1}, {kTranslateY, 0.0, 2}},
    {{kShearY, 0.7, 6}, {kSolarize, 0.4, 8}},
    {{kInvert, 0.6, -1}, {kRotate, 0.8, 4}},
    {{kShearY, 0.3, 7}, {kTranslateX, 0.9, 3}},
    {{kShearX, 0.1, 6}, {kInvert, 0.6, -1}},
    {{kSolarize, 0.7, 2}, {kTranslateY, 0.6, 7}},
    {{kShearY, 0.8, 4}, {kInvert, 0.8, -1}},
    {{kShearX, 0.7, 9}, {kTranslateY, 0.8, 3}},
    {{kShearY, 0.8, 5}, {kAutoContrast, 0.7, -1}},
    {{kShearX, 0.7, 2}, {kInvert, 0.1, -1}},
};

constexpr const char* kPolicyNames[] = {"imagenet", "cifar10", "svhn"};
constexpr const char* kPolicyPrints[] = {"AutoAugmentPolicy.IMAGENET",
                                         "AutoAugmentPolicy.CIFAR10",
                                         "AutoAugmentPolicy.SVHN"};

absl::Span<const SubPolicy> SubPolicies(AutoAugmentPolicy policy) {
  switch (policy) {
    case AutoAugmentPolicy::kImagenet:
      return kImagenet;
    case AutoAugmentPolicy::kCifar10:
      return kCifar10;
    case AutoAugmentPolicy::kSvhn:
      return kSvhn;
  }
  return kImagenet;
}

// Appends (op, magnitude); a policy's Validate() keeps its ops within
// kMaxAugmentSteps.
void AddStep(AugmentOp op, double magnitude, OpDecision* d) {
  if (d->step_count < kMaxAugmentSteps) {
    d->steps[d->step_count++] = {op, magnitude};
  }
}

// One op of RandAugment's or TrivialAugmentWide's space with bin `bin`
// (or the op's 0) and, where signed, a random sign.
void DrawSigned(AugmentSpace space, AugmentOp op, int64_t bins, int64_t bin,
                Size2 size, SampleStream& stream, OpDecision* d) {
  double m = HasBins(op) ? BinMagnitude(space, op, bins, bin, size) : 0.0;
  if (IsSigned(op) && stream.UniformInt(0, 1) == 1) m = -m;
  AddStep(op, m, d);
}

absl::Status CheckBins(const char* op, int64_t bins) {
  if (bins >= 2 && bins <= (int64_t{1} << 24)) return absl::OkStatus();
  return InvalidArgumentCat(op, " num_magnitude_bins = ", bins,
                            ": must be in 2..16777216 (Posterize's bins "
                            "divide by num_magnitude_bins - 1)");
}

}  // namespace

// ---- AugmentPolicy ----

AugmentPolicy::AugmentPolicy(Interpolation interpolation, FillArg fill)
    : interpolation_(interpolation),
      fill_(std::move(fill)),
      kernel_(SelectAugmentKernel("")),
      color_(SelectColorKernel("")) {}

std::vector<NamedArg> AugmentPolicy::CommonArgs() const {
  return {{"interpolation", ArgValue::Name(InterpolationName(interpolation_))},
          {"fill", fill_.Print()}};
}

absl::Status AugmentPolicy::Validate() const {
  FUSEDNORM_RETURN_IF_ERROR(
      PrefixStatus(kernel_.status(), absl::StrCat(op_name(), ": ")));
  FUSEDNORM_RETURN_IF_ERROR(
      PrefixStatus(color_.status(), absl::StrCat(op_name(), ": ")));
  return fill_.Validate(op_name());
}

absl::StatusOr<int> AugmentPolicy::OutputChannels(int channels) const {
  return FillableChannels(op_name(), channels, fill_);
}

absl::Status AugmentPolicy::Apply(const ImageView& input,
                                  const OpDecision& decision, OpWorkspace* ws,
                                  Image* output) const {
  FUSEDNORM_RETURN_IF_ERROR(Validate());
  FUSEDNORM_RETURN_IF_ERROR(ValidateImage(input));
  FUSEDNORM_RETURN_IF_ERROR(OutputChannels(input.channels).status());
  const int n = decision.step_count;
  if (n == 0) return CopyImage(input, output);
  const AugmentContext c{FilterOf(interpolation_), fill_.Color(), *kernel_,
                         *color_};
  ImageView from = input;
  for (int i = 0; i < n; ++i) {
    Image* to = i + 1 == n ? output : &ws->between[i % 2];
    const AugmentStep& s = decision.steps[i];
    FUSEDNORM_RETURN_IF_ERROR(PrefixStatus(
        ApplyAugmentOp(s.op, s.magnitude, c, from, &ws->affine, to),
        absl::StrCat(op_name(), ": ")));
    from = to->view();
  }
  return absl::OkStatus();
}

std::vector<NamedArg> AugmentPolicy::DecisionFields(const OpDecision& d) const {
  std::vector<ArgValue> ops;
  for (int i = 0; i < d.step_count; ++i) {
    ops.push_back(ArgValue::Tuple({ArgValue::Text(AugmentOpName(d.steps[i].op)),
                                   ArgValue::Float(d.steps[i].magnitude)}));
  }
  return {{"ops", ArgValue::Tuple(std::move(ops))}};
}

absl::StatusOr<OpDecision> AugmentPolicy::DecisionFromFields(
    const std::vector<NamedArg>& fields, Size2) const {
  DecisionReader r(*this, fields);
  const ArgValue* ops = r.Take("ops");
  const char* expected =
      "must be a sequence of (name, magnitude) pairs, e.g. (('Rotate', "
      "-12.0),)";
  if (ops == nullptr || ops->kind != ArgValue::Kind::kTuple) {
    return r.Error("ops", expected);
  }
  if (ops->items.size() > kMaxAugmentSteps) {
    return r.Error("ops", absl::StrCat("has ", ops->items.size(),
                                       " ops: at most ", kMaxAugmentSteps));
  }
  OpDecision d;
  for (const ArgValue& item : ops->items) {
    if (item.kind != ArgValue::Kind::kTuple || item.items.size() != 2 ||
        item.items[0].kind != ArgValue::Kind::kText ||
        !item.items[1].is_number()) {
      return r.Error("ops", expected);
    }
    const std::optional<AugmentOp> op = AugmentOpNamed(item.items[0].text);
    if (!op) {
      return r.Error("ops", absl::StrCat("'", item.items[0].text,
                                         "' is not an op of the policies"));
    }
    const double m = item.items[1].number;
    FUSEDNORM_RETURN_IF_ERROR(
        PrefixStatus(CheckMagnitude(*op, m), absl::StrCat(op_name(), ": ")));
    AddStep(*op, m, &d);
  }
  FUSEDNORM_RETURN_IF_ERROR(r.Done());
  return d;
}

// ---- AutoAugment ----

absl::StatusOr<AutoAugmentPolicy> AutoAugment::PolicyNamed(
    const std::string& name) {
  for (int k = 0; k < 3; ++k) {
    if (name == kPolicyNames[k]) return static_cast<AutoAugmentPolicy>(k);
  }
  return InvalidArgumentCat(
      "AutoAugment policy = ", name,
      ": must be AutoAugmentPolicy.IMAGENET, CIFAR10 or SVHN");
}

std::vector<NamedArg> AutoAugment::args() const {
  std::vector<NamedArg> a = {
      {"policy", ArgValue::Name(kPolicyPrints[static_cast<int>(policy_)])}};
  for (NamedArg& n : CommonArgs()) a.push_back(std::move(n));
  return a;
}

std::unique_ptr<PreprocessOp> AutoAugment::Clone() const {
  return std::make_unique<AutoAugment>(*this);
}

OpDecision AutoAugment::Decide(Size2 input, SampleStream& stream) const {
  // get_params: a sub-policy, two probabilities (float32) and two signs.
  const absl::Span<const SubPolicy> policies = SubPolicies(policy_);
  const SubPolicy& sub =
      policies[stream.UniformInt(0, static_cast<int64_t>(policies.size()) - 1)];
  const float probs[2] = {stream.Uniform(), stream.Uniform()};
  const int64_t signs[2] = {stream.UniformInt(0, 1), stream.UniformInt(0, 1)};
  OpDecision d;
  const PolicyOp ops[2] = {sub.first, sub.second};
  for (int i = 0; i < 2; ++i) {
    // probs[i] <= p, compared in float32 as torch compares them.
    if (!(probs[i] <= static_cast<float>(ops[i].p))) continue;
    double m = ops[i].bin < 0 ? 0.0
                              : BinMagnitude(AugmentSpace::kAutoAugment,
                                             ops[i].op, 10, ops[i].bin, input);
    if (IsSigned(ops[i].op) && signs[i] == 0) m = -m;
    AddStep(ops[i].op, m, &d);
  }
  return d;
}

// ---- RandAugment ----

std::vector<NamedArg> RandAugment::args() const {
  std::vector<NamedArg> a = {{"num_ops", ArgValue::Int(num_ops_)},
                             {"magnitude", ArgValue::Int(magnitude_)},
                             {"num_magnitude_bins", ArgValue::Int(bins_)}};
  for (NamedArg& n : CommonArgs()) a.push_back(std::move(n));
  return a;
}

std::unique_ptr<PreprocessOp> RandAugment::Clone() const {
  return std::make_unique<RandAugment>(*this);
}

absl::Status RandAugment::Validate() const {
  if (num_ops_ < 0 || num_ops_ > kMaxAugmentSteps) {
    return InvalidArgumentCat("RandAugment num_ops = ", num_ops_,
                              ": must be in 0..", kMaxAugmentSteps);
  }
  FUSEDNORM_RETURN_IF_ERROR(CheckBins("RandAugment", bins_));
  if (magnitude_ < 0 || magnitude_ >= bins_) {
    return InvalidArgumentCat("RandAugment magnitude = ", magnitude_,
                              ": must be a bin, in 0..", bins_ - 1,
                              " (num_magnitude_bins = ", bins_, ")");
  }
  return AugmentPolicy::Validate();
}

OpDecision RandAugment::Decide(Size2 input, SampleStream& stream) const {
  const absl::Span<const AugmentOp> ops = SpaceOps(AugmentSpace::kRandAugment);
  OpDecision d;
  for (int64_t k = 0; k < num_ops_; ++k) {
    const AugmentOp op =
        ops[stream.UniformInt(0, static_cast<int64_t>(ops.size()) - 1)];
    DrawSigned(AugmentSpace::kRandAugment, op, bins_, magnitude_, input, stream,
               &d);
  }
  return d;
}

// ---- TrivialAugmentWide ----

std::vector<NamedArg> TrivialAugmentWide::args() const {
  std::vector<NamedArg> a = {{"num_magnitude_bins", ArgValue::Int(bins_)}};
  for (NamedArg& n : CommonArgs()) a.push_back(std::move(n));
  return a;
}

std::unique_ptr<PreprocessOp> TrivialAugmentWide::Clone() const {
  return std::make_unique<TrivialAugmentWide>(*this);
}

absl::Status TrivialAugmentWide::Validate() const {
  FUSEDNORM_RETURN_IF_ERROR(CheckBins("TrivialAugmentWide", bins_));
  return AugmentPolicy::Validate();
}

OpDecision TrivialAugmentWide::Decide(Size2 input, SampleStream& stream) const {
  const absl::Span<const AugmentOp> ops =
      SpaceOps(AugmentSpace::kTrivialAugmentWide);
  const AugmentOp op =
      ops[stream.UniformInt(0, static_cast<int64_t>(ops.size()) - 1)];
  const int64_t bin = HasBins(op) ? stream.UniformInt(0, bins_ - 1) : 0;
  OpDecision d;
  DrawSigned(AugmentSpace::kTrivialAugmentWide, op, bins_, bin, input, stream,
             &d);
  return d;
}

}  // namespace fusednorm
