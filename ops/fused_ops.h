// The transforms FusedNormalization does in its single pass, which a
// transform list names as torchvision's do: RandomErasing, Normalize and
// ToTensor (with its look-alikes PILToTensor, ToImage, ToImageTensor,
// ToDtype, ConvertImageDtype and ToPureTensor, the steps from uint8 pixels
// to a float tensor). They carry parameters for the chain
// (pipeline/chain.h) and transform no uint8 pixels of their own: Apply
// returns Unimplemented.
#ifndef FUSEDNORM_OPS_FUSED_OPS_H_
#define FUSEDNORM_OPS_FUSED_OPS_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ops/fused_normalization.h"
#include "ops/presets.h"
#include "ops/transform.h"

namespace fusednorm {

// The base of the fused ops: no size of their own, no Apply.
class FusedOp : public PreprocessOp {
 public:
  absl::StatusOr<Size2> OutputSize(Size2 input) const override;
  absl::Status Apply(const ImageView&, const OpDecision&, OpWorkspace*,
                     Image*) const override;
};

// torchvision's RandomErasing on the normalized tensor: value 0 (the
// normalized zero) or one constant per channel (a single number serves
// every channel), written in the fused op's pass.
class RandomErasing : public FusedOp {
 public:
  explicit RandomErasing(double p = EraseOptions{}.p,
                         double scale_min = EraseOptions{}.scale_min,
                         double scale_max = EraseOptions{}.scale_max,
                         double ratio_min = EraseOptions{}.ratio_min,
                         double ratio_max = EraseOptions{}.ratio_max,
                         std::vector<double> value = {});
  const EraseOptions& options() const { return options_; }
  // torchvision's inplace flag: shown as given, no effect (the fused op
  // writes its own output).
  void set_inplace(bool inplace) { inplace_ = inplace; }
  const char* op_name() const override { return "RandomErasing"; }
  std::vector<NamedArg> args() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  // p in [0, 1], 0 <= scale_min <= scale_max <= 1, 0 < ratio_min <=
  // ratio_max, finite values (CheckEraseOptions).
  absl::Status Validate() const override;
  FusedPart fused_part() const override { return FusedPart::kErase; }
  void FuseInto(FusedNormalizationOptions* options) const override;
  // torchvision's RandomErasing: the gate, then get_params' rectangle
  // (FusedNormalization::Sample's erase draws).
  OpDecision Decide(Size2 input, SampleStream& stream) const override;
  // i, j, h, w, v (F.erase's names); h = w = 0 when nothing is erased.
  std::vector<NamedArg> DecisionFields(const OpDecision& d) const override;
  absl::StatusOr<OpDecision> DecisionFromFields(
      const std::vector<NamedArg>& fields, Size2 input) const override;

 private:
  EraseOptions options_;
  std::vector<double> value_;  // as given; options_.value holds float32
  bool inplace_ = false;
};

// torchvision's Normalize(mean, std): the fused op's normalization. A
// Preprocessor refuses it in a transform list (normalization is its own
// setting); the recipe reads it out of the lists it is given
// (pipeline/recipe.h).
class Normalize : public FusedOp {
 public:
  explicit Normalize(Preset preset = Preset::kImagenet);
  // As torchvision takes them (Python floats); the fused op holds them as
  // float32, as torchvision's tensors do.
  Normalize(std::vector<double> mean, std::vector<double> std);
  std::vector<float> mean() const;
  std::vector<float> std() const;
  // As RandomErasing's: shown as given, no effect.
  void set_inplace(bool inplace) { inplace_ = inplace; }
  const char* op_name() const override { return "Normalize"; }
  std::vector<NamedArg> args() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  // 1..4 finite values each, as many means as stds (or one of either), std
  // not 0 as a float32 (negative as torchvision allows).
  absl::Status Validate() const override;
  FusedPart fused_part() const override { return FusedPart::kNormalize; }
  void FuseInto(FusedNormalizationOptions* options) const override;
  // Whether `options` normalize with this op's float32 mean and std (their
  // own, or their preset's).
  bool AgreesWith(const FusedNormalizationOptions& options) const;

 private:
  std::vector<double> mean_, std_;
  bool inplace_ = false;
};

// A step from uint8 pixels to a float tensor in [0, 1]: ToTensor whole, or
// one of its parts (PILToTensor or ToImage to a uint8 tensor, ToDtype or
// ConvertImageDtype from it to float, ToPureTensor: nothing). Ops after the
// first work on the tensor: only RandomHorizontalFlip, RandomVerticalFlip,
// RandomErasing, Normalize and the other steps may follow it (the chain
// checks which, and in what order). It prints as the op the list wrote
// (ToDtype with torch.float32, the one dtype it takes); conversion() says
// what that op converts.
class ToTensor : public FusedOp {
 public:
  enum class Conversion {
    kToTensor,     // ToTensor: a PIL image to a float tensor
    kPilToTensor,  // PILToTensor: a PIL image to a uint8 tensor
    kToImage,      // ToImage, ToImageTensor: a PIL image to uint8; a
                   // tensor stays as it is
    kToFloat,      // ToDtype, ConvertImageDtype: a uint8 tensor to float;
                   // a float one stays
    kPure,         // ToPureTensor: nothing changes
  };
  // `source`: the op the list wrote ("PILToTensor"), one of the above.
  explicit ToTensor(std::string source = "ToTensor")
      : source_(std::move(source)) {}
  Conversion conversion() const;
  const std::string& source() const { return source_; }
  const char* op_name() const override { return source_.c_str(); }
  std::vector<NamedArg> args() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  FusedPart fused_part() const override { return FusedPart::kToTensor; }

 private:
  std::string source_;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_FUSED_OPS_H_
