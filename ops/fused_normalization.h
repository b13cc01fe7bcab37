// FusedNormalization: ToTensor + RandomHorizontalFlip + Normalize +
// RandomErasing in one pass.
//
// Create() validates the options and precomputes the kernel constants once;
// Sample() draws one image's random decisions from its SampleStream (docs/design.md,
// "Random decisions"); Apply() runs the chosen kernel variant; Execute() does
// both. Every argument is checked before a single output byte is written: bad
// input returns an absl::Status naming the parameter and its value, never a
// crash and never a partial write.
//
// Output layouts are compact and their strides derived (docs/design.md,
// "Semantics"):
//   HWC   row stride W*C*sizeof(T)
//   HWC4  row stride W*4*sizeof(T)
//   CHW   plane stride H*W*sizeof(T), row stride W*sizeof(T)
#ifndef FUSEDNORM_OPS_FUSED_NORMALIZATION_H_
#define FUSEDNORM_OPS_FUSED_NORMALIZATION_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/image.h"
#include "core/stores.h"
#include "kernels/kernel.h"
#include "ops/presets.h"
#include "rng/philox.h"

namespace fusednorm {

// torchvision's RandomErasing parameters.
struct EraseOptions {
  bool enabled = false;
  double p = 0.5;           // probability of erasing, in [0, 1]
  double scale_min = 0.02;  // erased area / image area, in [0, 1], min <= max
  double scale_max = 0.33;
  double ratio_min = 0.3;  // aspect ratio h / w, > 0, min <= max
  double ratio_max = 3.3;
  // The erased values, in the normalized output: empty for 0 (the
  // normalized zero, written by the kernel's pass), else one value for
  // every channel or one per channel (written over the rectangle after
  // it). Finite.
  std::vector<float> value;
};

struct FusedNormalizationOptions {
  Preset preset = Preset::kImagenet;
  // Custom normalization: when either is non-empty they replace `preset`;
  // 1..4 values each, finite, std not 0 (a negative one turns the values'
  // signs, as in torchvision). The count is the channel count images
  // must have. One value of either serves every channel of the other, as torch
  // broadcasts it, and one of both serves images of any channel count.
  std::vector<float> mean;
  std::vector<float> std;
  DType dtype = DType::kFloat32;
  // Default: float32 -> HWC, float16 and bfloat16 -> HWC4 (the original
  // system's layouts).
  std::optional<Layout> layout;
  Mode mode = Mode::kFast;
  double flip_p =
      0.5;  // probability of a horizontal flip, in [0, 1]; 0 disables
  EraseOptions erase;
  // Kernel variant id; empty: FUSEDNORM_KERNEL if set, else the best supported
  // variant.
  std::string kernel;
  // Non-temporal (streaming) stores or regular ones (core/stores.h says
  // which wins where). kAuto streams when the buffer the call writes is at
  // least kNontemporalAutoBytes: one image's output for Apply(), the whole
  // batch buffer for ApplyBatch().
  enum class Stores { kAuto, kNontemporal, kRegular };
  Stores stores = Stores::kAuto;
};

// One image's random decisions.
struct Augmentation {
  bool flip = false;
  EraseRect erase;  // in output coordinates; empty: nothing erased
};

// Returns OK if `rect` is empty or lies inside a height x width image, else
// InvalidArgument naming the rectangle and the image size.
absl::Status CheckEraseRect(const EraseRect& rect, int64_t height,
                            int64_t width);

class FusedNormalization {
 public:
  // Validates `options` and precomputes the per-channel constants.
  static absl::StatusOr<FusedNormalization> Create(
      const FusedNormalizationOptions& options);

  // Draws flip then erase for an image of height x width from `stream`: one
  // word for the flip, then (when erasing is enabled) one for the gate and two
  // per attempt plus two for the position, following torchvision's
  // RandomErasing.get_params. Never fails; images smaller than 1x1 get no
  // erase.
  Augmentation Sample(int64_t height, int64_t width,
                      SampleStream& stream) const;

  // Writes the normalized image with `augmentation` applied into `output`.
  absl::Status Apply(const ImageView& input, const Augmentation& augmentation,
                     OutputView output) const;

  // Writes images inputs[k] with augmentations[k] as images first + k of
  // `batch`, a buffer of images of one size back to back (a batch tensor,
  // N x image): image i starts at byte i * OutputBytes(image). All inputs must
  // have the same height, width and channels. kAuto chooses streaming stores
  // by batch.bytes.size(), the whole buffer, so workers that each write a few
  // images of a large batch stream as one writer of the batch would. Every
  // argument is checked before any byte is written.
  absl::Status ApplyBatch(absl::Span<const ImageView> inputs,
                          absl::Span<const Augmentation> augmentations,
                          OutputView batch, size_t first = 0) const;

  // Sample() then Apply(); returns the decisions made.
  absl::StatusOr<Augmentation> Execute(const ImageView& input,
                                       SampleStream& stream,
                                       OutputView output) const;

  // Returns the output size in bytes for an image of height x width x channels.
  absl::StatusOr<size_t> OutputBytes(int64_t height, int64_t width,
                                     int channels) const;
  // Returns the output's dimensions for an image of height x width x
  // channels: (H, W, C) for HWC, (H, W, 4) for HWC4, (C, H, W) for CHW.
  std::vector<int64_t> OutputShape(int64_t height, int64_t width,
                                   int channels) const;
  // Same as OutputBytes above, with the channel count the normalization
  // fixes (InvalidArgument when it takes any: use the overload above).
  absl::StatusOr<size_t> OutputBytes(int64_t height, int64_t width) const;

  DType dtype() const { return constants_->dtype; }
  Layout layout() const { return constants_->layout; }
  Mode mode() const { return constants_->mode; }
  // Channel count images must have, or 0 when any of 1..4 is accepted
  // (NO_NORM, or one custom mean and std).
  int channels() const { return norm_.channels; }
  double flip_p() const { return flip_p_; }
  const EraseOptions& erase() const { return erase_; }
  // Id of the kernel variant used for `channels` channels, or "" if none covers
  // it.
  const char* kernel_id(int channels) const;
  // The float32 mean and std the op normalizes with: one value per channel,
  // or a single value for NO_NORM or one custom value (serving every channel
  // count).
  const Normalization& normalization() const { return norm_; }

 private:
  friend struct FusedNormalizationTestPeer;  // testing/: the kernel constants
  FusedNormalization() = default;

  // Picks the kernel for every channel count (Create's last step).
  absl::Status ChooseKernels(const std::string& id);
  // Apply's checks of its buffers; each returns the bytes the image needs.
  absl::StatusOr<int64_t> CheckInput(const ImageView& input) const;
  absl::StatusOr<size_t> CheckOutput(const ImageView& input,
                                     OutputView output) const;
  // Checks one image's input, augmentation and output, and returns the
  // kernel's arguments for it (streaming stores off). The input must not
  // overlap `written`, every byte the call writes (empty: the output's).
  absl::StatusOr<KernelArgs> Prepare(const ImageView& input,
                                     const Augmentation& augmentation,
                                     OutputView output,
                                     absl::Span<const uint8_t> written) const;
  // The store policy for a call that writes a buffer of `bytes`.
  bool Streams(size_t bytes) const;
  // InvalidArgument unless erase_.value has 0, 1 or `channels` values.
  absl::Status CheckEraseValues(int channels) const;
  // Writes erase_.value over the erased rectangle of the kernel's output
  // (nothing when the values are all +0.0, which the kernel wrote).
  void FillErase(const KernelArgs& args) const;

  std::shared_ptr<const KernelConstants> constants_;
  Normalization norm_;
  double flip_p_ = 0.5;
  EraseOptions erase_;
  FusedNormalizationOptions::Stores stores_ =
      FusedNormalizationOptions::Stores::kAuto;
  // Per channel count 1..4: the kernel chosen for it, or why none could be.
  const KernelInfo* kernels_[kMaxChannels + 1] = {};
  absl::Status kernel_status_[kMaxChannels + 1];
};

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_FUSED_NORMALIZATION_H_
