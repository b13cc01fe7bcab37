// Resizing a box of an image, with the three filters a user can ask for:
//
//   kPil       bit-identical to Pillow 9.4's
//              img.crop((left, top, left + w, top + h)).resize((W, H),
//              Image.BILINEAR), the route torchvision's transforms take for
//              PIL images (the default everywhere). Runs on the resize
//              dispatch table's SIMD rows (kernels/resize/).
//   kTensor    torchvision 0.14's tensor route with antialias=True: a
//              triangle filter widened by the downscale factor, float math,
//              rounded to nearest-even (within 1 of torchvision).
//   kBilinear  torchvision's tensor route with antialias=False: plain
//              bilinear interpolation (half-pixel centres).
//
// The box is read in place (no crop copy); only the rows the output needs
// are read.
#ifndef FUSEDNORM_OPS_RESIZE_H_
#define FUSEDNORM_OPS_RESIZE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/image.h"
#include "core/names.h"

namespace fusednorm {

enum class ResizeFilter { kPil, kTensor, kBilinear };

// pil, tensor, bilinear.
absl::Span<const Named<ResizeFilter>> ResizeFilterNames();
const char* ResizeFilterName(ResizeFilter filter);

// The filter named `name`; InvalidArgument naming the value and the choices
// otherwise.
absl::StatusOr<ResizeFilter> ParseResizeFilter(absl::string_view name);

// Resizes `box` of `input` to `size` into `output` (compact, reusing its
// storage). `kernel` forces a resize dispatch row for kPil ("" = the
// FUSEDNORM_RESIZE_KERNEL variable, else the best row). InvalidArgument for a
// bad image, box or size; NotFound / Unimplemented for a bad kernel id.
absl::Status ResizeBox(const ImageView& input, const CropWindow& box,
                       Size2 size, ResizeFilter filter, Image* output,
                       absl::string_view kernel = "");

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_RESIZE_H_
