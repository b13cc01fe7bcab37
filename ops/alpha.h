// How Pillow treats an alpha channel.
//
// Premultiplied alpha: LA and RGBA images are resized and warped as La and
// RGBa (each colour times alpha), then converted back, so that transparent
// pixels lend no colour to their neighbours. The conversions are Pillow's
// Convert.c ones, bit for bit.
//
// LA images in ImageEnhance: brightness, contrast and sharpness blend the
// L channel as they blend an L image, and put the image's own alpha back
// on the result; the colour (saturation) blend of an LA image is with
// itself, which leaves it as it is, as it leaves an L image; convert("L")
// keeps the L channel. So each of those ops is its L-image op on the L
// channel (OnGrayOfLA).
#ifndef FUSEDNORM_OPS_ALPHA_H_
#define FUSEDNORM_OPS_ALPHA_H_

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "core/image.h"

namespace fusednorm {

// Whether Pillow premultiplies an image of `channels` (LA, RGBA: alpha is
// the last channel).
inline bool HasAlpha(int channels) { return channels == 2 || channels == 4; }

// `in` (LA or RGBA) premultiplied into `out`, compact: each colour times
// alpha, divided by 255 and rounded as Pillow's MULDIV255.
absl::Status Premultiply(const ImageView& in, Image* out);

// Back, in place: each colour times 255, divided by alpha (truncated,
// at most 255); untouched where alpha is 0 or 255.
void Unpremultiply(Image* image);

// `op` (an op on L images that keeps their size) run on the L channel of
// `la` (2 channels), with la's alpha beside its result in `output`, which
// must not hold la's pixels.
absl::Status OnGrayOfLA(
    const ImageView& la,
    absl::FunctionRef<absl::Status(const ImageView& gray, Image* out)> op,
    Image* output);

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_ALPHA_H_
