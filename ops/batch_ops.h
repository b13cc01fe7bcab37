// The batch transforms, torchvision v2's: MixUp, CutMix and RandomChoice of
// them. They run on a whole batch of the fused op's output (float32,
// float16 or bfloat16, any layout) in its transfer slot, and turn the
// labels into soft targets.
//
// Decisions come from the batch's own stream (seed, epoch, global batch
// number), so they depend on neither threads nor ranks. With λ drawn from
// Beta(alpha, alpha):
//   MixUp   out[i] = x[i - 1] * (1 - λ) + x[i] * λ (the partner is the
//           previous image, x.roll(1, 0)), computed as torch computes
//           `x.roll(1, 0).mul_(1.0 - lam).add_(x.mul(lam))` on a tensor of
//           the output's dtype: each product rounded to that dtype from
//           float32, then the sum;
//   CutMix  a box of the partner pasted into each image: r_x uniform in
//           [0, W), r_y in [0, H), half-sides int(0.5 sqrt(1 - λ) W) and
//           int(0.5 sqrt(1 - λ) H), clamped to the image; λ adjusted to
//           1 - box area / image area.
// Targets are torchvision's one_hot(labels) mixed the same way in float32
// with the (adjusted) λ, then, with label smoothing ε, t (1 - ε) + ε / K as
// torch's cross_entropy smooths them (ops/batch_ops.cc says how each value
// is rounded).
#ifndef FUSEDNORM_OPS_BATCH_OPS_H_
#define FUSEDNORM_OPS_BATCH_OPS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/formats.h"
#include "core/geometry.h"
#include "core/stores.h"
#include "kernels/mix/mix_kernel.h"
#include "ops/arg_value.h"
#include "rng/philox.h"

namespace fusednorm {

// Largest num_classes of soft targets (a batch of 256 takes 16 GiB then).
inline constexpr int64_t kMaxClasses = int64_t{1} << 24;

// One batch's decisions.
struct BatchDecision {
  enum class Kind { kNone, kMixUp, kCutMix };
  Kind kind = Kind::kNone;
  double lam = 1.0;    // λ (MixUp), or CutMix's adjusted λ
  double drawn = 1.0;  // the λ drawn (CutMix: before the adjustment)
  int64_t x1 = 0, y1 = 0, x2 = 0, y2 = 0;  // CutMix's box
  int64_t choice = -1;                     // RandomChoice: the transform chosen
};

// How a batch is laid out in its slot: `count` samples of sample_bytes,
// each height x width x channels in `layout` of `dtype`.
struct BatchShape {
  DType dtype = DType::kFloat32;
  Layout layout = Layout::kHWC;
  int64_t height = 0, width = 0;
  int channels = 0;
  size_t sample_bytes = 0;
};

class BatchOp {
 public:
  virtual ~BatchOp() = default;
  virtual const char* op_name() const = 0;
  virtual std::vector<NamedArg> args() const = 0;
  // torchvision's repr: "MixUp(alpha=0.2, num_classes=1000)".
  std::string name() const { return FormatCall(op_name(), args()); }
  virtual std::unique_ptr<BatchOp> Clone() const = 0;
  // InvalidArgument naming the op, the argument and the value.
  virtual absl::Status Validate() const = 0;
  // The batch's decisions for images of `size`, from `stream`.
  virtual BatchDecision Decide(Size2 size, SampleStream& stream) const = 0;
  // num_classes, when the op was given one.
  virtual std::optional<int64_t> num_classes() const = 0;
  // The decisions as named fields, torchvision v2's _get_params names:
  // MixUp's lam; CutMix's box (x1, y1, x2, y2), lam (as drawn) and
  // lam_adjusted; RandomChoice adds `choice`, the transform's index.
  std::vector<NamedArg> DecisionFields(const BatchDecision& d) const;
  // The decisions the fields give for images of `size`: InvalidArgument
  // naming a missing, unknown or out-of-range field.
  virtual absl::StatusOr<BatchDecision> DecisionFromFields(
      const std::vector<NamedArg>& fields, Size2 size) const = 0;
};

// MixUp(alpha=1.0, num_classes=None).
class MixUp : public BatchOp {
 public:
  explicit MixUp(double alpha = 1.0, std::optional<int64_t> num_classes = {})
      : alpha_(alpha), num_classes_(num_classes) {}
  const char* op_name() const override { return "MixUp"; }
  std::vector<NamedArg> args() const override;
  std::unique_ptr<BatchOp> Clone() const override;
  absl::Status Validate() const override;
  BatchDecision Decide(Size2 size, SampleStream& stream) const override;
  absl::StatusOr<BatchDecision> DecisionFromFields(
      const std::vector<NamedArg>& fields, Size2 size) const override;
  std::optional<int64_t> num_classes() const override { return num_classes_; }

 private:
  double alpha_;
  std::optional<int64_t> num_classes_;
};

// CutMix(alpha=1.0, num_classes=None).
class CutMix : public BatchOp {
 public:
  explicit CutMix(double alpha = 1.0, std::optional<int64_t> num_classes = {})
      : alpha_(alpha), num_classes_(num_classes) {}
  const char* op_name() const override { return "CutMix"; }
  std::vector<NamedArg> args() const override;
  std::unique_ptr<BatchOp> Clone() const override;
  absl::Status Validate() const override;
  BatchDecision Decide(Size2 size, SampleStream& stream) const override;
  absl::StatusOr<BatchDecision> DecisionFromFields(
      const std::vector<NamedArg>& fields, Size2 size) const override;
  std::optional<int64_t> num_classes() const override { return num_classes_; }

 private:
  double alpha_;
  std::optional<int64_t> num_classes_;
};

// RandomChoice(transforms, p=None): one of `transforms`, chosen with
// probabilities p (normalized; uniform when None), per batch. Equal
// probabilities draw as None does (torchvision v2 stores None as them).
class RandomChoice : public BatchOp {
 public:
  RandomChoice(std::vector<std::unique_ptr<BatchOp>> transforms,
               std::optional<std::vector<double>> p = std::nullopt);
  RandomChoice(const RandomChoice& other);
  const char* op_name() const override { return "RandomChoice"; }
  std::vector<NamedArg> args() const override;
  std::unique_ptr<BatchOp> Clone() const override;
  absl::Status Validate() const override;
  BatchDecision Decide(Size2 size, SampleStream& stream) const override;
  absl::StatusOr<BatchDecision> DecisionFromFields(
      const std::vector<NamedArg>& fields, Size2 size) const override;
  std::optional<int64_t> num_classes() const override;

 private:
  std::vector<std::unique_ptr<BatchOp>> transforms_;
  std::optional<std::vector<double>> p_;
};

// Batch `batch`'s stream under (seed, epoch): the stream 2^62 + batch,
// above every stream the loader's samples draw from (pipeline/epoch_order.h
// keeps them below 2^62).
inline constexpr uint64_t kBatchStreams = uint64_t{1} << 62;
inline SampleStream BatchStream(uint64_t seed, uint32_t epoch, uint64_t batch) {
  return SampleStream(seed, epoch, kBatchStreams + batch);
}

// A draw from Beta(alpha, alpha) (alpha > 0) from `stream`.
double DrawBeta(double alpha, SampleStream& stream);

// Whether a sample is mixed with its partner (the sample before it,
// roll(1)), given whether each is a sample or a skipped one (its worker
// failed: zeros, label -1). A skipped sample is mixed with nothing, so its
// row stays zeros (image and soft target), and the sample whose partner it
// is keeps its own image and target: a skipped sample never leaks into a
// real one.
inline bool MixesWithPartner(bool sample_ok, bool partner_ok) {
  return sample_ok && partner_ok;
}

// Whether a batch of `count` samples is mixed (MixUp) or pasted into
// (CutMix) with streaming stores: one too large to stay in a core's caches
// (core/stores.h), whose mixed samples are read next by the batch's
// consumer, not by the core that mixed them.
inline bool MixStreams(const BatchShape& shape, size_t count) {
  return shape.sample_bytes * count >= kNontemporalAutoBytes;
}

// Applies `d` to one sample: `cur` (in place) with `partner`, the original
// of the sample before it (roll(1)), MixUp's values and CutMix's box with
// `kernel`, streamed where `nontemporal` (MixStreams) says.
void MixSample(const BatchDecision& d, const BatchShape& shape,
               const MixKernelInfo& kernel, const uint8_t* partner,
               uint8_t* cur, bool nontemporal);

// Applies `d` to the `count` samples at `data` (in place), MixUp's values
// and CutMix's box with `kernel` (kernels/mix/mix_dispatch.h), where
// MixesWithPartner says, `ok[i]` telling whether sample i is a sample;
// `scratch` holds the last sample's original while the others are mixed
// (grown as needed).
void MixBatch(const BatchDecision& d, const BatchShape& shape,
              const MixKernelInfo& kernel, const std::vector<bool>& ok,
              uint8_t* data, size_t count, std::vector<uint8_t>* scratch);

// Writes the soft targets of `labels` (count x num_classes float32, row i
// for sample i) mixed as `d` mixes the images, smoothed by
// `label_smoothing`. A label of -1 is a skipped sample: its row is all
// zeros (smoothed too) and it mixes with nothing (MixesWithPartner); other
// labels must be in [0, num_classes).
void MakeTargets(const BatchDecision& d, absl::Span<const int64_t> labels,
                 int64_t num_classes, double label_smoothing, float* targets);

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_BATCH_OPS_H_
