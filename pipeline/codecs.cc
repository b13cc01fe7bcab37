// Decoding by signature (JPEG: jpeg.h, PNG: png.h), file reading, and JPEG
// (TurboJPEG) and PNG (libpng's simplified API) encoding (codecs.h); each
// library's error handling ends as an absl::Status naming the file.
#include "pipeline/codecs.h"

#include <png.h>
#include <sys/stat.h>
#include <turbojpeg.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "pipeline/jpeg.h"
#include "pipeline/png.h"
#include "util/status_macros.h"

namespace fusednorm {
namespace {

struct TjCloser {
  void operator()(void* h) const { tjDestroy(h); }
};

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
      what, ": neither a JPEG nor a PNG (", bytes.size(), " bytes)"));
}

absl::StatusOr<Image> DecodeImage(absl::Span<const uint8_t> bytes,
                                  const std::string& what) {
  Image image;
  FUSEDNORM_RETURN_IF_ERROR(DecodeImageInto(bytes, what, &image));
  return image;
}

absl::Status ReadFileInto(const std::string& path, std::vector<uint8_t>* out) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"),
                                          &std::fclose);
  if (!f) {
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  }
  struct stat st;
  if (fstat(fileno(f.get()), &st) != 0 || st.st_size < 0) {
    return absl::DataLossError(
        absl::StrCat(path, ": cannot stat: ", std::strerror(errno)));
  }
  // The size stat gives, then whatever more the file has grown by.
  out->resize(static_cast<size_t>(st.st_size));
  size_t n = std::fread(out->data(), 1, out->size(), f.get());
  for (int c; n == out->size() && (c = std::fgetc(f.get())) != EOF;) {
    out->push_back(static_cast<uint8_t>(c));
    ++n;
  }
  if (std::ferror(f.get()) || n != out->size()) {
    return absl::DataLossError(
        absl::StrCat(path, ": read error: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path) {
  std::vector<uint8_t> bytes;
  FUSEDNORM_RETURN_IF_ERROR(ReadFileInto(path, &bytes));
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
