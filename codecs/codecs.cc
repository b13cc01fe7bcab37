// JPEG (jpeg.h; TurboJPEG for encoding) and PNG (libpng) decoding and
// encoding (codecs.h); each library's error handling ends here as an
// absl::Status naming the file.
#include "codecs/codecs.h"

#include <png.h>
#include <sys/stat.h>
#include <turbojpeg.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "codecs/jpeg.h"
#include "core/status.h"

namespace fusednorm {
namespace {

struct TjCloser {
  void operator()(void* h) const { tjDestroy(h); }
};

absl::Status DecodePng(absl::Span<const uint8_t> bytes, const std::string& what,
                       Image* img) {
  png_image png;
  std::memset(&png, 0, sizeof(png));
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&png, bytes.data(), bytes.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": not a readable PNG: ", png.message));
  }
  if (png.width < 1 || png.height < 1 ||
      static_cast<int64_t>(png.width) * png.height > kMaxDecodedPixels) {
    png_image_free(&png);
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": PNG size ", png.width, "x", png.height, " is not supported"));
  }
  // PIL's convert("RGB") drops alpha (tRNS included) rather than blending:
  // images with alpha are read as RGBA and the alpha bytes left out.
  const bool alpha = (png.format & PNG_FORMAT_FLAG_ALPHA) != 0;
  png.format = alpha ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
  img->pixels.resize(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, img->pixels.data(), 0, nullptr)) {
    const std::string message = png.message;
    png_image_free(&png);
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": corrupt or truncated PNG: ", message));
  }
  img->height = png.height;
  img->width = png.width;
  img->channels = 3;
  const size_t pixels = static_cast<size_t>(img->height * img->width);
  if (alpha) {
    for (size_t i = 0; i < pixels; ++i) {
      std::memmove(&img->pixels[3 * i], &img->pixels[4 * i], 3);
    }
  }
  img->pixels.resize(3 * pixels);
  return absl::OkStatus();
}

}  // namespace

absl::Status DecodeImageInto(absl::Span<const uint8_t> bytes,
                             const std::string& what, Image* out) {
  static const uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), kPng, 8) == 0)
    return DecodePng(bytes, what, out);
  if (bytes.size() >= 3 && bytes[0] == 0xff && bytes[1] == 0xd8 &&
      bytes[2] == 0xff) {
    // The region's storage is `out`'s: moved in and back out.
    DecodedRegion region;
    region.image = std::move(*out);
    const absl::Status s = DecodeJpegInto(
        bytes, what, [](Size2) { return JpegRequest(); }, &region);
    *out = std::move(region.image);
    return s;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      what, ": neither a JPEG, a PNG nor a .npy (", bytes.size(), " bytes)"));
}

absl::StatusOr<Image> DecodeImage(absl::Span<const uint8_t> bytes,
                                  const std::string& what) {
  Image image;
  FUSEDNORM_RETURN_IF_ERROR(DecodeImageInto(bytes, what, &image));
  return image;
}

absl::StatusOr<std::vector<uint8_t>> EncodeJpeg(const Image& image,
                                                int quality) {
  if (image.channels != 3)
    return absl::InvalidArgumentError("EncodeJpeg needs 3 channels");
  std::unique_ptr<void, TjCloser> tj(tjInitCompress());
  unsigned char* out = nullptr;
  unsigned long size = 0;
  if (tjCompress2(tj.get(), image.pixels.data(), image.width, image.width * 3,
                  image.height, TJPF_RGB, &out, &size, TJSAMP_420, quality,
                  0) != 0) {
    return absl::InternalError(
        absl::StrCat("JPEG encoding failed: ", tjGetErrorStr2(tj.get())));
  }
  std::vector<uint8_t> bytes(out, out + size);
  tjFree(out);
  return bytes;
}

absl::StatusOr<std::vector<uint8_t>> EncodePng(const Image& image) {
  if (image.channels != 3)
    return absl::InvalidArgumentError("EncodePng needs 3 channels");
  png_image png;
  std::memset(&png, 0, sizeof(png));
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = PNG_FORMAT_RGB;
  png_alloc_size_t size = 0;
  if (!png_image_write_to_memory(&png, nullptr, &size, 0, image.pixels.data(),
                                 0, nullptr)) {
    return absl::InternalError(
        absl::StrCat("PNG encoding failed: ", png.message));
  }
  std::vector<uint8_t> bytes(size);
  if (!png_image_write_to_memory(&png, bytes.data(), &size, 0,
                                 image.pixels.data(), 0, nullptr)) {
    return absl::InternalError(
        absl::StrCat("PNG encoding failed: ", png.message));
  }
  bytes.resize(size);
  return bytes;
}

}  // namespace fusednorm
