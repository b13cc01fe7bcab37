// The interface every per-sample transform implements, and the decisions
// it draws.
//
// A transform has torchvision's name, arguments and defaults, and its
// pixels are torchvision v1's on a PIL image given the same decisions.
// Three kinds:
//   - real ops produce a new uint8 HWC image (crops, resizes, flips,
//     colour ops: ops/geometry.h, ops/color.h);
//   - fused ops are done by FusedNormalization in its single pass
//     (RandomErasing, Normalize, the ToTensor marker: ops/fused_ops.h);
//     RandomHorizontalFlip is fused where every real op after it commutes
//     with it, and runs as a real op elsewhere (pipeline/chain.h);
//   - batch ops (MixUp, CutMix) work on whole batches (ops/batch_ops.h).
// A transform draws its decisions (Decide) from the sample's stream and its
// input's size alone, before a pixel is read, so results depend only on
// (seed, epoch, sample index); Apply then uses them. Python sees the
// decisions as named fields with torchvision's get_params names.
#ifndef FUSEDNORM_OPS_TRANSFORM_H_
#define FUSEDNORM_OPS_TRANSFORM_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/geometry.h"
#include "core/image.h"
#include "ops/affine.h"
#include "ops/arg_value.h"
#include "ops/augment_op.h"
#include "ops/fused_normalization.h"
#include "ops/resize.h"
#include "rng/philox.h"

namespace fusednorm {

// ColorJitter's four adjustments, in torchvision's fn_idx numbering.
enum class Jitter { kBrightness = 0, kContrast = 1, kSaturation = 2, kHue = 3 };

// One op of an auto-augment policy's decision.
struct AugmentStep {
  AugmentOp op = AugmentOp::kIdentity;
  double magnitude = 0;
};
// Most ops a policy applies to one sample (RandAugment's num_ops).
inline constexpr int kMaxAugmentSteps = 16;

// One op's random decisions for one sample. Plain values (and the list
// ops' transforms' decisions): a worker's plan reuses them from sample to
// sample.
struct OpDecision {
  // Crops: the window of its input the op reads.
  std::optional<CropWindow> window;
  // Ops applied with a probability (flips, grayscale, erasing): whether it
  // acts on this sample.
  bool apply = true;
  // RandomErasing: the rectangle, in the fused op's output coordinates.
  EraseRect erase;
  // ColorJitter: the order of the adjustments (torchvision's fn_idx) and
  // each one's factor, NaN where the op does not adjust it.
  std::array<int8_t, 4> order = {0, 1, 2, 3};
  std::array<double, 4> factors = {NAN, NAN, NAN, NAN};
  // Auto-augment policies: the ops applied, in order, with their signed
  // magnitudes.
  std::array<AugmentStep, kMaxAugmentSteps> steps = {};
  int step_count = 0;
  // RandomRotation and RandomAffine: torchvision's get_params (degrees,
  // pixels, a factor, degrees).
  double angle = 0;
  std::array<int64_t, 2> translate = {0, 0};
  double scale = 1;
  std::array<double, 2> shear = {0, 0};
  // RandomCrop: the padding above and left of the input, where
  // get_params' corner counts from (the window is in the input's
  // coordinates).
  std::array<int64_t, 2> padded = {0, 0};
  // The list ops (RandomApply, RandomChoice, RandomOrder: ops/composites.h):
  // the transforms that run, in the order they run (indices into the list),
  // and each transform's decisions (a default one for those that do not).
  // A plan's copy reuses the vectors' storage.
  std::vector<int32_t> runs;
  std::vector<OpDecision> inner;
};

// What the real ops reuse from sample to sample on one thread. A worker
// owns one and passes it to every Apply.
struct OpWorkspace {
  ResizeWorkspace resize;
  // The affine transforms' buffers, and a policy's images between its ops.
  AffineScratch affine;
  Image between[2];
  // A list op's images between its transforms, and the workspace its
  // transforms use (made when first needed).
  Image steps[2];
  std::unique_ptr<OpWorkspace> nested;
};

class PreprocessOp {
 public:
  virtual ~PreprocessOp() = default;

  // torchvision's class name ("RandomResizedCrop") and the op's arguments
  // with their values, in torchvision's order.
  virtual const char* op_name() const = 0;
  virtual std::vector<NamedArg> args() const = 0;
  // torchvision's repr: "RandomResizedCrop(size=(224, 224), ...)". It reads
  // back through the transform list grammar as the same op.
  std::string name() const { return FormatCall(op_name(), args()); }
  // name() plus what else changes the op's pixels without being one of
  // torchvision's arguments (a resize filter other than Pillow's): the text
  // a resume state's digest of the transforms is made from.
  virtual std::string PixelName() const { return name(); }

  // A copy (transform lists are copied, never moved out of the caller's
  // objects).
  virtual std::unique_ptr<PreprocessOp> Clone() const = 0;

  // Checks the arguments, before any image meets the op: InvalidArgument
  // naming the op, the argument and its value.
  virtual absl::Status Validate() const { return absl::OkStatus(); }

  // The output size for an input of `input` (InvalidArgument for a size the
  // op cannot make), and the size when it does not depend on the input.
  virtual absl::StatusOr<Size2> OutputSize(Size2 input) const = 0;
  virtual std::optional<Size2> FixedOutputSize() const { return std::nullopt; }
  // The output size for an input of `input` under `decision`: an op whose
  // size depends on its decision (RandomRotation with expand) overrides
  // it; the others' is OutputSize(input).
  virtual absl::StatusOr<Size2> DecidedOutputSize(
      Size2 input, const OpDecision& decision) const {
    return OutputSize(input);
  }
  // Whether the output always has its input's size (flips, colour ops);
  // FixedOutputSize() is then nullopt but the size before stays fixed.
  virtual bool KeepsSize() const { return false; }
  // Whether the output size depends on the decision drawn, so that
  // OutputSize cannot tell it (RandomRotation with expand).
  virtual bool SizeDependsOnDecision() const { return false; }
  // The size every draw gives an input of `input`: OutputSize(input), or
  // nullopt where the size depends on the draw (an op whose size depends on
  // its decision; a list op whose draws make different sizes of it).
  virtual absl::StatusOr<std::optional<Size2>> SizeOfEveryDraw(
      Size2 input) const;
  // The output's channel count for an input of `channels`.
  virtual absl::StatusOr<int> OutputChannels(int channels) const {
    return channels;
  }

  // Draws the op's decisions for an input of `input` from `stream`
  // (deterministic ops draw nothing).
  virtual OpDecision Decide(Size2 input, SampleStream& stream) const {
    return {};
  }

  // Transforms `input` into `*output` under `decision`, whose window is in
  // `input`'s coordinates: a loader that decoded only the window (and a
  // margin) passes that part of the image; `ws` is the caller's (reused: no
  // allocation once grown). Fused ops return Unimplemented naming
  // FusedNormalization.
  virtual absl::Status Apply(const ImageView& input, const OpDecision& decision,
                             OpWorkspace* ws, Image* output) const = 0;

  // Whether Apply with `decision` gives its input back unchanged (a flip
  // not taken): the runner then passes the input on without a copy.
  virtual bool Skips(const OpDecision& decision) const { return false; }

  // Decide() then Apply() on a whole image, with a workspace of its own.
  absl::Status Execute(const ImageView& input, SampleStream& stream,
                       Image* output) const;

  // The part of FusedNormalization's single pass a fused op stands for;
  // kNone for real ops, kFlip for RandomHorizontalFlip (fused or not).
  enum class FusedPart { kNone, kFlip, kErase, kNormalize, kToTensor };
  virtual FusedPart fused_part() const { return FusedPart::kNone; }

  // Fused ops: writes the op's parameters into `options` (flip_p, erase,
  // mean and std). Others leave it alone.
  virtual void FuseInto(FusedNormalizationOptions* options) const {}

  // Whether the op gives the same pixels before and after a horizontal flip
  // (a flip before it may then be done by the fused op, after it).
  virtual bool CommutesWithHorizontalFlip() const { return false; }

  // Whether torchvision gives the same values running the op on the
  // tensor after ToTensor (the flips): only such ops may follow ToTensor.
  virtual bool SameOnTensors() const { return false; }

  // The decisions as named fields, torchvision's get_params names (empty
  // for an op that decides nothing).
  virtual std::vector<NamedArg> DecisionFields(const OpDecision& d) const {
    return {};
  }
  // The decisions the fields give for an input of `input`: InvalidArgument
  // naming a missing, unknown or out-of-range field.
  virtual absl::StatusOr<OpDecision> DecisionFromFields(
      const std::vector<NamedArg>& fields, Size2 input) const;
};

// InvalidArgument "`op` `name` = p: must be a probability in [0, 1]"
// unless 0 <= p <= 1.
absl::Status CheckProbability(const char* op, const char* name, double p);

// Reads decision fields: each Take() marks a field used, Done() refuses
// fields no Take() asked for. Errors name the op and the field.
class DecisionReader {
 public:
  DecisionReader(const PreprocessOp& op, const std::vector<NamedArg>& fields)
      : op_(op), fields_(fields), used_(fields.size(), false) {}
  // The field, or nullptr when absent (InvalidArgument from Done() if it
  // was required: Require()).
  const ArgValue* Take(const char* name);
  absl::StatusOr<int64_t> Int(const char* name);
  absl::StatusOr<double> Float(const char* name);  // a number or None (NaN)
  absl::StatusOr<bool> Bool(const char* name);
  absl::Status Done() const;
  absl::Status Error(const char* name, const std::string& why) const;
  // Field `name` is missing: the error lists the fields given.
  absl::Status Missing(const char* name) const;

 private:
  const PreprocessOp& op_;
  const std::vector<NamedArg>& fields_;
  std::vector<bool> used_;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_TRANSFORM_H_
