// Pillow's premultiplied alpha: LA and RGBA images are resized and warped
// as La and RGBa (each colour times alpha), then converted back, so that
// transparent pixels lend no colour to their neighbours. The conversions
// are Pillow's Convert.c ones, bit for bit.
#ifndef FUSEDNORM_OPS_ALPHA_H_
#define FUSEDNORM_OPS_ALPHA_H_

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

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_ALPHA_H_
