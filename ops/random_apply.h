// RandomApply(transforms, p): torchvision's per-sample RandomApply, its
// transforms applied in turn with probability p, else none of them.
//
// torchvision draws one number u and applies the list unless p < u; its
// transforms then draw their own decisions. Here the same: `apply` is
// drawn first, and only an applied sample's transforms draw theirs, each
// after the one before it, from the sample's stream.
//
// The transforms are real ops that give back their input's size and
// channel count: the colour ops, the policies' pixel ops, rotations
// without expand, flips, and a crop or resize on images it leaves at their
// size (CIFAR's RandomCrop(32, padding=4) on 32x32 images). A batch needs
// every sample at one size whichever way the coin falls, so another size
// is refused (when the list is made where the images' size is known, else
// for the sample), as are sizes that depend on a draw and the fused op's
// parts (erasing, normalization), which cannot be skipped per sample.
#ifndef FUSEDNORM_OPS_RANDOM_APPLY_H_
#define FUSEDNORM_OPS_RANDOM_APPLY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ops/transform.h"

namespace fusednorm {

class RandomApply : public PreprocessOp {
 public:
  RandomApply(std::vector<std::unique_ptr<PreprocessOp>> transforms, double p);
  RandomApply(const RandomApply& other);

  const char* op_name() const override { return "RandomApply"; }
  std::vector<NamedArg> args() const override;
  std::string PixelName() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  // p in [0, 1], and no transform the overview says it refuses.
  absl::Status Validate() const override;

  // `input`, or InvalidArgument when its transforms make another size.
  absl::StatusOr<Size2> OutputSize(Size2 input) const override;
  bool KeepsSize() const override;
  // InvalidArgument naming a transform that changes the channel count.
  absl::StatusOr<int> OutputChannels(int channels) const override;
  bool CommutesWithHorizontalFlip() const override;

  OpDecision Decide(Size2 input, SampleStream& stream) const override;
  absl::Status Apply(const ImageView& input, const OpDecision& decision,
                     OpWorkspace* ws, Image* output) const override;
  bool Skips(const OpDecision& decision) const override;

  // {"apply": bool, "transforms": one decisions dict per transform (None
  // when not applied)}.
  std::vector<NamedArg> DecisionFields(const OpDecision& d) const override;
  absl::StatusOr<OpDecision> DecisionFromFields(
      const std::vector<NamedArg>& fields, Size2 input) const override;

 private:
  // The transforms' decisions read from a "transforms" field's items.
  absl::Status ReadInner(const ArgValue& items, Size2 input,
                         OpDecision* d) const;

  std::vector<std::unique_ptr<PreprocessOp>> transforms_;
  double p_;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_RANDOM_APPLY_H_
