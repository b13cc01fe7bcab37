// The per-sample transforms made of a list of transforms, torchvision's:
//   RandomApply(transforms, p=0.5)  all of them in turn with probability p,
//                                   else none (`if p < torch.rand(1)`)
//   RandomChoice(transforms, p=None)  one of them, with probabilities p
//   RandomOrder(transforms)         all of them, in a random order
//
// The op draws first (the coin, the pick, the order), then each transform
// it runs draws its own decisions, in the order they run, from the
// sample's stream, each for the size the one before it makes.
//
// A batch needs every sample at one size and channel count whichever way
// the draw goes, so the transforms must agree: RandomApply's, together,
// and RandomOrder's, each, give back their input's size; RandomChoice's
// each make the same size of it (CIFAR's RandomCrop(32, padding=4) on
// 32x32 images is taken; a Resize that changes the size is not); none
// changes the channel count. Another size is refused where the list is
// made when the images' size is known, else for the sample. Also refused:
// a transform whose size depends on its draw (RandomRotation with expand)
// and the fused op's parts (erasing, normalization), which cannot be left
// out per sample.
//
// Decisions: the op's own (`apply`, `choice`, `order`) and `transforms`,
// one per transform of the list, None for one that does not run.
#ifndef FUSEDNORM_OPS_COMPOSITES_H_
#define FUSEDNORM_OPS_COMPOSITES_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ops/transform.h"

namespace fusednorm {

// How deep list ops may hold list ops: deeper, their text (a Loader's
// list, a pickle) would pass the grammar's nesting limit.
inline constexpr int kMaxListDepth = 8;

class CompositeOp : public PreprocessOp {
 public:
  // How deep its transforms hold list ops (0: none is one).
  int InnerDepth() const;
  std::vector<NamedArg> args() const override;
  std::string PixelName() const override;
  absl::Status Validate() const override;

  bool KeepsSize() const override;
  // InvalidArgument naming a transform that changes the channel count.
  absl::StatusOr<int> OutputChannels(int channels) const override;
  bool CommutesWithHorizontalFlip() const override;

  OpDecision Decide(Size2 input, SampleStream& stream) const override;
  absl::Status Apply(const ImageView& input, const OpDecision& decision,
                     OpWorkspace* ws, Image* output) const override;
  bool Skips(const OpDecision& decision) const override;

  std::vector<NamedArg> DecisionFields(const OpDecision& d) const override;
  absl::StatusOr<OpDecision> DecisionFromFields(
      const std::vector<NamedArg>& fields, Size2 input) const override;

 protected:
  explicit CompositeOp(std::vector<std::unique_ptr<PreprocessOp>> transforms);
  CompositeOp(const CompositeOp& other);

  // The op's arguments after `transforms`, and their checks.
  virtual std::vector<NamedArg> OwnArgs() const = 0;
  virtual absl::Status ValidateOwn() const = 0;
  // Draws which transforms run, in order, into d->runs (d->apply too).
  virtual void Pick(SampleStream& stream, OpDecision* d) const = 0;
  // The op's own decision fields, and d->runs read back from them.
  virtual std::vector<NamedArg> OwnFields(const OpDecision& d) const = 0;
  virtual absl::Status OwnFromFields(DecisionReader& r,
                                     OpDecision* d) const = 0;

  // The size the transforms `runs` make of `input`, one after another.
  absl::StatusOr<Size2> RunSize(Size2 input,
                                absl::Span<const int32_t> runs) const;
  // InvalidArgument: the transforms make `made` of `input` (the overview's
  // rule, in the op's words).
  absl::Status SizeError(Size2 input, Size2 made, const char* rule) const;
  // "RandomApply transforms[1] (Grayscale(num_output_channels=1))".
  std::string Where(size_t k) const;

  std::vector<std::unique_ptr<PreprocessOp>> transforms_;

 private:
  // Reads the "transforms" field into d->inner, each run transform's for
  // the size the ones before it make.
  absl::Status ReadInner(const ArgValue* items, Size2 input,
                         OpDecision* d) const;
  absl::Status CheckRuns(const OpDecision& d) const;
};

class RandomApply : public CompositeOp {
 public:
  RandomApply(std::vector<std::unique_ptr<PreprocessOp>> transforms, double p);
  const char* op_name() const override { return "RandomApply"; }
  std::unique_ptr<PreprocessOp> Clone() const override;
  // `input`, or InvalidArgument when the transforms make another size.
  absl::StatusOr<Size2> OutputSize(Size2 input) const override;

 private:
  std::vector<NamedArg> OwnArgs() const override;
  absl::Status ValidateOwn() const override;
  void Pick(SampleStream& stream, OpDecision* d) const override;
  std::vector<NamedArg> OwnFields(const OpDecision& d) const override;
  absl::Status OwnFromFields(DecisionReader& r, OpDecision* d) const override;

  double p_;
};

// The per-sample RandomChoice (ops/batch_ops.h has the batch one).
class SampleRandomChoice : public CompositeOp {
 public:
  SampleRandomChoice(std::vector<std::unique_ptr<PreprocessOp>> transforms,
                     std::optional<std::vector<double>> p);
  const char* op_name() const override { return "RandomChoice"; }
  std::unique_ptr<PreprocessOp> Clone() const override;
  // The size every transform makes of `input`, or InvalidArgument when
  // they differ.
  absl::StatusOr<Size2> OutputSize(Size2 input) const override;
  std::optional<Size2> FixedOutputSize() const override;

 private:
  std::vector<NamedArg> OwnArgs() const override;
  absl::Status ValidateOwn() const override;
  void Pick(SampleStream& stream, OpDecision* d) const override;
  std::vector<NamedArg> OwnFields(const OpDecision& d) const override;
  absl::Status OwnFromFields(DecisionReader& r, OpDecision* d) const override;

  std::optional<std::vector<double>> p_;
};

class RandomOrder : public CompositeOp {
 public:
  explicit RandomOrder(std::vector<std::unique_ptr<PreprocessOp>> transforms);
  const char* op_name() const override { return "RandomOrder"; }
  std::unique_ptr<PreprocessOp> Clone() const override;
  // `input`, or InvalidArgument when a transform makes another size.
  absl::StatusOr<Size2> OutputSize(Size2 input) const override;

 private:
  std::vector<NamedArg> OwnArgs() const override { return {}; }
  absl::Status ValidateOwn() const override { return absl::OkStatus(); }
  void Pick(SampleStream& stream, OpDecision* d) const override;
  std::vector<NamedArg> OwnFields(const OpDecision& d) const override;
  absl::Status OwnFromFields(DecisionReader& r, OpDecision* d) const override;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_COMPOSITES_H_
