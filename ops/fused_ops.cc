// The fused ops (fused_ops.h): their arguments, checks and decisions.
#include "ops/fused_ops.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "ops/box_params.h"

namespace fusednorm {
namespace {

absl::Status Fused(const std::string& name) {
  return absl::UnimplementedError(
      absl::StrCat(name,
                   " is fused into FusedNormalization, which a Preprocessor "
                   "appends to every transform chain: it transforms no "
                   "pixels of its own"));
}

ArgValue Floats(const std::vector<double>& v) {
  std::vector<ArgValue> items;
  for (const double x : v) items.push_back(ArgValue::Float(x));
  return ArgValue::Tuple(std::move(items));
}

std::vector<float> ToFloat(const std::vector<double>& v) {
  return std::vector<float>(v.begin(), v.end());
}

}  // namespace

absl::StatusOr<Size2> FusedOp::OutputSize(Size2) const { return Fused(name()); }

absl::Status FusedOp::Apply(const ImageView&, const OpDecision&, OpWorkspace*,
                            Image*) const {
  return Fused(name());
}

// ---- RandomErasing ----

RandomErasing::RandomErasing(double p, double scale_min, double scale_max,
                             double ratio_min, double ratio_max,
                             std::vector<double> value)
    : value_(std::move(value)) {
  options_.enabled = true;
  options_.p = p;
  options_.scale_min = scale_min;
  options_.scale_max = scale_max;
  options_.ratio_min = ratio_min;
  options_.ratio_max = ratio_max;
  options_.value = ToFloat(value_);
}

void RandomErasing::FuseInto(FusedNormalizationOptions* options) const {
  options->erase = options_;
}

std::vector<NamedArg> RandomErasing::args() const {
  const EraseOptions& o = options_;
  ArgValue value = ArgValue::Int(0);
  if (value_.size() == 1) value = ArgValue::Float(value_[0]);
  if (value_.size() > 1) value = Floats(value_);
  return {{"p", ArgValue::Float(o.p)},
          {"scale", ArgValue::Tuple({ArgValue::Float(o.scale_min),
                                     ArgValue::Float(o.scale_max)})},
          {"ratio", ArgValue::Tuple({ArgValue::Float(o.ratio_min),
                                     ArgValue::Float(o.ratio_max)})},
          {"value", value},
          {"inplace", ArgValue::Bool(inplace_)}};
}

std::unique_ptr<PreprocessOp> RandomErasing::Clone() const {
  return std::make_unique<RandomErasing>(*this);
}

absl::Status RandomErasing::Validate() const {
  const EraseOptions& o = options_;
  FUSEDNORM_RETURN_IF_ERROR(CheckProbability("RandomErasing", "p", o.p));
  if (!(o.scale_min >= 0 && o.scale_min <= o.scale_max && o.scale_max <= 1)) {
    return InvalidArgumentCat("RandomErasing scale = (", o.scale_min, ", ",
                              o.scale_max,
                              "): must satisfy 0 <= min <= max <= 1");
  }
  if (!(o.ratio_min > 0 && o.ratio_min <= o.ratio_max &&
        std::isfinite(o.ratio_max))) {
    return InvalidArgumentCat("RandomErasing ratio = (", o.ratio_min, ", ",
                              o.ratio_max,
                              "): must satisfy 0 < min <= max, finite");
  }
  if (o.value.size() > kMaxChannels) {
    return InvalidArgumentCat("RandomErasing value has ", o.value.size(),
                              " values: at most one per channel (",
                              kMaxChannels, ")");
  }
  for (const double v : value_) {
    if (!std::isfinite(v) || !std::isfinite(static_cast<float>(v))) {
      return InvalidArgumentCat("RandomErasing value ", v,
                                ": must be a finite float32");
    }
  }
  return absl::OkStatus();
}

OpDecision RandomErasing::Decide(Size2 input, SampleStream& stream) const {
  OpDecision d;
  d.apply = stream.Uniform() < options_.p;
  if (!d.apply || input.height < 1 || input.width < 1) return d;
  StreamDraws draws(stream);
  const std::optional<CropWindow> box =
      DrawBox(BoxKind::kErase, input.height, input.width,
              {options_.scale_min, options_.scale_max, options_.ratio_min,
               options_.ratio_max},
              draws);
  if (box) d.erase = EraseRect{box->top, box->left, box->height, box->width};
  return d;
}

std::vector<NamedArg> RandomErasing::DecisionFields(const OpDecision& d) const {
  const EraseRect& r = d.erase;
  const bool erases = d.apply && !r.empty();
  std::vector<double> v = value_;
  if (v.empty()) v = {0.0};
  return {{"i", ArgValue::Int(erases ? r.top : 0)},
          {"j", ArgValue::Int(erases ? r.left : 0)},
          {"h", ArgValue::Int(erases ? r.height : 0)},
          {"w", ArgValue::Int(erases ? r.width : 0)},
          {"v", Floats(v)}};
}

namespace {

// Whether `v` is a number or tuples of numbers, however nested (a tensor's
// tolist(): torchvision's get_params gives v as (C, 1, 1)). True and False
// are no numbers here.
bool AllNumbers(const ArgValue& v) {
  if (v.kind != ArgValue::Kind::kTuple) return v.is_number();
  return std::all_of(v.items.begin(), v.items.end(), AllNumbers);
}

}  // namespace

absl::StatusOr<OpDecision> RandomErasing::DecisionFromFields(
    const std::vector<NamedArg>& fields, Size2 input) const {
  DecisionReader r(*this, fields);
  EraseRect e;
  FUSEDNORM_ASSIGN_OR_RETURN(e.top, r.Int("i"));
  FUSEDNORM_ASSIGN_OR_RETURN(e.left, r.Int("j"));
  FUSEDNORM_ASSIGN_OR_RETURN(e.height, r.Int("h"));
  FUSEDNORM_ASSIGN_OR_RETURN(e.width, r.Int("w"));
  // v: the values to erase to, as F.erase takes them; the loader erases to
  // the op's own value, the Python layer reads this one. Numbers only:
  // None, True and strings are refused.
  const ArgValue* v = r.Take("v");
  if (v == nullptr) return r.Missing("v");
  if (!AllNumbers(*v)) {
    return r.Error("v", absl::StrCat(FormatArg(*v),
                                     " is not a number or numbers to erase "
                                     "to (1 or one per channel)"));
  }
  FUSEDNORM_RETURN_IF_ERROR(r.Done());
  FUSEDNORM_RETURN_IF_ERROR(PrefixStatus(
      CheckEraseRect(e, input.height, input.width), "RandomErasing: "));
  OpDecision d;
  d.apply = !e.empty();
  d.erase = e;
  return d;
}

// ---- Normalize ----

Normalize::Normalize(Preset preset) {
  const Normalization n = PresetNormalization(preset);
  mean_.assign(n.mean.begin(), n.mean.end());
  std_.assign(n.std.begin(), n.std.end());
}

Normalize::Normalize(std::vector<double> mean, std::vector<double> std)
    : mean_(std::move(mean)), std_(std::move(std)) {}

std::vector<float> Normalize::mean() const { return ToFloat(mean_); }
std::vector<float> Normalize::std() const { return ToFloat(std_); }

std::vector<NamedArg> Normalize::args() const {
  return {{"mean", Floats(mean_)},
          {"std", Floats(std_)},
          {"inplace", ArgValue::Bool(inplace_)}};
}

std::unique_ptr<PreprocessOp> Normalize::Clone() const {
  return std::make_unique<Normalize>(*this);
}

absl::Status Normalize::Validate() const {
  // One of either spreads over the channels, as torch broadcasts it.
  const bool counts_fit =
      mean_.size() == std_.size() || mean_.size() == 1 || std_.size() == 1;
  if (mean_.empty() || std_.empty() || mean_.size() > kMaxChannels ||
      std_.size() > kMaxChannels || !counts_fit) {
    return InvalidArgumentCat("Normalize has ", mean_.size(), " means and ",
                              std_.size(), " stds: give 1..", kMaxChannels,
                              " of each, as many of both or 1 of either");
  }
  for (size_t c = 0; c < mean_.size(); ++c) {
    if (!std::isfinite(static_cast<float>(mean_[c]))) {
      return InvalidArgumentCat("Normalize mean[", c, "] = ", mean_[c],
                                ": must be a finite float32");
    }
  }
  for (size_t c = 0; c < std_.size(); ++c) {
    // torchvision refuses only a std that is 0 as a float32.
    const float s = static_cast<float>(std_[c]);
    if (s == 0 || !std::isfinite(s)) {
      return InvalidArgumentCat(
          "Normalize std[", c, "] = ", std_[c],
          s == 0 ? ": must not be 0 as a float32 (torchvision divides by it)"
                 : ": must be a finite float32");
    }
  }
  return absl::OkStatus();
}

void Normalize::FuseInto(FusedNormalizationOptions* options) const {
  options->mean = mean();
  options->std = std();
}

namespace {

// Whether a and b give every channel the same value, one value serving
// every channel as torch broadcasts it.
bool SameSpread(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() == b.size()) return a == b;
  if (a.size() != 1 && b.size() != 1) return false;
  const std::vector<float>& many = a.size() == 1 ? b : a;
  const float one = a.size() == 1 ? a[0] : b[0];
  return std::all_of(many.begin(), many.end(),
                     [one](float v) { return v == one; });
}

}  // namespace

bool Normalize::AgreesWith(const FusedNormalizationOptions& options) const {
  const Normalization now = options.mean.empty()
                                ? PresetNormalization(options.preset)
                                : Normalization{options.mean, options.std, 0};
  return SameSpread(mean(), now.mean) && SameSpread(std(), now.std);
}

// ---- ToTensor ----

ToTensor::Conversion ToTensor::conversion() const {
  if (source_ == "PILToTensor") return Conversion::kPilToTensor;
  if (source_ == "ToImage" || source_ == "ToImageTensor")
    return Conversion::kToImage;
  if (source_ == "ToDtype" || source_ == "ConvertImageDtype")
    return Conversion::kToFloat;
  if (source_ == "ToPureTensor") return Conversion::kPure;
  return Conversion::kToTensor;
}

std::vector<NamedArg> ToTensor::args() const {
  if (conversion() != Conversion::kToFloat) return {};
  std::vector<NamedArg> a = {{"dtype", ArgValue::Name("torch.float32")}};
  if (source_ == "ToDtype") a.push_back({"scale", ArgValue::Bool(true)});
  return a;
}

std::unique_ptr<PreprocessOp> ToTensor::Clone() const {
  return std::make_unique<ToTensor>(*this);
}

}  // namespace fusednorm
