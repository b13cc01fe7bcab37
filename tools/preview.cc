// WritePreview (preview.h): outputs decoded back to pixels in a PNG grid.
#include "tools/preview.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "codecs/encode.h"
#include "core/status.h"
#include "data/atomic_file.h"
#include "kernels/formats.h"

namespace fusednorm {
namespace {

constexpr int64_t kColumns = 4;

// Value (c, h, w) of one output sample, as float.
float ValueAt(const uint8_t* sample, const FusedNormalization& op, Size2 size,
              int channels, int c, int64_t h, int64_t w) {
  const int64_t i =
      OutputIndex(op.layout(), size.height, size.width, channels, c, h, w);
  if (op.dtype() == DType::kFloat32) {
    float f;
    std::memcpy(&f, sample + i * 4, 4);
    return f;
  }
  uint16_t bits;
  std::memcpy(&bits, sample + i * 2, 2);
  return op.dtype() == DType::kBFloat16 ? BFloat16BitsToFloat(bits)
                                        : HalfBitsToFloat(bits);
}

// Draws one sample, de-normalized, with its top-left corner at (y0, x0).
void Draw(const uint8_t* sample, const FusedNormalization& op, Size2 size,
          int channels, int64_t y0, int64_t x0, Image* grid) {
  const Normalization& norm = op.normalization();
  for (int64_t h = 0; h < size.height; ++h) {
    for (int64_t w = 0; w < size.width; ++w) {
      for (int c = 0; c < 3; ++c) {
        const int src = channels == 1 ? 0 : c;
        const size_t n = std::min<size_t>(src, norm.mean.size() - 1);
        const float y = ValueAt(sample, op, size, channels, src, h, w);
        const float v = (y * norm.std[n] + norm.mean[n]) * 255.0f;
        grid->pixels[((y0 + h) * grid->width + x0 + w) * 3 + c] =
            static_cast<uint8_t>(
                std::lround(std::min(255.0f, std::max(0.0f, v))));
      }
    }
  }
}

}  // namespace

absl::Status WritePreview(const std::string& path,
                          const std::vector<std::vector<uint8_t>>& samples,
                          const FusedNormalization& op, Size2 size,
                          int channels) {
  const int64_t H = size.height, W = size.width;
  const int64_t rows =
      (static_cast<int64_t>(samples.size()) + kColumns - 1) / kColumns;
  // A 1-pixel grey border around every sample.
  Image grid{rows * (H + 2), kColumns * (W + 2), 3, {}};
  grid.pixels.assign(grid.height * grid.width * 3, 40);
  for (size_t n = 0; n < samples.size(); ++n) {
    Draw(samples[n].data(), op, size, channels, (n / kColumns) * (H + 2) + 1,
         (n % kColumns) * (W + 2) + 1, &grid);
  }
  FUSEDNORM_ASSIGN_OR_RETURN(const std::vector<uint8_t> png, EncodePng(grid));
  return WriteFileAtomically(path, {absl::MakeConstSpan(png)});
}

}  // namespace fusednorm
