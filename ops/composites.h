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
// Sizes: each sample's is the one its draw makes, as in torchvision (a
// RandomChoice of two Resizes, a RandomApply of a rotation with expand).
// A batch holds one size, so the list's size must be fixed after such an
// op (a crop or an exact Resize), unless every draw makes one size of the
// images' known size (CIFAR's RandomApply([RandomCrop(32, padding=4)]) on
// 32x32 images): pipeline/chain.h's rule for any op whose size depends on
// its draw. No transform may change the channel count, and the fused op's
// parts (erasing, normalization, the tensor conversion) cannot be left out
// per sample: both refused by name.
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
  // Its size depends on its draw unless every transform keeps the size;
  // SizeOfEveryDraw tells when it is one size all the same.
  bool SizeDependsOnDecision() const override;
  // SizeOfEveryDraw's size, or InvalidArgument saying it depends on the
  // draw.
  absl::StatusOr<Size2> OutputSize(Size2 input) const override;
  absl::StatusOr<Size2> DecidedOutputSize(Size2 input,
                                          const OpDecision& d) const override;
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

  // The size the transforms `runs` make of `input`, one after another,
  // where every draw of theirs makes one (else nullopt).
  absl::StatusOr<std::optional<Size2>> RunSize(
      Size2 input, absl::Span<const int32_t> runs) const;
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
  // `input` where its transforms give it back, else nullopt.
  absl::StatusOr<std::optional<Size2>> SizeOfEveryDraw(
      Size2 input) const override;

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
  // The size each transform makes of `input` where they agree, else
  // nullopt.
  absl::StatusOr<std::optional<Size2>> SizeOfEveryDraw(
      Size2 input) const override;
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
  // `input` where each transform gives it back, else nullopt.
  absl::StatusOr<std::optional<Size2>> SizeOfEveryDraw(
      Size2 input) const override;

 private:
  std::vector<NamedArg> OwnArgs() const override { return {}; }
  absl::Status ValidateOwn() const override { return absl::OkStatus(); }
  void Pick(SampleStream& stream, OpDecision* d) const override;
  std::vector<NamedArg> OwnFields(const OpDecision& d) const override;
  absl::Status OwnFromFields(DecisionReader& r, OpDecision* d) const override;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_COMPOSITES_H_
