// Owned images, sizes and crop boxes shared by the real transforms, with the
// checks every one of them applies to its input and output sizes.
#ifndef FUSEDNORM_OPS_IMAGE_H_
#define FUSEDNORM_OPS_IMAGE_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "ops/fused_normalization.h"

namespace fusednorm {

// An owned, compact uint8 HWC image.
struct Image {
  int64_t height = 0;
  int64_t width = 0;
  int channels = 0;
  std::vector<uint8_t> pixels;  // height * width * channels bytes

  // Returns a view of the whole image (row stride width * channels).
  ImageView view() const {
    return {absl::MakeConstSpan(pixels), height, width, channels,
            width * channels};
  }
};

// Output height and width.
struct Size2 {
  int64_t height = 0;
  int64_t width = 0;
};

// A crop window: top, left, height, width (input pixels).
struct CropWindow {
  int64_t top = 0, left = 0, height = 0, width = 0;
};

// Largest image side and pixel count the real ops accept (keeps every size
// computation far from overflow).
inline constexpr int64_t kMaxSide = int64_t{1} << 20;
inline constexpr int64_t kMaxPixels = int64_t{1} << 31;

// Checks a transform's input: non-null pixels, sides in 1..kMaxSide, channels
// in 1..kMaxChannels, a row stride that holds a row, and enough bytes.
absl::Status ValidateImage(const ImageView& in);

// Checks an output size: 1..kMaxSide per side, at most kMaxPixels pixels.
absl::Status ValidateOutputSize(int64_t height, int64_t width);

// Checks that `box` is non-empty and lies inside an image of height x width;
// the message names the box and the image size.
absl::Status ValidateBox(const CropWindow& box, int64_t height, int64_t width);

// A view of the box of `in` (a valid image; `box` inside it).
ImageView SubView(const ImageView& in, const CropWindow& box);

// Sets `out` to height x width x channels, zero-filled, reusing its storage.
void AllocateImage(int64_t height, int64_t width, int channels, Image* out);

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_IMAGE_H_
