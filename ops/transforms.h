// Preprocessing transforms on uint8 HWC images, the way a training data loader
// chains them before the fused normalization.
//
// Two kinds:
//   - real ops that produce a new image: Resize, CenterCrop, RandomResizedCrop;
//   - record-only ops whose work FusedNormalization does in its single pass:
//     RandomHorizontalFlip, RandomErasing, Normalize. They carry parameters for
//     the Preprocessor to extract; their Execute returns Unimplemented.
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

class PreprocessOp {
 public:
  virtual ~PreprocessOp() = default;

  // The op's name and parameters, e.g. "RandomResizedCrop(224x224)".
  virtual std::string name() const = 0;

  // Returns a copy (transform lists are copied, never moved out of the caller's
  // objects).
  virtual std::unique_ptr<PreprocessOp> Clone() const = 0;

  // Transforms `input` into `*output`, drawing random decisions from `stream`.
  // Record-only ops return Unimplemented naming FusedNormalization.
  virtual absl::Status Execute(const ImageView& input, SampleStream& stream,
                               Image* output) const = 0;

  // The output size when it does not depend on the input (crops), else nullopt.
  virtual std::optional<Size2> FixedOutputSize() const { return std::nullopt; }

  // Checks the op's parameters, before any image meets it.
  virtual absl::Status Validate() const { return absl::OkStatus(); }

  // The part of FusedNormalization's single pass a record-only op stands
  // for; kNone for real ops.
  enum class FusedPart { kNone, kFlip, kErase, kNormalize };
  virtual FusedPart fused_part() const { return FusedPart::kNone; }

  // Record-only ops: writes the op's parameters into `options` (flip_p, or
  // erase). Others leave it alone.
  virtual void FuseInto(FusedNormalizationOptions* options) const {}

  // Ops that read only a window of their input (RandomResizedCrop), so that a
  // loader may decode just that window: draws it for an input of height x
  // width from `stream` exactly as Execute does. nullopt for other ops.
  virtual bool DrawsWindow() const { return false; }
  virtual std::optional<CropWindow> DrawWindow(int64_t height, int64_t width,
                                               SampleStream& stream) const {
    return std::nullopt;
  }
  // Finishes what Execute does once DrawWindow has drawn `window`: `input`
  // holds the window (its coordinates are in `input`). Unimplemented for ops
  // without DrawWindow.
  virtual absl::Status ExecuteWindow(const ImageView& input,
                                     const CropWindow& window,
                                     Image* output) const {
    return absl::UnimplementedError(name() + " draws no window");
  }
};

// ---- record-only ops ----

class RandomHorizontalFlip : public PreprocessOp {
 public:
  explicit RandomHorizontalFlip(double p = 0.5) : p_(p) {}
  double p() const { return p_; }
  std::string name() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  absl::Status Execute(const ImageView&, SampleStream&, Image*) const override;
  FusedPart fused_part() const override { return FusedPart::kFlip; }
  void FuseInto(FusedNormalizationOptions* options) const override {
    options->flip_p = p_;
  }

 private:
  double p_;
};

class RandomErasing : public PreprocessOp {
 public:
  explicit RandomErasing(double p = EraseOptions{}.p,
                         double scale_min = EraseOptions{}.scale_min,
                         double scale_max = EraseOptions{}.scale_max,
                         double ratio_min = EraseOptions{}.ratio_min,
                         double ratio_max = EraseOptions{}.ratio_max);
  const EraseOptions& options() const { return options_; }
  std::string name() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  absl::Status Execute(const ImageView&, SampleStream&, Image*) const override;
  FusedPart fused_part() const override { return FusedPart::kErase; }
  void FuseInto(FusedNormalizationOptions* options) const override {
    options->erase = options_;
  }

 private:
  EraseOptions options_;
};

// Present so that a torchvision-style list can be written; a Preprocessor
// rejects it in a transform list (normalization is a setting of its own).
class Normalize : public PreprocessOp {
 public:
  explicit Normalize(Preset preset = Preset::kImagenet) : preset_(preset) {}
  Preset preset() const { return preset_; }
  std::string name() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  absl::Status Execute(const ImageView&, SampleStream&, Image*) const override;
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
  absl::Status Execute(const ImageView& input, SampleStream&,
                       Image* output) const override;
  std::optional<Size2> FixedOutputSize() const override;

  // The output size for an input of height x width.
  absl::StatusOr<Size2> OutputSize(int64_t height, int64_t width) const;

 private:
  int64_t shorter_ = 0;  // > 0: shorter-side mode
  Size2 exact_;
  ResizeFilter filter_;
};

class CenterCrop : public PreprocessOp {
 public:
  explicit CenterCrop(int64_t size) : size_{size, size} {}
  CenterCrop(int64_t height, int64_t width) : size_{height, width} {}
  std::string name() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  absl::Status Execute(const ImageView& input, SampleStream&,
                       Image* output) const override;
  std::optional<Size2> FixedOutputSize() const override { return size_; }

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
  absl::Status Execute(const ImageView& input, SampleStream& stream,
                       Image* output) const override;
  std::optional<Size2> FixedOutputSize() const override { return size_; }

  // torchvision's RandomResizedCrop.get_params: 10 attempts, then the central
  // crop with the ratio clamped. Draws from `stream`.
  CropWindow SampleWindow(int64_t height, int64_t width,
                          SampleStream& stream) const;
  bool DrawsWindow() const override { return true; }
  std::optional<CropWindow> DrawWindow(int64_t height, int64_t width,
                                       SampleStream& stream) const override {
    return SampleWindow(height, width, stream);
  }
  absl::Status ExecuteWindow(const ImageView& input, const CropWindow& window,
                             Image* output) const override;

  // Checks the parameters (size >= 1, 0 < scale_min <= scale_max,
  // 0 < ratio_min <= ratio_max, all finite).
  absl::Status Validate() const override;

 private:
  Size2 size_;
  double scale_min_, scale_max_, ratio_min_, ratio_max_;
  ResizeFilter filter_;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_TRANSFORMS_H_
