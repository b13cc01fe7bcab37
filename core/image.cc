// Image checks and views (image.h).
#include "core/image.h"

#include <algorithm>
#include <new>

#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace fusednorm {

absl::Status ValidateImage(const ImageView& in) {
  if (in.height < 1 || in.height > kMaxSide) {
    return InvalidArgumentCat("input height = ", in.height, " must be in 1..",
                              kMaxSide);
  }
  if (in.width < 1 || in.width > kMaxSide) {
    return InvalidArgumentCat("input width = ", in.width, " must be in 1..",
                              kMaxSide);
  }
  if (in.channels < 1 || in.channels > kMaxChannels) {
    return InvalidArgumentCat("input channels = ", in.channels,
                              " must be in 1..", kMaxChannels);
  }
  if (in.pixels.data() == nullptr)
    return InvalidArgumentCat("input pixels is null");
  if (in.row_stride < in.width * in.channels) {
    return InvalidArgumentCat(
        "input row_stride = ", in.row_stride,
        " is less than width * channels = ", in.width * in.channels);
  }
  const uint64_t need = static_cast<uint64_t>(in.height - 1) * in.row_stride +
                        static_cast<uint64_t>(in.width) * in.channels;
  if (in.pixels.size() < need) {
    return InvalidArgumentCat("input pixels has ", in.pixels.size(),
                              " bytes but the image needs ", need);
  }
  return absl::OkStatus();
}

absl::Status ValidateOutputSize(int64_t h, int64_t w) {
  if (h < 1 || w < 1 || h > kMaxSide || w > kMaxSide || h * w > kMaxPixels) {
    return InvalidArgumentCat("output size ", h, "x", w,
                              " must be at least 1x1 and at most ", kMaxSide,
                              " per side and ", kMaxPixels, " pixels");
  }
  return absl::OkStatus();
}

absl::Status ValidateBox(const CropWindow& box, int64_t height, int64_t width) {
  if (box.top < 0 || box.left < 0 || box.height < 1 || box.width < 1 ||
      box.height > height - box.top || box.width > width - box.left) {
    return InvalidArgumentCat("crop box (top ", box.top, ", left ", box.left,
                              ", height ", box.height, ", width ", box.width,
                              ") is empty or not inside the ", height, "x",
                              width, " image");
  }
  return absl::OkStatus();
}

ImageView SubView(const ImageView& in, const CropWindow& box) {
  return {in.pixels.subspan(static_cast<size_t>(box.top * in.row_stride +
                                                box.left * in.channels)),
          box.height, box.width, in.channels, in.row_stride};
}

absl::Status ShapeImage(int64_t h, int64_t w, int c, Image* out) {
  const size_t bytes = static_cast<size_t>(h * w * c);
  try {
    out->pixels.resize(bytes);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrCat("cannot allocate ", bytes,
                                                     " bytes for a ", h, "x", w,
                                                     "x", c, " image"));
  }
  out->height = h;
  out->width = w;
  out->channels = c;
  return absl::OkStatus();
}

absl::Status AllocateImage(int64_t h, int64_t w, int c, Image* out) {
  FUSEDNORM_RETURN_IF_ERROR(ShapeImage(h, w, c, out));
  std::fill(out->pixels.begin(), out->pixels.end(), 0);
  return absl::OkStatus();
}

}  // namespace fusednorm
