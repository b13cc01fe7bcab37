// Test tool: decodes an image file with fusednorm's codecs and writes its
// RGB pixels as a uint8 (H, W, 3) .npy, for tests that compare them with
// Pillow's. With a box (TOP LEFT HEIGHT WIDTH) the file must be a JPEG: it is
// decoded with DecodeJpeg's region API and only the box's pixels are written.
// A whole file is decoded twice, the second time into the first result's
// storage filled with 0xA5, so that a pixel the decoder leaves unwritten
// shows. A decoding error is printed to stderr and the exit status is 1.
//
//   decode_npy_tool IN OUT.npy [TOP LEFT HEIGHT WIDTH]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "codecs/codec.h"
#include "codecs/jpeg.h"
#include "codecs/npy.h"
#include "core/status.h"
#include "data/read_file.h"

namespace fusednorm {
namespace {

// Decodes all of `bytes` through the codec registry into *image, reusing
// its storage (the second decode of Run finds it poisoned).
absl::Status DecodeInto(const std::vector<uint8_t>& bytes,
                        const std::string& what, Image* image) {
  DecodedImage d;
  d.storage = std::move(*image);
  const absl::Status s = Decode(
      bytes, what, [](const DecodeHeader&) { return DecodeRequest(); }, &d);
  *image = std::move(d.storage);
  return s;
}

// Decodes `box` of the JPEG `bytes` with the region API into `out` (the box's
// pixels only).
absl::Status DecodeBox(const std::vector<uint8_t>& bytes,
                       const std::string& what, const CropWindow& box,
                       Image* out) {
  FUSEDNORM_ASSIGN_OR_RETURN(DecodedRegion r, DecodeJpeg(bytes, what, box));
  out->height = box.height;
  out->width = box.width;
  out->channels = 3;
  out->pixels.resize(static_cast<size_t>(box.height * box.width * 3));
  for (int64_t y = 0; y < box.height; ++y) {
    const uint8_t* src =
        r.image.pixels.data() +
        ((box.top + y - r.top) * r.image.width + (box.left - r.left)) * 3;
    std::copy(src, src + box.width * 3, out->pixels.data() + y * box.width * 3);
  }
  return absl::OkStatus();
}

absl::Status Run(int argc, char** argv) {
  if (argc != 3 && argc != 7) {
    return absl::InvalidArgumentError(
        "usage: decode_npy_tool IN OUT.npy [TOP LEFT HEIGHT WIDTH]");
  }
  std::vector<uint8_t> bytes;
  FUSEDNORM_RETURN_IF_ERROR(ReadFileInto(argv[1], &bytes, kMaxImageFileBytes));
  Image image;
  if (argc == 3) {
    FUSEDNORM_RETURN_IF_ERROR(DecodeInto(bytes, argv[1], &image));
    std::fill(image.pixels.begin(), image.pixels.end(), 0xA5);
    FUSEDNORM_RETURN_IF_ERROR(DecodeInto(bytes, argv[1], &image));
  } else {
    int64_t v[4];
    for (int i = 0; i < 4; ++i) {
      if (!absl::SimpleAtoi(argv[3 + i], &v[i])) {
        return absl::InvalidArgumentError(
            absl::StrCat("box value '", argv[3 + i], "' is not an integer"));
      }
    }
    FUSEDNORM_RETURN_IF_ERROR(
        DecodeBox(bytes, argv[1], CropWindow{v[0], v[1], v[2], v[3]}, &image));
  }
  const std::string header =
      NpyHeader("|u1", {image.height, image.width, image.channels});
  std::FILE* f = std::fopen(argv[2], "wb");
  if (f == nullptr)
    return absl::NotFoundError(absl::StrCat(argv[2], ": cannot open"));
  const bool ok =
      std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
      std::fwrite(image.pixels.data(), 1, image.pixels.size(), f) ==
          image.pixels.size();
  if (std::fclose(f) != 0 || !ok) {
    return absl::DataLossError(absl::StrCat(argv[2], ": write error"));
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace fusednorm

int main(int argc, char** argv) {
  const absl::Status s = fusednorm::Run(argc, argv);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
