// torchvision's auto-augment policies (transforms/autoaugment.py, v1) as
// per-sample transforms, their pixels those of _apply_op on a PIL image
// (ops/augment_op.h):
//
//   AutoAugment(policy=imagenet|cifar10|svhn, interpolation, fill): one
//     of the policy's 25 sub-policies; each of its two ops applied with
//     its probability and its bin of 10, a random sign where signed.
//   RandAugment(num_ops=2, magnitude=9, num_magnitude_bins=31,
//     interpolation, fill): num_ops ops drawn from its 14, each with bin
//     `magnitude`, a random sign where signed.
//   TrivialAugmentWide(num_magnitude_bins=31, interpolation, fill): one op
//     of its 14 with a random bin and sign.
//
// The decision is the list of (op, signed magnitude) applied, in order
// ("ops": ((name, magnitude), ...)); drawing it needs only the image's
// size (the translations' range). Output: the input's size; images of 1
// to 4 channels (Pillow's table ops, e.g. Posterize, refuse LA and RGBA
// when drawn).
#ifndef FUSEDNORM_OPS_AUTO_AUGMENT_H_
#define FUSEDNORM_OPS_AUTO_AUGMENT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/augment/augment_kernel.h"
#include "kernels/color/color_kernel.h"
#include "ops/affine.h"
#include "ops/augment_space.h"
#include "ops/transform.h"

namespace fusednorm {

// The base of the policies: interpolation, fill, the kernels, and the
// decision as the list of ops applied.
class AugmentPolicy : public PreprocessOp {
 public:
  absl::StatusOr<Size2> OutputSize(Size2 input) const override { return input; }
  bool KeepsSize() const override { return true; }
  absl::StatusOr<int> OutputChannels(int channels) const override;
  absl::Status Validate() const override;
  bool Skips(const OpDecision& d) const override { return d.step_count == 0; }
  absl::Status Apply(const ImageView& input, const OpDecision& decision,
                     OpWorkspace* ws, Image* output) const override;
  // ops: ((name, magnitude), ...).
  std::vector<NamedArg> DecisionFields(const OpDecision& d) const override;
  absl::StatusOr<OpDecision> DecisionFromFields(
      const std::vector<NamedArg>& fields, Size2 input) const override;

 protected:
  AugmentPolicy(Interpolation interpolation, FillArg fill);
  // interpolation and fill, as torchvision prints them.
  std::vector<NamedArg> CommonArgs() const;
  Interpolation interpolation_;
  FillArg fill_;

 private:
  absl::StatusOr<const AugmentKernelInfo*> kernel_;
  absl::StatusOr<const ColorKernelInfo*> color_;
};

enum class AutoAugmentPolicy { kImagenet, kCifar10, kSvhn };

class AutoAugment : public AugmentPolicy {
 public:
  AutoAugment(AutoAugmentPolicy policy, Interpolation interpolation,
              FillArg fill)
      : AugmentPolicy(interpolation, std::move(fill)), policy_(policy) {}
  // imagenet, cifar10, svhn (AutoAugmentPolicy's values).
  static absl::StatusOr<AutoAugmentPolicy> PolicyNamed(const std::string& name);
  const char* op_name() const override { return "AutoAugment"; }
  std::vector<NamedArg> args() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  OpDecision Decide(Size2 input, SampleStream& stream) const override;

 private:
  AutoAugmentPolicy policy_;
};

class RandAugment : public AugmentPolicy {
 public:
  RandAugment(int64_t num_ops, int64_t magnitude, int64_t num_magnitude_bins,
              Interpolation interpolation, FillArg fill)
      : AugmentPolicy(interpolation, std::move(fill)),
        num_ops_(num_ops),
        magnitude_(magnitude),
        bins_(num_magnitude_bins) {}
  const char* op_name() const override { return "RandAugment"; }
  std::vector<NamedArg> args() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  // num_ops in 0..kMaxAugmentSteps, num_magnitude_bins >= 2, magnitude a
  // bin (0 <= magnitude < num_magnitude_bins).
  absl::Status Validate() const override;
  OpDecision Decide(Size2 input, SampleStream& stream) const override;

 private:
  int64_t num_ops_, magnitude_, bins_;
};

class TrivialAugmentWide : public AugmentPolicy {
 public:
  TrivialAugmentWide(int64_t num_magnitude_bins, Interpolation interpolation,
                     FillArg fill)
      : AugmentPolicy(interpolation, std::move(fill)),
        bins_(num_magnitude_bins) {}
  const char* op_name() const override { return "TrivialAugmentWide"; }
  std::vector<NamedArg> args() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  // num_magnitude_bins >= 2 (Posterize's bins divide by it minus 1).
  absl::Status Validate() const override;
  OpDecision Decide(Size2 input, SampleStream& stream) const override;

 private:
  int64_t bins_;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_AUTO_AUGMENT_H_
