// The colour transforms, torchvision's on PIL images: ColorJitter,
// Grayscale and RandomGrayscale. Their pixels are Pillow's (ImageEnhance's
// blends, convert("L"), the HSV round trip of adjust_hue), computed by the
// colour kernels (kernels/color/), whose row is chosen when the op is made.
//
// Images of 1 (L), 2 (LA), 3 (RGB) or 4 (RGBA) channels, as Pillow treats
// those modes (ops/alpha.h says how for LA; adjust_hue's HSV round trip
// also sets an LA image's alpha to 255). Every colour op commutes with a
// horizontal flip (contrast's mean is the whole image's), so a flip before
// one is still done by the fused op.
#ifndef FUSEDNORM_OPS_COLOR_H_
#define FUSEDNORM_OPS_COLOR_H_

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/color/color_kernel.h"
#include "ops/transform.h"

namespace fusednorm {

// A factor range (min, max) a factor is drawn from uniformly.
using FactorRange = std::pair<double, double>;

// The base of the colour ops: the kernel row.
class ColorOp : public PreprocessOp {
 public:
  absl::StatusOr<Size2> OutputSize(Size2 input) const override { return input; }
  bool CommutesWithHorizontalFlip() const override { return true; }
  bool KeepsSize() const override { return true; }
  // The kernel row (chosen when the op is made).
  absl::Status Validate() const override;

 protected:
  ColorOp();
  absl::StatusOr<const ColorKernelInfo*> kernel_;
};

class ColorJitter : public ColorOp {
 public:
  // torchvision's arguments, each a number v (brightness, contrast and
  // saturation: the range [max(0, 1 - v), 1 + v]; hue: [-v, v]) or a range.
  // nullopt: the adjustment is not made (torchvision's None).
  ColorJitter(std::optional<FactorRange> brightness,
              std::optional<FactorRange> contrast,
              std::optional<FactorRange> saturation,
              std::optional<FactorRange> hue);
  // The ranges torchvision's _check_input makes of single numbers
  // (InvalidArgument naming the argument for a negative one); 0 gives
  // nullopt.
  static absl::StatusOr<std::optional<FactorRange>> FactorFromNumber(
      const char* name, double v);
  static absl::StatusOr<std::optional<FactorRange>> HueFromNumber(double v);
  // A (min, max) pair: None where both are the centre (1, or 0 for hue),
  // as torchvision's _check_input makes it; ranges are checked by
  // Validate.
  static std::optional<FactorRange> FromRange(const char* name, double lo,
                                              double hi);

  const char* op_name() const override { return "ColorJitter"; }
  std::vector<NamedArg> args() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  // 0 <= min <= max for the factors, -0.5 <= min <= max <= 0.5 for the
  // hue, all finite.
  absl::Status Validate() const override;
  // torchvision's get_params: a random order of the four (randperm(4)),
  // then a factor for each adjustment made, uniform in its range.
  OpDecision Decide(Size2 input, SampleStream& stream) const override;
  bool Skips(const OpDecision& d) const override;
  absl::Status Apply(const ImageView& input, const OpDecision& decision,
                     OpWorkspace* ws, Image* output) const override;
  // order (fn_idx), brightness, contrast, saturation, hue (None where not
  // drawn).
  std::vector<NamedArg> DecisionFields(const OpDecision& d) const override;
  absl::StatusOr<OpDecision> DecisionFromFields(
      const std::vector<NamedArg>& fields, Size2 input) const override;

 private:
  std::array<std::optional<FactorRange>, 4> ranges_;
};

// The adjustment `which` with `factor` (Pillow's blend factor, or the hue
// factor) as a colour-kernel step; Contrast's constant is set by
// AdjustColors once the mean before it is known.
ColorStep JitterStep(Jitter which, double factor);

// `steps[0 .. count - 1]` applied to `input` in order into `output`, as
// Pillow's ImageEnhance calls in a row give them; steps[contrast] (or
// none: -1) is Contrast, whose constant is the mean of the image's L
// before it (its `degenerate` is set here).
absl::Status AdjustColors(const ColorKernelInfo& kernel, const ImageView& input,
                          ColorStep* steps, int count, int contrast,
                          Image* output);

// Pillow's convert("L"), then the L replicated when num_output_channels is
// 3.
class Grayscale : public ColorOp {
 public:
  explicit Grayscale(int num_output_channels = 1)
      : num_output_channels_(num_output_channels) {}
  const char* op_name() const override { return "Grayscale"; }
  std::vector<NamedArg> args() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  absl::Status Validate() const override;
  absl::StatusOr<int> OutputChannels(int channels) const override;
  absl::Status Apply(const ImageView& input, const OpDecision& decision,
                     OpWorkspace* ws, Image* output) const override;

 private:
  int num_output_channels_;
};

// Grayscale with the input's channel count, with probability p; the
// decision is {grayscale: bool}.
class RandomGrayscale : public ColorOp {
 public:
  explicit RandomGrayscale(double p = 0.1) : p_(p) {}
  const char* op_name() const override { return "RandomGrayscale"; }
  std::vector<NamedArg> args() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  absl::Status Validate() const override;
  // 1 or 3: torchvision's rgb_to_grayscale makes no 4-channel image.
  absl::StatusOr<int> OutputChannels(int channels) const override;
  OpDecision Decide(Size2 input, SampleStream& stream) const override;
  bool Skips(const OpDecision& d) const override { return !d.apply; }
  absl::Status Apply(const ImageView& input, const OpDecision& decision,
                     OpWorkspace* ws, Image* output) const override;
  std::vector<NamedArg> DecisionFields(const OpDecision& d) const override;
  absl::StatusOr<OpDecision> DecisionFromFields(
      const std::vector<NamedArg>& fields, Size2 input) const override;

 private:
  double p_;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_COLOR_H_
