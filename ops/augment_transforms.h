// torchvision's standalone transforms made of the auto-augment kernels,
// on PIL images (their pixels: ops/affine.h, ops/enhance.h):
//
//   RandomRotation(degrees, interpolation, expand, center, fill)
//       decision {angle}: uniform in degrees (float32), F.rotate
//   RandomAffine(degrees, translate, scale, shear, interpolation, fill,
//       center)   decision {angle, translate, scale, shear}:
//       get_params' draws, F.affine
//   RandomPosterize(bits, p), RandomSolarize(threshold, p),
//   RandomAdjustSharpness(sharpness_factor, p), RandomAutocontrast(p),
//   RandomEqualize(p), RandomInvert(p)
//       decision {posterize | solarize | adjust_sharpness | autocontrast |
//       equalize | invert: bool}: applied when torch.rand(1) < p
//
// Ranges as torchvision checks them: degrees a non-negative number d
// (-d, d) or a (min, max); shear a non-negative number, 2 or 4 values;
// translate fractions in [0, 1]; scale factors > 0; bits 0..8; fill each
// 0..255 (ops/affine.h).
#ifndef FUSEDNORM_OPS_AUGMENT_TRANSFORMS_H_
#define FUSEDNORM_OPS_AUGMENT_TRANSFORMS_H_

#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/augment/augment_kernel.h"
#include "ops/affine.h"
#include "ops/transform.h"

namespace fusednorm {

// The base of RandomRotation and RandomAffine: the kernel, the filter and
// the fill.
class AffineOp : public PreprocessOp {
 public:
  absl::StatusOr<int> OutputChannels(int channels) const override;
  absl::Status Validate() const override;

 protected:
  AffineOp(Interpolation interpolation, FillArg fill,
           std::optional<Point2> center);
  // center as torchvision prints it: None or (x, y).
  ArgValue CenterArg() const;
  Interpolation interpolation_;
  FillArg fill_;
  std::optional<Point2> center_;
  absl::StatusOr<const AugmentKernelInfo*> kernel_;
};

class RandomRotation : public AffineOp {
 public:
  RandomRotation(std::pair<double, double> degrees, Interpolation interpolation,
                 bool expand, std::optional<Point2> center, FillArg fill)
      : AffineOp(interpolation, std::move(fill), center),
        degrees_(degrees),
        expand_(expand) {}
  const char* op_name() const override { return "RandomRotation"; }
  std::vector<NamedArg> args() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  absl::Status Validate() const override;
  // The input's size (unless expand: then InvalidArgument, since the size
  // depends on the angle; DecidedOutputSize gives it).
  absl::StatusOr<Size2> OutputSize(Size2 input) const override;
  bool SizeDependsOnDecision() const override { return expand_; }
  absl::StatusOr<Size2> DecidedOutputSize(
      Size2 input, const OpDecision& decision) const override;
  bool KeepsSize() const override { return !expand_; }
  OpDecision Decide(Size2 input, SampleStream& stream) const override;
  absl::Status Apply(const ImageView& input, const OpDecision& decision,
                     OpWorkspace* ws, Image* output) const override;
  std::vector<NamedArg> DecisionFields(const OpDecision& d) const override;
  absl::StatusOr<OpDecision> DecisionFromFields(
      const std::vector<NamedArg>& fields, Size2 input) const override;

 private:
  std::pair<double, double> degrees_;
  bool expand_;
};

class RandomAffine : public AffineOp {
 public:
  struct Ranges {
    std::pair<double, double> degrees;
    std::optional<std::pair<double, double>> translate, scale;
    std::vector<double> shear;  // empty, (min, max) or 4 values
  };
  RandomAffine(Ranges ranges, Interpolation interpolation, FillArg fill,
               std::optional<Point2> center)
      : AffineOp(interpolation, std::move(fill), center),
        r_(std::move(ranges)) {}
  const char* op_name() const override { return "RandomAffine"; }
  std::vector<NamedArg> args() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  absl::Status Validate() const override;
  absl::StatusOr<Size2> OutputSize(Size2 input) const override { return input; }
  bool KeepsSize() const override { return true; }
  OpDecision Decide(Size2 input, SampleStream& stream) const override;
  absl::Status Apply(const ImageView& input, const OpDecision& decision,
                     OpWorkspace* ws, Image* output) const override;
  std::vector<NamedArg> DecisionFields(const OpDecision& d) const override;
  absl::StatusOr<OpDecision> DecisionFromFields(
      const std::vector<NamedArg>& fields, Size2 input) const override;

 private:
  Ranges r_;
};

// The base of the ops applied with probability p.
class RandomPixelOp : public PreprocessOp {
 public:
  absl::StatusOr<Size2> OutputSize(Size2 input) const override { return input; }
  bool KeepsSize() const override { return true; }
  absl::StatusOr<int> OutputChannels(int channels) const override;
  absl::Status Validate() const override;
  OpDecision Decide(Size2 input, SampleStream& stream) const override;
  bool Skips(const OpDecision& d) const override { return !d.apply; }
  absl::Status Apply(const ImageView& input, const OpDecision& decision,
                     OpWorkspace* ws, Image* output) const override;
  std::vector<NamedArg> DecisionFields(const OpDecision& d) const override;
  absl::StatusOr<OpDecision> DecisionFromFields(
      const std::vector<NamedArg>& fields, Size2 input) const override;

 protected:
  explicit RandomPixelOp(double p);
  // The op on a whole image (its channels checked).
  virtual absl::Status ApplyOp(const AugmentKernelInfo& kernel,
                               const ImageView& input, Image* output) const = 0;
  // The decision's field: torchvision's functional name of the op.
  virtual const char* field() const = 0;
  // Whether LA and RGBA images are taken (ImageOps' tables refuse them).
  virtual bool takes_alpha() const { return false; }
  double p_;

 private:
  absl::StatusOr<const AugmentKernelInfo*> kernel_;
};

class RandomPosterize : public RandomPixelOp {
 public:
  RandomPosterize(int64_t bits, double p) : RandomPixelOp(p), bits_(bits) {}
  const char* op_name() const override { return "RandomPosterize"; }
  std::vector<NamedArg> args() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  absl::Status Validate() const override;
  bool CommutesWithHorizontalFlip() const override { return true; }

 protected:
  absl::Status ApplyOp(const AugmentKernelInfo& kernel, const ImageView& input,
                       Image* output) const override;
  const char* field() const override { return "posterize"; }

 private:
  int64_t bits_;
};

class RandomSolarize : public RandomPixelOp {
 public:
  RandomSolarize(double threshold, double p)
      : RandomPixelOp(p), threshold_(threshold) {}
  const char* op_name() const override { return "RandomSolarize"; }
  std::vector<NamedArg> args() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  absl::Status Validate() const override;
  bool CommutesWithHorizontalFlip() const override { return true; }

 protected:
  absl::Status ApplyOp(const AugmentKernelInfo& kernel, const ImageView& input,
                       Image* output) const override;
  const char* field() const override { return "solarize"; }

 private:
  double threshold_;
};

class RandomAdjustSharpness : public RandomPixelOp {
 public:
  RandomAdjustSharpness(double factor, double p)
      : RandomPixelOp(p), factor_(factor) {}
  const char* op_name() const override { return "RandomAdjustSharpness"; }
  std::vector<NamedArg> args() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  absl::Status Validate() const override;

 protected:
  absl::Status ApplyOp(const AugmentKernelInfo& kernel, const ImageView& input,
                       Image* output) const override;
  const char* field() const override { return "adjust_sharpness"; }
  bool takes_alpha() const override { return true; }

 private:
  double factor_;
};

// RandomAutocontrast, RandomEqualize, RandomInvert: p alone.
class RandomTableOp : public RandomPixelOp {
 public:
  enum class Kind { kAutocontrast, kEqualize, kInvert };
  RandomTableOp(Kind kind, double p) : RandomPixelOp(p), kind_(kind) {}
  const char* op_name() const override;
  std::vector<NamedArg> args() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  bool CommutesWithHorizontalFlip() const override { return true; }

 protected:
  absl::Status ApplyOp(const AugmentKernelInfo& kernel, const ImageView& input,
                       Image* output) const override;
  const char* field() const override;

 private:
  Kind kind_;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_AUGMENT_TRANSFORMS_H_
