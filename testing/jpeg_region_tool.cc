// The JPEG decoder's region and transcode paths as a command, for tests
// that compare them with Pillow (testing/jpeg_segments_pil_test.py):
//
//   jpeg_region_tool transcode IN.jpg rows|N OUT.jpg
//       IN rewritten with restart markers (jpeg_transcode.h)
//   jpeg_region_tool regions IN.jpg BOXES OUT
//       each line "top left height width" of BOXES decoded as a region of IN
//       (restart segments where they apply); OUT gets the boxes' RGB pixels
//       one after the other; prints how many came from segments
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "codecs/encode.h"
#include "codecs/jpeg.h"
#include "codecs/jpeg_transcode.h"
#include "data/read_file.h"

namespace fusednorm {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "%s\n", message.c_str());
  return 1;
}

bool Write(const std::string& path, const std::vector<uint8_t>& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

int Transcode(const std::string& in, const std::string& spacing,
              const std::string& out) {
  absl::StatusOr<std::vector<uint8_t>> bytes =
      ReadFileBytes(in, kMaxImageFileBytes);
  if (!bytes.ok()) return Fail(std::string(bytes.status().message()));
  const RestartSpacing s =
      spacing == "rows" ? RestartSpacing{true, 0}
                        : RestartSpacing{false, std::atoi(spacing.c_str())};
  absl::StatusOr<std::vector<uint8_t>> t = AddRestartMarkers(*bytes, in, s);
  if (!t.ok()) return Fail(std::string(t.status().message()));
  return Write(out, *t) ? 0 : Fail("cannot write " + out);
}

int Regions(const std::string& in, const std::string& boxes,
            const std::string& out) {
  absl::StatusOr<std::vector<uint8_t>> bytes =
      ReadFileBytes(in, kMaxImageFileBytes);
  if (!bytes.ok()) return Fail(std::string(bytes.status().message()));
  FILE* f = std::fopen(boxes.c_str(), "r");
  if (f == nullptr) return Fail("cannot open " + boxes);
  std::vector<uint8_t> pixels;
  DecodedRegion r;
  long segmented = 0;
  for (long long t, l, h, w;
       std::fscanf(f, "%lld %lld %lld %lld", &t, &l, &h, &w) == 4;) {
    const CropWindow box{t, l, h, w};
    const absl::Status s = DecodeJpegInto(
        *bytes, in, [&](Size2) { return JpegRequest{box}; }, &r);
    if (!s.ok()) return Fail(std::string(s.message()));
    segmented += r.from_segments;
    for (int64_t y = t; y < t + h; ++y) {
      const uint8_t* row = r.image.pixels.data() +
                           ((y - r.top) * r.image.width + l - r.left) * 3;
      pixels.insert(pixels.end(), row, row + w * 3);
    }
  }
  std::fclose(f);
  std::printf("%ld\n", segmented);
  return Write(out, pixels) ? 0 : Fail("cannot write " + out);
}

}  // namespace
}  // namespace fusednorm

int main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "";
  if (command == "transcode" && argc == 5)
    return fusednorm::Transcode(argv[2], argv[3], argv[4]);
  if (command == "regions" && argc == 5)
    return fusednorm::Regions(argv[2], argv[3], argv[4]);
  std::fprintf(stderr,
               "usage: %s transcode IN rows|N OUT | regions IN BOXES OUT\n",
               argv[0]);
  return 2;
}
