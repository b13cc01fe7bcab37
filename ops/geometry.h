// The geometric transforms, torchvision's on PIL images: RandomResizedCrop,
// Resize, CenterCrop, RandomHorizontalFlip and RandomVerticalFlip.
//
// Resizing goes through ops/resize.h with the op's interpolation and the
// loader's resize filter (Pillow's bits by default). Crops read their
// window in place; a loader that decoded only the window passes just that
// part of the image.
#ifndef FUSEDNORM_OPS_GEOMETRY_H_
#define FUSEDNORM_OPS_GEOMETRY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/image.h"
#include "ops/resize.h"
#include "ops/transform.h"
#include "rng/philox.h"

namespace fusednorm {

// Copies the window (top, left, h, w) of `input`; parts outside the image are 0
// (as torchvision's center_crop pads).
absl::Status Crop(const ImageView& input, int64_t top, int64_t left, int64_t h,
                  int64_t w, Image* output);

// InvalidArgument "`op` `arg` = side: must be in 1..kMaxSide" for a side of
// an op's size argument outside that range.
absl::Status CheckSide(const char* op, const char* arg, int64_t side);

// The resampling a resizing op was made with: torchvision's interpolation
// and the loader's resize filter (not a torchvision argument: ops/resize.h).
struct Resampling {
  Interpolation interpolation = Interpolation::kBilinear;
  ResizeFilter filter = ResizeFilter::kPil;
};

// `name`, with " filter=NAME" added for a filter other than Pillow's.
std::string WithFilter(std::string name, ResizeFilter filter);

class Resize : public PreprocessOp {
 public:
  // Shorter side to `size`, aspect kept (the longer side truncated as
  // torchvision does); with `max_size`, the longer side is then at most
  // that (torchvision's rule).
  explicit Resize(int64_t size, ResizeFilter filter = ResizeFilter::kPil);
  Resize(int64_t size, Resampling resampling,
         std::optional<int64_t> max_size = std::nullopt);
  // Exactly size.height x size.width.
  explicit Resize(Size2 size, ResizeFilter filter = ResizeFilter::kPil);
  Resize(Size2 size, Resampling resampling);

  const char* op_name() const override { return "Resize"; }
  std::string PixelName() const override {
    return WithFilter(name(), resampling_.filter);
  }
  std::vector<NamedArg> args() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  absl::StatusOr<Size2> OutputSize(Size2 input) const override;
  std::optional<Size2> FixedOutputSize() const override;
  // The size, max_size and the resize kernel row (chosen when the op is
  // made).
  absl::Status Validate() const override;
  absl::Status Apply(const ImageView& input, const OpDecision&, OpWorkspace* ws,
                     Image* output) const override;

 private:
  bool by_shorter_ = false;  // made with an int: the shorter side's size
  int64_t shorter_ = 0;
  Size2 exact_;
  std::optional<int64_t> max_size_;
  Resampling resampling_;
  absl::StatusOr<Resizer> resizer_;
};

class CenterCrop : public PreprocessOp {
 public:
  explicit CenterCrop(int64_t size) : size_{size, size} {}
  CenterCrop(int64_t height, int64_t width) : size_{height, width} {}
  const char* op_name() const override { return "CenterCrop"; }
  std::vector<NamedArg> args() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  absl::Status Validate() const override;
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
  RandomResizedCrop(Size2 size, double scale_min, double scale_max,
                    double ratio_min, double ratio_max, Resampling resampling);

  const char* op_name() const override { return "RandomResizedCrop"; }
  std::string PixelName() const override {
    return WithFilter(name(), resampling_.filter);
  }
  std::vector<NamedArg> args() const override;
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

  // top, left, height, width: F.resized_crop's names.
  std::vector<NamedArg> DecisionFields(const OpDecision& d) const override;
  absl::StatusOr<OpDecision> DecisionFromFields(
      const std::vector<NamedArg>& fields, Size2 input) const override;

 private:
  Size2 size_;
  double scale_min_, scale_max_, ratio_min_, ratio_max_;
  Resampling resampling_;
  absl::StatusOr<Resizer> resizer_;
};

// A flip with probability p, torchvision's `torch.rand(1) < p`; the
// decision is {flip: bool}.
class RandomFlip : public PreprocessOp {
 public:
  double p() const { return p_; }
  std::vector<NamedArg> args() const override;
  absl::Status Validate() const override;
  absl::StatusOr<Size2> OutputSize(Size2 input) const override { return input; }
  OpDecision Decide(Size2 input, SampleStream& stream) const override;
  bool Skips(const OpDecision& d) const override { return !d.apply; }
  bool KeepsSize() const override { return true; }
  bool SameOnTensors() const override { return true; }
  std::vector<NamedArg> DecisionFields(const OpDecision& d) const override;
  absl::StatusOr<OpDecision> DecisionFromFields(
      const std::vector<NamedArg>& fields, Size2 input) const override;

 protected:
  explicit RandomFlip(double p) : p_(p) {}
  double p_;
};

// Mirrors columns. The chain folds it into the fused op's pass where every
// real op after it commutes with it (pipeline/chain.h).
class RandomHorizontalFlip : public RandomFlip {
 public:
  explicit RandomHorizontalFlip(double p = 0.5) : RandomFlip(p) {}
  const char* op_name() const override { return "RandomHorizontalFlip"; }
  std::unique_ptr<PreprocessOp> Clone() const override;
  absl::Status Apply(const ImageView& input, const OpDecision& decision,
                     OpWorkspace* ws, Image* output) const override;
  FusedPart fused_part() const override { return FusedPart::kFlip; }
  void FuseInto(FusedNormalizationOptions* options) const override {
    options->flip_p = p_;
  }
};

// Mirrors rows. Commutes with a horizontal flip.
class RandomVerticalFlip : public RandomFlip {
 public:
  explicit RandomVerticalFlip(double p = 0.5) : RandomFlip(p) {}
  const char* op_name() const override { return "RandomVerticalFlip"; }
  std::unique_ptr<PreprocessOp> Clone() const override;
  absl::Status Apply(const ImageView& input, const OpDecision& decision,
                     OpWorkspace* ws, Image* output) const override;
  bool CommutesWithHorizontalFlip() const override { return true; }
};

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_GEOMETRY_H_
