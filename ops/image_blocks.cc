// CopyImage (image_blocks.h).
#include "ops/image_blocks.h"

#include <cstring>

#include "core/status.h"

namespace fusednorm {

absl::Status CopyImage(const ImageView& input, Image* output) {
  FUSEDNORM_RETURN_IF_ERROR(
      ShapeImage(input.height, input.width, input.channels, output));
  const size_t row = static_cast<size_t>(input.width * input.channels);
  for (int64_t y = 0; y < input.height; ++y) {
    std::memcpy(output->pixels.data() + y * row,
                input.pixels.data() + y * input.row_stride, row);
  }
  return absl::OkStatus();
}

}  // namespace fusednorm
