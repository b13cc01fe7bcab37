// JPEG (jpeg.h; TurboJPEG for encoding) and PNG (libpng) decoding and
// encoding (codecs.h); each library's error handling ends here as an
// absl::Status naming the file.
#include "pipeline/codecs.h"

#include <png.h>
#include <turbojpeg.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "pipeline/jpeg.h"

namespace fusednorm {
namespace {

struct TjCloser {
  void operator()(void* h) const { tjDestroy(h); }
};

absl::StatusOr<Image> DecodePng(absl::Span<const uint8_t> bytes,
                                const std::string& what) {
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
  std::vector<uint8_t> read(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, read.data(), 0, nullptr)) {
    const std::string message = png.message;
    png_image_free(&png);
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": corrupt or truncated PNG: ", message));
  }
  Image img{png.height, png.width, 3, std::move(read)};
  if (alpha) {
    const size_t pixels = static_cast<size_t>(img.height * img.width);
    for (size_t i = 0; i < pixels; ++i) {
      std::memmove(&img.pixels[3 * i], &img.pixels[4 * i], 3);
    }
    img.pixels.resize(3 * pixels);
  }
  return img;
}

}  // namespace

absl::StatusOr<Image> DecodeImage(absl::Span<const uint8_t> bytes,
                                  const std::string& what) {
  static const uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), kPng, 8) == 0)
    return DecodePng(bytes, what);
  if (bytes.size() >= 3 && bytes[0] == 0xff && bytes[1] == 0xd8 &&
      bytes[2] == 0xff) {
    absl::StatusOr<DecodedRegion> jpeg = DecodeJpeg(bytes, what);
    if (!jpeg.ok()) return jpeg.status();
    return std::move(jpeg->image);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      what, ": neither a JPEG nor a PNG (", bytes.size(), " bytes)"));
}

absl::StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"),
                                          &std::fclose);
  if (!f) {
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  }
  std::vector<uint8_t> bytes;
  uint8_t buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f.get())) > 0)
    bytes.insert(bytes.end(), buf, buf + n);
  if (std::ferror(f.get())) {
    return absl::DataLossError(
        absl::StrCat(path, ": read error: ", std::strerror(errno)));
  }
  return bytes;
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
