// Resizing a box of an image, with the filters a user can ask for:
//
//   kPil       bit-identical to Pillow's
//              img.crop((left, top, left + w, top + h)).resize((W, H),
//              Image.BILINEAR), the route torchvision's transforms take for
//              PIL images (the default everywhere), as Pillow up to 12.1
//              computes it (Debian 12's 9.4 among them): always the
//              horizontal pass first. Runs on the resize dispatch table's
//              SIMD rows (kernels/resize/).
//   kPil12_2   the same bits as Pillow 12.2 and 12.3 give them: their
//              Image.resize runs the vertical pass first where the box is
//              more than 100 times as tall as it is wide and the height
//              shrinks (H < h).
//   kPil13     the same as Pillow 13.0 gives them: vertical pass first where
//              the height shrinks by more than twice as many pixels as the
//              width (h - H > 2 * (w - W), H < h).
//   kTensor    torchvision 0.14's tensor route with antialias=True: a
//              triangle filter widened by the downscale factor, float math,
//              rounded to nearest-even (within 1 of torchvision).
//   kBilinear  torchvision's tensor route with antialias=False: plain
//              bilinear interpolation (half-pixel centres).
//
// The Pillow filters share weights and kernels; with a uint8 buffer between
// the passes, the order moves some values by 1, so each Pillow's bits need
// its own order rule. The box is read in place (no crop copy); only the rows
// the output needs are read.
//
// The interpolation is torchvision's argument of the same name, mapped to
// Pillow's resampling filters as torchvision maps it for PIL images:
// bilinear (Image.BILINEAR), bicubic (Image.BICUBIC) and nearest
// (Image.NEAREST: Pillow's nearest-neighbour scaling, its source positions
// accumulated in double as Pillow accumulates them). The tensor filters
// implement bilinear only. A 2- or 4-channel image is LA or RGBA to Pillow:
// bilinear and bicubic resize it premultiplied by its alpha (Pillow's La
// and RGBa) and divide again, as Image.resize does.
#ifndef FUSEDNORM_OPS_RESIZE_H_
#define FUSEDNORM_OPS_RESIZE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/image.h"
#include "core/names.h"
#include "kernels/resize/resize_kernel.h"

namespace fusednorm {

enum class ResizeFilter { kPil, kPil12_2, kPil13, kTensor, kBilinear };

// torchvision's InterpolationMode values fusednorm implements.
enum class Interpolation { kNearest, kBilinear, kBicubic };

// nearest, bilinear, bicubic (InterpolationMode's values).
absl::Span<const Named<Interpolation>> InterpolationNames();
const char* InterpolationName(Interpolation interpolation);

// pil, pil12.2, pil13, tensor, bilinear.
absl::Span<const Named<ResizeFilter>> ResizeFilterNames();
const char* ResizeFilterName(ResizeFilter filter);

// The filter named `name`; InvalidArgument naming the value and the choices
// otherwise.
absl::StatusOr<ResizeFilter> ParseResizeFilter(absl::string_view name);

// What the Pillow filters keep from call to call on one thread: the weights
// of the last sizes (reused while they repeat) and the kernel's buffers
// (grown to the largest image, then reused). A worker owns one.
struct ResizeWorkspace {
  ResizeAxis horizontal, vertical;
  PillowFilter axes_filter = PillowFilter::kBilinear;  // what the axes hold
  ResizeScratch scratch;
  Image premultiplied;  // an RGBA box times its alpha
};

// A filter with its kernel row, chosen once when it is made (the
// environment is read then, not per image).
class Resizer {
 public:
  // `kernel` forces a resize dispatch row for the Pillow filters ("" = the
  // FUSEDNORM_RESIZE_KERNEL variable, else the best row): NotFound /
  // Unimplemented for a bad id. An interpolation the filter does not
  // implement (bicubic or nearest with tensor or bilinear) is
  // InvalidArgument naming both.
  static absl::StatusOr<Resizer> Create(
      ResizeFilter filter, absl::string_view kernel = "",
      Interpolation interpolation = Interpolation::kBilinear);

  // Resizes `box` of `input` to `size` into `output` (compact, reusing its
  // storage) with `ws`'s weights and buffers. InvalidArgument for a bad
  // image, box or size, or a value that is not a ResizeFilter.
  absl::Status Resize(const ImageView& input, const CropWindow& box, Size2 size,
                      ResizeWorkspace* ws, Image* output) const;

  ResizeFilter filter() const { return filter_; }

 private:
  Resizer() = default;
  // The Pillow filters' resize of a whole view.
  absl::Status ResizePillow(const ImageView& in, Size2 size,
                            ResizeWorkspace* ws, Image* output) const;

  ResizeFilter filter_ = ResizeFilter::kPil;
  Interpolation interpolation_ = Interpolation::kBilinear;
  const ResizeKernelInfo* row_ = nullptr;  // the Pillow filters' row
};

// One resize with a Resizer and a workspace of its own, for one-off callers
// (a loop over images keeps a Resizer and a ResizeWorkspace instead).
absl::Status ResizeBox(const ImageView& input, const CropWindow& box,
                       Size2 size, ResizeFilter filter, Image* output,
                       absl::string_view kernel = "",
                       Interpolation interpolation = Interpolation::kBilinear);

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_RESIZE_H_
