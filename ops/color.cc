// The colour transforms (color.h): torchvision's argument rules and
// decisions, and each adjustment as the PIL route computes it.
#include "ops/color.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "kernels/color/color_dispatch.h"
#include "ops/alpha.h"
#include "ops/image_blocks.h"

namespace fusednorm {
namespace {

constexpr const char* kJitterNames[4] = {"brightness", "contrast", "saturation",
                                         "hue"};
// The largest blend factor: Pillow passes it to C as a float.
constexpr double kMaxJitterFactor = std::numeric_limits<float>::max();

ArgValue RangeArg(const std::optional<FactorRange>& r) {
  if (!r) return ArgValue::None();
  return ArgValue::Tuple(
      {ArgValue::Float(r->first), ArgValue::Float(r->second)});
}

// The luma of `input` in `out_channels` channels (an L or LA input's is
// its L channel: Pillow's convert("L") drops the alpha).
absl::Status ToGray(const ColorKernelInfo& k, const ImageView& input,
                    int out_channels, Image* output) {
  FUSEDNORM_RETURN_IF_ERROR(
      ShapeImage(input.height, input.width, out_channels, output));
  const int C = input.channels;
  for (int64_t y = 0; y < input.height; ++y) {
    const uint8_t* in = input.pixels.data() + y * input.row_stride;
    uint8_t* out = output->pixels.data() + y * input.width * out_channels;
    if (C > 2) {
      k.to_gray(in, out, input.width, C, out_channels);
      continue;
    }
    for (int64_t x = 0; x < input.width; ++x) {
      for (int c = 0; c < out_channels; ++c) {
        out[x * out_channels + c] = in[x * C];
      }
    }
  }
  return absl::OkStatus();
}

// The steps on an LA image: its L channel's, with its alpha kept
// (ops/alpha.h), except that adjust_hue's HSV round trip (through RGB,
// whose gray is the L channel again) makes the alpha 255.
absl::Status AdjustGrayAlpha(const ColorKernelInfo& kernel,
                             const ImageView& input, ColorStep* steps,
                             int count, int contrast, Image* output) {
  FUSEDNORM_RETURN_IF_ERROR(OnGrayOfLA(
      input,
      [&](const ImageView& gray, Image* out) {
        return AdjustColors(kernel, gray, steps, count, contrast, out);
      },
      output));
  for (int i = 0; i < count; ++i) {
    if (steps[i].kind != ColorStep::Kind::kHue) continue;
    for (size_t a = 1; a < output->pixels.size(); a += 2) {
      output->pixels[a] = 255;
    }
    break;
  }
  return absl::OkStatus();
}

}  // namespace

// ---- ColorOp ----

ColorOp::ColorOp() : kernel_(SelectColorKernel("")) {}

absl::Status ColorOp::Validate() const {
  return PrefixStatus(kernel_.status(), absl::StrCat(op_name(), ": "));
}

// ---- ColorJitter ----

ColorJitter::ColorJitter(std::optional<FactorRange> brightness,
                         std::optional<FactorRange> contrast,
                         std::optional<FactorRange> saturation,
                         std::optional<FactorRange> hue)
    : ranges_{brightness, contrast, saturation, hue} {}

absl::StatusOr<std::optional<FactorRange>> ColorJitter::FactorFromNumber(
    const char* name, double v) {
  if (!(v >= 0) || !std::isfinite(v)) {
    return InvalidArgumentCat("ColorJitter ", name, " = ", v,
                              ": a single number must be finite and >= 0");
  }
  if (v == 0) return std::optional<FactorRange>();
  return std::optional<FactorRange>(
      FactorRange{std::max(1.0 - v, 0.0), 1.0 + v});
}

absl::StatusOr<std::optional<FactorRange>> ColorJitter::HueFromNumber(
    double v) {
  if (!(v >= 0 && v <= 0.5)) {
    return InvalidArgumentCat("ColorJitter hue = ", v,
                              ": a single number must be in [0, 0.5]");
  }
  if (v == 0) return std::optional<FactorRange>();
  return std::optional<FactorRange>(FactorRange{-v, v});
}

std::optional<FactorRange> ColorJitter::FromRange(const char* name, double lo,
                                                  double hi) {
  const double centre = std::string(name) == "hue" ? 0.0 : 1.0;
  if (lo == centre && hi == centre) return std::nullopt;
  return FactorRange{lo, hi};
}

std::vector<NamedArg> ColorJitter::args() const {
  std::vector<NamedArg> a;
  for (int k = 0; k < 4; ++k)
    a.push_back({kJitterNames[k], RangeArg(ranges_[k])});
  return a;
}

std::unique_ptr<PreprocessOp> ColorJitter::Clone() const {
  return std::make_unique<ColorJitter>(*this);
}

absl::Status ColorJitter::Validate() const {
  for (int k = 0; k < 4; ++k) {
    if (!ranges_[k]) continue;
    const auto [lo, hi] = *ranges_[k];
    const bool hue = k == static_cast<int>(Jitter::kHue);
    const double low_bound = hue ? -0.5 : 0.0;
    const double high_bound = hue ? 0.5 : kMaxJitterFactor;
    if (!(low_bound <= lo && lo <= hi && hi <= high_bound)) {
      return InvalidArgumentCat(
          "ColorJitter ", kJitterNames[k], " = (", lo, ", ", hi,
          "): must satisfy ",
          hue ? "-0.5 <= min <= max <= 0.5"
              : "0 <= min <= max <= 3.4028234663852886e+38 (Pillow's blend "
                "factor is a float)");
    }
  }
  return ColorOp::Validate();
}

OpDecision ColorJitter::Decide(Size2, SampleStream& stream) const {
  OpDecision d;
  // torch.randperm(4): a uniformly random order (Fisher-Yates).
  for (int i = 3; i > 0; --i)
    std::swap(d.order[i], d.order[stream.UniformInt(0, i)]);
  for (int k = 0; k < 4; ++k) {
    if (!ranges_[k]) continue;
    const auto [lo, hi] = *ranges_[k];
    d.factors[k] = stream.UniformFloat32(lo, hi);  // as torch draws them
  }
  return d;
}

bool ColorJitter::Skips(const OpDecision& d) const {
  for (const double f : d.factors) {
    if (!std::isnan(f)) return false;
  }
  return true;
}

ColorStep JitterStep(Jitter which, double factor) {
  ColorStep step;
  step.alpha = static_cast<float>(factor);  // Image.blend takes a float
  switch (which) {
    case Jitter::kBrightness:
    case Jitter::kContrast:
      step.kind = ColorStep::Kind::kBlendConstant;
      break;
    case Jitter::kSaturation:
      step.kind = ColorStep::Kind::kBlendGray;
      break;
    case Jitter::kHue:
      // adjust_hue adds np.uint8(hue_factor * 255) to the hue byte.
      step.kind = ColorStep::Kind::kHue;
      step.shift = static_cast<uint8_t>(static_cast<int32_t>(factor * 255));
      break;
  }
  return step;
}

absl::Status ColorJitter::Apply(const ImageView& input,
                                const OpDecision& decision, OpWorkspace*,
                                Image* output) const {
  FUSEDNORM_RETURN_IF_ERROR(Validate());
  FUSEDNORM_RETURN_IF_ERROR(ValidateImage(input));
  FUSEDNORM_RETURN_IF_ERROR(OutputChannels(input.channels).status());
  ColorStep steps[kMaxColorSteps];
  int count = 0, contrast = -1;
  for (const int8_t k : decision.order) {
    const double f = decision.factors[k];
    if (std::isnan(f)) continue;
    if (k == static_cast<int>(Jitter::kContrast)) contrast = count;
    steps[count++] = JitterStep(static_cast<Jitter>(k), f);
  }
  return AdjustColors(**kernel_, input, steps, count, contrast, output);
}

absl::Status AdjustColors(const ColorKernelInfo& kernel, const ImageView& input,
                          ColorStep* steps, int count, int contrast,
                          Image* output) {
  const int C = input.channels;
  if (C == 2) {
    return AdjustGrayAlpha(kernel, input, steps, count, contrast, output);
  }
  FUSEDNORM_RETURN_IF_ERROR(ShapeImage(input.height, input.width, C, output));
  // One pass with the steps before Contrast (summing the luma it needs),
  // one in place with it and the rest.
  const int first = contrast < 0 ? count : contrast;
  uint64_t luma = 0;
  ForEachBlock(input, kMaxColorPixels,
               [&](const uint8_t* in, int64_t offset, int64_t pixels) {
                 kernel.adjust(in, output->pixels.data() + offset * C, pixels,
                               C, steps, first, contrast < 0 ? nullptr : &luma);
               });
  if (contrast < 0) return absl::OkStatus();
  // ImageEnhance.Contrast: int(mean + 0.5) of the image's L.
  const double mean = static_cast<double>(luma) /
                      static_cast<double>(input.height * input.width);
  steps[contrast].degenerate =
      static_cast<uint8_t>(static_cast<int>(mean + 0.5));
  ForEachBlock(output->view(), kMaxColorPixels,
               [&](const uint8_t*, int64_t offset, int64_t pixels) {
                 uint8_t* p = output->pixels.data() + offset * C;
                 kernel.adjust(p, p, pixels, C, steps + contrast,
                               count - contrast, nullptr);
               });
  return absl::OkStatus();
}

std::vector<NamedArg> ColorJitter::DecisionFields(const OpDecision& d) const {
  std::vector<ArgValue> order;
  for (const int8_t k : d.order) order.push_back(ArgValue::Int(k));
  std::vector<NamedArg> fields = {{"order", ArgValue::Tuple(std::move(order))}};
  for (int k = 0; k < 4; ++k) {
    fields.push_back({kJitterNames[k], std::isnan(d.factors[k])
                                           ? ArgValue::None()
                                           : ArgValue::Float(d.factors[k])});
  }
  return fields;
}

absl::StatusOr<OpDecision> ColorJitter::DecisionFromFields(
    const std::vector<NamedArg>& fields, Size2) const {
  DecisionReader r(*this, fields);
  OpDecision d;
  const ArgValue* order = r.Take("order");
  bool seen[4] = {};
  if (order == nullptr) return r.Missing("order");
  if (order->kind != ArgValue::Kind::kTuple || order->items.size() != 4) {
    return r.Error("order", "must be a permutation of 0, 1, 2, 3");
  }
  for (int i = 0; i < 4; ++i) {
    const ArgValue& v = order->items[i];
    if (v.kind != ArgValue::Kind::kInt || v.integer < 0 || v.integer > 3 ||
        seen[v.integer]) {
      return r.Error("order", absl::StrCat(FormatArg(*order),
                                           " is not a permutation of 0..3"));
    }
    seen[v.integer] = true;
    d.order[i] = static_cast<int8_t>(v.integer);
  }
  for (int k = 0; k < 4; ++k) {
    FUSEDNORM_ASSIGN_OR_RETURN(d.factors[k], r.Float(kJitterNames[k]));
  }
  FUSEDNORM_RETURN_IF_ERROR(r.Done());
  if (!std::isnan(d.factors[3]) && !(std::fabs(d.factors[3]) <= 0.5)) {
    return r.Error("hue", absl::StrCat(d.factors[3], " is not in [-0.5, 0.5]"));
  }
  for (int k = 0; k < 3; ++k) {
    if (!std::isnan(d.factors[k]) &&
        !(d.factors[k] >= 0 && d.factors[k] <= kMaxJitterFactor)) {
      return r.Error(kJitterNames[k],
                     absl::StrCat(d.factors[k],
                                  " is not in [0, 3.4028234663852886e+38] "
                                  "(Pillow's blend factor is a float)"));
    }
  }
  return d;
}

// ---- Grayscale ----

std::vector<NamedArg> Grayscale::args() const {
  return {{"num_output_channels", ArgValue::Int(num_output_channels_)}};
}

std::unique_ptr<PreprocessOp> Grayscale::Clone() const {
  return std::make_unique<Grayscale>(*this);
}

absl::Status Grayscale::Validate() const {
  if (num_output_channels_ != 1 && num_output_channels_ != 3) {
    return InvalidArgumentCat("Grayscale num_output_channels = ",
                              num_output_channels_, ": must be 1 or 3");
  }
  return ColorOp::Validate();
}

absl::StatusOr<int> Grayscale::OutputChannels(int channels) const {
  FUSEDNORM_RETURN_IF_ERROR(ColorOp::OutputChannels(channels).status());
  return num_output_channels_;
}

absl::Status Grayscale::Apply(const ImageView& input, const OpDecision&,
                              OpWorkspace*, Image* output) const {
  FUSEDNORM_RETURN_IF_ERROR(Validate());
  FUSEDNORM_RETURN_IF_ERROR(ValidateImage(input));
  FUSEDNORM_RETURN_IF_ERROR(OutputChannels(input.channels).status());
  return ToGray(**kernel_, input, num_output_channels_, output);
}

// ---- RandomGrayscale ----

std::vector<NamedArg> RandomGrayscale::args() const {
  return {{"p", ArgValue::Float(p_)}};
}

std::unique_ptr<PreprocessOp> RandomGrayscale::Clone() const {
  return std::make_unique<RandomGrayscale>(*this);
}

absl::Status RandomGrayscale::Validate() const {
  FUSEDNORM_RETURN_IF_ERROR(CheckProbability(op_name(), "p", p_));
  return ColorOp::Validate();
}

absl::StatusOr<int> RandomGrayscale::OutputChannels(int channels) const {
  if (channels == 1 || channels == 3) return channels;
  return InvalidArgumentCat("RandomGrayscale: images of ", channels,
                            " channels are not supported (torchvision makes "
                            "gray images of 1 or 3 channels)");
}

OpDecision RandomGrayscale::Decide(Size2, SampleStream& stream) const {
  OpDecision d;
  d.apply = stream.Uniform() < p_;
  return d;
}

absl::Status RandomGrayscale::Apply(const ImageView& input,
                                    const OpDecision& decision, OpWorkspace*,
                                    Image* output) const {
  FUSEDNORM_RETURN_IF_ERROR(Validate());
  FUSEDNORM_RETURN_IF_ERROR(ValidateImage(input));
  FUSEDNORM_RETURN_IF_ERROR(OutputChannels(input.channels).status());
  if (!decision.apply || input.channels == 1) return CopyImage(input, output);
  return ToGray(**kernel_, input, input.channels, output);
}

std::vector<NamedArg> RandomGrayscale::DecisionFields(
    const OpDecision& d) const {
  return {{"grayscale", ArgValue::Bool(d.apply)}};
}

absl::StatusOr<OpDecision> RandomGrayscale::DecisionFromFields(
    const std::vector<NamedArg>& fields, Size2) const {
  DecisionReader r(*this, fields);
  OpDecision d;
  FUSEDNORM_ASSIGN_OR_RETURN(d.apply, r.Bool("grayscale"));
  FUSEDNORM_RETURN_IF_ERROR(r.Done());
  return d;
}

}  // namespace fusednorm
