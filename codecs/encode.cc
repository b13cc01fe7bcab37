// JPEG and PNG encoding (encode.h); each library's error ends here as an
// absl::Status.
#include "codecs/encode.h"

#include <png.h>
#include <turbojpeg.h>

#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"

namespace fusednorm {
namespace {

struct TjCloser {
  void operator()(void* h) const { tjDestroy(h); }
};

}  // namespace

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
