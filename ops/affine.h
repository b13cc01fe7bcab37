// The geometry of torchvision's affine and rotate on PIL images: the
// inverse matrices torchvision and Pillow compute (with Python's float
// operations, in the same order), and Pillow's Image.transform(AFFINE)
// and Image.rotate with their special cases, on the augment kernels
// (kernels/augment/augment_kernel.h):
//
//   - Image.rotate: the angle modulo 360 as Python takes it; no center
//     given: 0 is a copy, 180 Pillow's ROTATE_180, 90 and 270 its
//     ROTATE_90 / ROTATE_270 when the image is square or `expand` is set;
//     else the matrix of cos and sin rounded to 15 decimals (Python's
//     round), and with `expand` the size its corners span.
//   - Image.transform on LA or RGBA with a filter other than NEAREST:
//     converted to premultiplied La or RGBa (ops/alpha.h), warped with the
//     fill colour as those bytes, converted back.
//
// The fill colour is torchvision's _parse_fill: one value for every
// channel, or one per channel, truncated to int; fusednorm refuses values
// outside 0..255 (the ops check) where Pillow would clip them.
#ifndef FUSEDNORM_OPS_AFFINE_H_
#define FUSEDNORM_OPS_AFFINE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/image.h"
#include "kernels/augment/augment_kernel.h"
#include "ops/arg_value.h"
#include "ops/resize.h"

namespace fusednorm {

// Pillow's inverse matrix: output (x + .5, y + .5) -> input point.
using AffineMatrix = std::array<double, 6>;

// A fill colour: each channel's byte (values[0] for every channel when it
// has one value; empty: 0).
struct FillColor {
  std::vector<uint8_t> values;
  uint8_t channel(int c) const {
    if (values.empty()) return 0;
    return values.size() == 1 ? values[0] : values[c];
  }
};

// torchvision's fill argument as given: None (values empty, not a
// sequence), a number, or a sequence of numbers.
struct FillArg {
  std::vector<double> values;
  bool sequence = false;
  ArgValue given;  // as the user wrote it

  // None, the number, or the tuple, as given.
  const ArgValue& Print() const { return given; }
  // Each value's int() in 0..255, at most 4 of them: InvalidArgument
  // naming `op` (Pillow would clip them).
  absl::Status Validate(const char* op) const;
  // A sequence has one value per channel (torchvision's _parse_fill):
  // InvalidArgument naming `op` otherwise.
  absl::Status CheckChannels(const char* op, int channels) const;
  // The bytes: int() of each value.
  FillColor Color() const;
};

// The channels an op with a fill takes: any image's (L, LA, RGB, RGBA), when
// a fill sequence has as many values; InvalidArgument naming `op` otherwise.
absl::StatusOr<int> FillableChannels(const char* op, int channels,
                                     const FillArg& fill);

// A point (x, y) in pixels.
using Point2 = std::pair<double, double>;

// torchvision's _get_inverse_affine_matrix(center, angle, translate,
// scale, shear) (inverted): angle and shears in degrees.
AffineMatrix InverseAffineMatrix(Point2 center, double angle, Point2 translate,
                                 double scale, Point2 shear);

// Pillow's filter of torchvision's InterpolationMode.
AffineFilter FilterOf(Interpolation interpolation);

// Buffers the transforms reuse from call to call.
struct AffineScratch {
  Image premultiplied;
};

// Pillow's im.transform((out_width, out_height), AFFINE, a, filter,
// fillcolor=fill) into `output` (input's channels); InvalidArgument for a
// matrix that is not finite.
absl::Status PillowTransform(const AugmentKernelInfo& kernel,
                             const ImageView& input, const AffineMatrix& a,
                             AffineFilter filter, const FillColor& fill,
                             int64_t out_height, int64_t out_width,
                             AffineScratch* scratch, Image* output);

// Pillow's im.rotate(angle, filter, expand, center, fillcolor=fill).
absl::Status PillowRotate(const AugmentKernelInfo& kernel,
                          const ImageView& input, double angle,
                          AffineFilter filter, bool expand,
                          std::optional<Point2> center, const FillColor& fill,
                          AffineScratch* scratch, Image* output);

// The size Pillow's rotate by `angle` gives an image of `input` (its own
// unless `expand`); InvalidArgument when expanding makes it too large.
absl::StatusOr<Size2> RotatedSize(Size2 input, double angle, bool expand,
                                  std::optional<Point2> center);

// torchvision's F.affine on a PIL image: the matrix about `center` (the
// image's middle, (width / 2, height / 2), when none), then
// PillowTransform at the input's size.
absl::Status TorchvisionAffine(const AugmentKernelInfo& kernel,
                               const ImageView& input, double angle,
                               Point2 translate, double scale, Point2 shear,
                               std::optional<Point2> center,
                               AffineFilter filter, const FillColor& fill,
                               AffineScratch* scratch, Image* output);

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_AFFINE_H_
