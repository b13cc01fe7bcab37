// Images as every layer above the kernels passes them: a view of the
// caller's uint8 HWC pixels, an owned image, the caller's output buffer, and
// the checks every transform applies to image and output sizes.
#ifndef FUSEDNORM_CORE_IMAGE_H_
#define FUSEDNORM_CORE_IMAGE_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "core/formats.h"
#include "core/geometry.h"

namespace fusednorm {

// A uint8 HWC input image. `pixels` must hold (height-1)*row_stride +
// width*channels bytes.
struct ImageView {
  absl::Span<const uint8_t> pixels;
  int64_t height = 0;
  int64_t width = 0;
  int channels = 0;
  int64_t row_stride = 0;  // bytes between rows, >= width * channels
};

// The caller's output buffer. The row stride is derived from dtype and layout:
// `row_stride` exists only to reject callers that pass one (it must stay 0).
struct OutputView {
  absl::Span<uint8_t> bytes;
  int64_t row_stride = 0;
};

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

// Sets `out` to height x width x channels (a valid size), reusing its
// storage: ShapeImage leaves the pixels as they are, AllocateImage zeroes
// them. ResourceExhausted naming the size when the memory is not there.
absl::Status ShapeImage(int64_t height, int64_t width, int channels,
                        Image* out);
absl::Status AllocateImage(int64_t height, int64_t width, int channels,
                           Image* out);

}  // namespace fusednorm

#endif  // FUSEDNORM_CORE_IMAGE_H_
