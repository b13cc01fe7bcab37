// RandomCrop: torchvision's crop of a fixed size at a random place, after
// optional padding, on a PIL image.
//
// torchvision pads first -- `padding` on the given borders, then, with
// `pad_if_needed`, the width by (size - width) on both the left and the
// right and the height likewise, each a pad of its own -- and then draws
// the crop's corner in the padded image (get_params: torch.randint over
// every place the crop fits). Padding is a constant `fill` or NumPy's
// edge, reflect or symmetric modes (ops/pad_axis.h); two reflecting pads
// in a row are not one larger pad, so each is undone in turn.
//
// The decision's window is in the input's coordinates and may reach past
// its borders, into the padding: a crop inside the image needs only its
// window decoded, as RandomResizedCrop's does.
#ifndef FUSEDNORM_OPS_RANDOM_CROP_H_
#define FUSEDNORM_OPS_RANDOM_CROP_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ops/affine.h"
#include "ops/pad_axis.h"
#include "ops/transform.h"

namespace fusednorm {

// The pixels added on each border.
struct Borders {
  int64_t left = 0, top = 0, right = 0, bottom = 0;
};

class RandomCrop : public PreprocessOp {
 public:
  // `padding` is None or the int / 1-, 2- or 4-sequence given (shown as
  // given), `borders` what it adds. Reflecting pads follow the NumPy of
  // Numpy1Padding() when the op is made.
  RandomCrop(Size2 size, ArgValue padding, Borders borders, bool pad_if_needed,
             FillArg fill, PadMode mode);

  const char* op_name() const override { return "RandomCrop"; }
  std::vector<NamedArg> args() const override;
  // name(), plus " numpy1" for NumPy 1.x's reflecting pads.
  std::string PixelName() const override;
  std::unique_ptr<PreprocessOp> Clone() const override;
  // Size (and its pixel count), borders (each in 0..kMaxSide) and fill.
  absl::Status Validate() const override;
  // The size; InvalidArgument when the padded input is smaller (torchvision
  // refuses it too).
  absl::StatusOr<Size2> OutputSize(Size2 input) const override;
  std::optional<Size2> FixedOutputSize() const override { return size_; }
  // A constant fill given per channel must match the channels, unless the
  // op never pads (no padding, no pad_if_needed): the fill is then unused,
  // as in torchvision.
  absl::StatusOr<int> OutputChannels(int channels) const override;

  OpDecision Decide(Size2 input, SampleStream& stream) const override;
  absl::Status Apply(const ImageView& input, const OpDecision& decision,
                     OpWorkspace* ws, Image* output) const override;

  // get_params' i and j (in the padded image), height and width: F.crop's
  // top, left, height, width.
  std::vector<NamedArg> DecisionFields(const OpDecision& d) const override;
  absl::StatusOr<OpDecision> DecisionFromFields(
      const std::vector<NamedArg>& fields, Size2 input) const override;

 private:
  // The two pads' borders for an input of `input`: `padding`'s, then
  // pad_if_needed's.
  struct Pads {
    Borders first, second;
    int64_t height, width;  // of the padded image
  };
  Pads PadsFor(Size2 input) const;
  // The window `w` of `input` (the whole image), padding included.
  absl::Status CopyPadded(const ImageView& input, const CropWindow& w,
                          Image* output) const;
  // The decision cropping at (top, left) of the padded image.
  OpDecision At(const Pads& p, int64_t top, int64_t left) const;
  // The input index that index `x` of an axis (counted from the input's
  // first pixel, so negative before it) shows once padded by `first`, which
  // adds `before1` before it, and then by `second`, which adds `before2`:
  // -1 for the fill.
  int64_t Source(int64_t x, const PadAxis& first, const PadAxis& second,
                 int64_t before1, int64_t before2) const;

  Size2 size_;
  ArgValue padding_;
  Borders borders_;
  bool pad_if_needed_;
  FillArg fill_;
  PadMode mode_;
  bool numpy1_;  // NumPy 1.x's reflecting pads (ops/pad_axis.h)
};

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_RANDOM_CROP_H_
