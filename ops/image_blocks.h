// Walking an image in the blocks a row kernel takes, and copying one: the
// helpers the pixel ops (colour, augment) share.
#ifndef FUSEDNORM_OPS_IMAGE_BLOCKS_H_
#define FUSEDNORM_OPS_IMAGE_BLOCKS_H_

#include <algorithm>
#include <cstdint>

#include "absl/status/status.h"
#include "core/image.h"

namespace fusednorm {

// fn(pixels of the block, its first pixel's index, its pixels) for blocks
// of `image` a row kernel takes as one row: all its rows at once where
// they are contiguous, in calls of at most `max_pixels` pixels, else rows
// or parts of rows.
template <typename Fn>
void ForEachBlock(const ImageView& image, int64_t max_pixels, Fn fn) {
  const int64_t w = image.width;
  const bool contiguous = image.row_stride == w * image.channels;
  const int64_t rows = contiguous ? image.height : 1;
  const int64_t blocks = contiguous ? 1 : image.height;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t total = rows * w;
    for (int64_t done = 0; done < total; done += max_pixels) {
      const uint8_t* row = image.pixels.data() + b * image.row_stride;
      fn(row + done * image.channels, b * w + done,
         std::min(max_pixels, total - done));
    }
  }
}

// `input` copied into `output` (compact).
absl::Status CopyImage(const ImageView& input, Image* output);

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_IMAGE_BLOCKS_H_
