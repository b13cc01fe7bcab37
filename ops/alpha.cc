// Premultiplied alpha (alpha.h).
#include "ops/alpha.h"

#include <algorithm>
#include <cstdint>

#include "core/status.h"

namespace fusednorm {
namespace {

uint8_t MulDiv255(unsigned a, unsigned b) {
  const unsigned t = a * b + 128;
  return static_cast<uint8_t>(((t >> 8) + t) >> 8);
}

}  // namespace

absl::Status Premultiply(const ImageView& in, Image* out) {
  const int C = in.channels;
  FUSEDNORM_RETURN_IF_ERROR(ShapeImage(in.height, in.width, C, out));
  for (int64_t y = 0; y < in.height; ++y) {
    const uint8_t* p = in.pixels.data() + y * in.row_stride;
    uint8_t* o = out->pixels.data() + y * in.width * C;
    for (int64_t x = 0; x < in.width; ++x, p += C, o += C) {
      for (int c = 0; c < C - 1; ++c) o[c] = MulDiv255(p[c], p[C - 1]);
      o[C - 1] = p[C - 1];
    }
  }
  return absl::OkStatus();
}

void Unpremultiply(Image* image) {
  const int C = image->channels;
  uint8_t* p = image->pixels.data();
  for (int64_t i = 0; i < image->height * image->width; ++i, p += C) {
    const unsigned alpha = p[C - 1];
    if (alpha == 0 || alpha == 255) continue;
    for (int c = 0; c < C - 1; ++c)
      p[c] = static_cast<uint8_t>(std::min(255u, 255u * p[c] / alpha));
  }
}

absl::Status OnGrayOfLA(
    const ImageView& la,
    absl::FunctionRef<absl::Status(const ImageView& gray, Image* out)> op,
    Image* output) {
  const int64_t H = la.height, W = la.width;
  Image gray, done;
  FUSEDNORM_RETURN_IF_ERROR(ShapeImage(H, W, 1, &gray));
  for (int64_t y = 0; y < H; ++y) {
    const uint8_t* p = la.pixels.data() + y * la.row_stride;
    for (int64_t x = 0; x < W; ++x) gray.pixels[y * W + x] = p[2 * x];
  }
  FUSEDNORM_RETURN_IF_ERROR(op(gray.view(), &done));
  if (done.height != H || done.width != W || done.channels != 1) {
    return absl::InternalError("an L op on an LA image changed its shape");
  }
  FUSEDNORM_RETURN_IF_ERROR(ShapeImage(H, W, 2, output));
  for (int64_t y = 0; y < H; ++y) {
    const uint8_t* p = la.pixels.data() + y * la.row_stride;
    uint8_t* o = output->pixels.data() + y * W * 2;
    for (int64_t x = 0; x < W; ++x) {
      o[2 * x] = done.pixels[y * W + x];
      o[2 * x + 1] = p[2 * x + 1];
    }
  }
  return absl::OkStatus();
}

}  // namespace fusednorm
