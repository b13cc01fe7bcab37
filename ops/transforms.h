// Preprocessing transforms on uint8 HWC images, the way a training data loader
// chains them before the fused normalization.
//
// Two kinds:
//   - real ops that produce a new image: Resize, CenterCrop, RandomResizedCrop;
//   - record-only ops whose work FusedNormalization does in its single pass:
//     RandomHorizontalFlip, RandomErasing, Normalize. They carry parameters for
//     the Preprocessor to extract; their Apply returns Unimplemented.
// Random ops draw from the sample's SampleStream, so results depend only on
// (seed, epoch, sample index). All geometry follows torchvision 0.14; resizing
// defaults to Pillow's arithmetic, as torchvision applies it to PIL images
// (ops/resize.h).
#ifndef FUSEDNORM_OPS_TRANSFORMS_H_
#define FUSEDNORM_OPS_TRANSFORMS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/image.h"
#include "ops/fused_normalization.h"
#include "ops/presets.h"
#include "ops/resize.h"
#include "rng/philox.h"

namespace fusednorm {

// One op's random decisions for one sample, drawn by Decide() from the
// input's size alone, before any pixel is read.
struct OpDecision {
  // The window of its input the op reads (crops); nullopt: all of it.
  std::optional<CropWindow> window;
};

// What the real ops reuse from sample to sample on one thread: the resize's
// weights and buffers. A worker owns one and passes it to every Apply.
struct OpWorkspace {
  ResizeWorkspace resize;
};

class PreprocessOp {
 public:
  virtual ~PreprocessOp() = default;

  // The op's name and parameters, e.g. "RandomResizedCrop(224x224)".
  virtual std::string name() const = 0;

  // Returns a copy (transform lists are copied, never moved out of the caller's
  // objects).
  virtual std::unique_ptr<PreprocessOp> Clone() const = 0;

  // Checks the op's parameters, before any image meets it.
  virtual absl::Status Validate() const { return absl::OkStatus(); }

  // The output size for an input of `input` (InvalidArgument for a size the
  // op cannot make), and the size when it does not depend on the input.
  virtual absl::StatusOr<Size2> OutputSize(Size2 input) const = 0;
  virtual std::optional<Size2> FixedOutputSize() const { return std::nullopt; }

  // Draws the op's decisions for an input of `input` from `stream`
  // (deterministic ops draw nothing).
  virtual OpDecision Decide(Size2 input, SampleStream& stream) const {
    return {};
  }

  // Transforms `input` into `*output` under `decision`, whose window is in
  // `input`'s coordinates: a loader that decoded only the window (and a
  // margin) passes that part of the image; `ws` is the caller's (reused:
  // no allocation once grown). Record-only ops return Unimplemented naming
  // FusedNormalization.
  virtual absl::Status Apply(const ImageView& input, const OpDecision& decision,
                             OpWorkspace* ws, Image* output) const = 0;

  // Decide() then Apply() on a whole image, with a workspace of its own.
  absl::Status Execute(const ImageView& input, SampleStream& stream,
                       Image* output) const;

  // The part of FusedNormalization's single pass a record-only op stands
  // for; kNone for real ops.
  enum class FusedPart { kNone, kFlip, kErase, kNormalize };
  virtual FusedPart fused_part() const { return FusedPart::kNone; }

  // Record-only ops: writes the op's parameters into `options` (flip_p, or
  // erase). Others leave it alone.
  virtual void FuseInto(FusedNormalizationOptions* options) const {}
};

// The base of the record-only ops: no size, no decision of their own, no
// Apply (FusedNormalization does their work).
class RecordOnlyOp : public PreprocessOp {
 public:
  absl::StatusOr<Size2> OutputSize(Size2 input) const override;
  absl::Status Apply(const ImageView&, const OpDecision&, OpWorkspace*,
                     Image*) const override;
};

// ---- record-only ops ----

class RandomHorizontalFlip : public RecordOnlyOp {
 public:
  explicit RandomHorizontalFlip(double p = 0.5) : p_(p) {}
  double p() const { return p_; }
  std::string name() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  FusedPart fused_part() const override { return FusedPart::kFlip; }
  void FuseInto(FusedNormalizationOptions* options) const override {
    options->flip_p = p_;
  }

 private:
  double p_;
};

class RandomErasing : public RecordOnlyOp {
 public:
  explicit RandomErasing(double p = EraseOptions{}.p,
                         double scale_min = EraseOptions{}.scale_min,
                         double scale_max = EraseOptions{}.scale_max,
                         double ratio_min = EraseOptions{}.ratio_min,
                         double ratio_max = EraseOptions{}.ratio_max);
  const EraseOptions& options() const { return options_; }
  std::string name() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  FusedPart fused_part() const override { return FusedPart::kErase; }
  void FuseInto(FusedNormalizationOptions* options) const override {
    options->erase = options_;
  }

 private:
  EraseOptions options_;
};

// Present so that a torchvision-style list can be written; a Preprocessor
// rejects it in a transform list (normalization is a setting of its own).
class Normalize : public RecordOnlyOp {
 public:
  explicit Normalize(Preset preset = Preset::kImagenet) : preset_(preset) {}
  Preset preset() const { return preset_; }
  std::string name() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  FusedPart fused_part() const override { return FusedPart::kNormalize; }

 private:
  Preset preset_;
};

// ---- real ops ----

// Copies the window (top, left, h, w) of `input`; parts outside the image are 0
// (as torchvision's center_crop pads).
absl::Status Crop(const ImageView& input, int64_t top, int64_t left, int64_t h,
                  int64_t w, Image* output);

class Resize : public PreprocessOp {
 public:
  // Shorter side to `size`, aspect kept (the longer side truncated as
  // torchvision does).
  explicit Resize(int64_t size, ResizeFilter filter = ResizeFilter::kPil);
  // Exactly size.height x size.width.
  explicit Resize(Size2 size, ResizeFilter filter = ResizeFilter::kPil);
  std::string name() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  absl::StatusOr<Size2> OutputSize(Size2 input) const override;
  std::optional<Size2> FixedOutputSize() const override;
  // The resize kernel row (chosen when the op is made) exists.
  absl::Status Validate() const override;
  absl::Status Apply(const ImageView& input, const OpDecision&, OpWorkspace* ws,
                     Image* output) const override;

 private:
  int64_t shorter_ = 0;  // > 0: shorter-side mode
  Size2 exact_;
  ResizeFilter filter_;
  absl::StatusOr<Resizer> resizer_;
};

class CenterCrop : public PreprocessOp {
 public:
  explicit CenterCrop(int64_t size) : size_{size, size} {}
  CenterCrop(int64_t height, int64_t width) : size_{height, width} {}
  std::string name() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  absl::StatusOr<Size2> OutputSize(Size2) const override { return size_; }
  std::optional<Size2> FixedOutputSize() const override { return size_; }
  absl::Status Apply(const ImageView& input, const OpDecision&, OpWorkspace* ws,
                     Image* output) const override;

 private:
  Size2 size_;
};

class RandomResizedCrop : public PreprocessOp {
 public:
  explicit RandomResizedCrop(int64_t size, double scale_min = 0.08,
                             double scale_max = 1.0,
                             double ratio_min = 3.0 / 4.0,
                             double ratio_max = 4.0 / 3.0,
                             ResizeFilter filter = ResizeFilter::kPil);
  // A crop of size.height x size.width.
  RandomResizedCrop(Size2 size, double scale_min, double scale_max,
                    double ratio_min, double ratio_max,
                    ResizeFilter filter = ResizeFilter::kPil);
  std::string name() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  absl::StatusOr<Size2> OutputSize(Size2) const override { return size_; }
  std::optional<Size2> FixedOutputSize() const override { return size_; }

  // torchvision's RandomResizedCrop.get_params: 10 attempts, then the central
  // crop with the ratio clamped. The window is the decision.
  OpDecision Decide(Size2 input, SampleStream& stream) const override;
  // Resizes the decision's window of `input` to the op's size.
  absl::Status Apply(const ImageView& input, const OpDecision& decision,
                     OpWorkspace* ws, Image* output) const override;

  // The window get_params draws for an input of height x width.
  CropWindow Window(int64_t height, int64_t width, SampleStream& stream) const;

  // Checks the parameters (size >= 1, 0 < scale_min <= scale_max,
  // 0 < ratio_min <= ratio_max, all finite) and the resize kernel row
  // (chosen when the op is made).
  absl::Status Validate() const override;

 private:
  Size2 size_;
  double scale_min_, scale_max_, ratio_min_, ratio_max_;
  ResizeFilter filter_;
  absl::StatusOr<Resizer> resizer_;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_TRANSFORMS_H_
