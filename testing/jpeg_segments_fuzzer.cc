// Fuzz target for restart-segment decoding (pipeline/jpeg_segments.h): a
// region of a damaged restart-marked JPEG decoded with the segments allowed
// must give what the window decode of the same bytes gives, the same pixels
// inside the box or the same error, and never crash or read outside the
// file.
//
// The input picks one of a few valid restart-marked JPEGs made here (every
// subsampling, gray, CMYK; intervals of 1, 2, 3 MCUs and one row), a box,
// and up to 16 edits of its bytes (set, insert, delete, truncate), so that
// the damage lands in the markers and segments; an input whose first byte
// has the high bit set is a whole JPEG file instead.
//
// Built with --config=fuzz this is a libFuzzer target; otherwise main()
// replays random inputs.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "codecs/jpeg.h"
#include "testing/jpeg_files.h"

namespace fusednorm {
namespace {

long g_runs = 0, g_decoded = 0, g_segmented = 0;

const std::vector<std::vector<uint8_t>>& Seeds() {
  static const auto* seeds = [] {
    auto* s = new std::vector<std::vector<uint8_t>>();
    const struct {
      int components, h, v, mcus, rows;
    } kinds[] = {{3, 2, 2, 1, 0}, {3, 2, 2, 0, 1}, {3, 1, 1, 2, 0},
                 {3, 2, 1, 3, 0}, {3, 1, 2, 1, 0}, {3, 4, 1, 2, 0},
                 {1, 1, 1, 1, 0}, {4, 2, 2, 2, 0}};
    for (const auto& k : kinds) {
      JpegSpec spec{37, 70};
      spec.components = k.components;
      spec.h_samp = k.h;
      spec.v_samp = k.v;
      spec.restart_mcus = k.mcus;
      spec.restart_rows = k.rows;
      s->push_back(EncodeTestJpeg(
          spec, NoisyGradient(37, 70, k.components, s->size() + 1)));
    }
    return s;
  }();
  return *seeds;
}

// The seed JPEG the input picks, with its edits applied; the box's four
// 16-bit numbers into `box`.
std::vector<uint8_t> Mutated(const uint8_t* data, size_t size,
                             uint16_t box[4]) {
  const std::vector<std::vector<uint8_t>>& seeds = Seeds();
  std::vector<uint8_t> jpeg = seeds[data[0] % seeds.size()];
  size_t at = 1;
  for (int i = 0; i < 4; ++i, at += 2)
    box[i] = at + 1 < size ? data[at] << 8 | data[at + 1] : 0;
  for (int edit = 0; edit < 16 && at + 3 < size && !jpeg.empty();
       ++edit, at += 4) {
    const size_t pos = (data[at + 1] << 8 | data[at + 2]) % jpeg.size();
    const uint8_t value = data[at + 3];
    switch (data[at] % 4) {
      case 0:
        jpeg[pos] = value;
        break;
      case 1:
        jpeg.insert(jpeg.begin() + pos, value);
        break;
      case 2:
        jpeg.erase(jpeg.begin() + pos);
        break;
      default:
        if (value < 8) jpeg.resize(pos);  // rarely: most damage is inside
    }
  }
  return jpeg;
}

absl::Status Decode(const std::vector<uint8_t>& jpeg, const uint16_t box[4],
                    bool segments, DecodedRegion* out) {
  return DecodeJpegInto(
      jpeg, "fuzz.jpg",
      [&](Size2 size) {
        CropWindow b;
        b.top = box[0] % size.height;
        b.left = box[1] % size.width;
        b.height = 1 + box[2] % (size.height - b.top);
        b.width = 1 + box[3] % (size.width - b.left);
        return JpegRequest{b, 1, segments};
      },
      out);
}

void RunOne(const uint8_t* data, size_t size) {
  if (size == 0) return;
  uint16_t box[4] = {0, 0, 0, 0};
  const std::vector<uint8_t> jpeg =
      data[0] & 0x80 ? std::vector<uint8_t>(data + 1, data + size)
                     : Mutated(data, size, box);
  ++g_runs;
  DecodedRegion want, got;
  const absl::Status w = Decode(jpeg, box, false, &want);
  const absl::Status g = Decode(jpeg, box, true, &got);
  if (w.ok() != g.ok()) {
    std::fprintf(stderr, "window: %s\nsegments: %s\n", w.ToString().c_str(),
                 g.ToString().c_str());
    std::abort();
  }
  if (!g.ok()) return;
  ++g_decoded;
  g_segmented += got.from_segments;
  // The box, in both regions' coordinates (the same chooser drew it).
  const Size2 s = got.size;
  const int64_t top = box[0] % s.height, left = box[1] % s.width;
  const int64_t h = 1 + box[2] % (s.height - top);
  const int64_t w3 = 3 * (1 + box[3] % (s.width - left));
  for (int64_t y = top; y < top + h; ++y) {
    const uint8_t* a =
        &want.image
             .pixels[((y - want.top) * want.image.width + left - want.left) *
                     3];
    const uint8_t* b =
        &got.image
             .pixels[((y - got.top) * got.image.width + left - got.left) * 3];
    for (int64_t x = 0; x < w3; ++x) {
      if (a[x] != b[x]) {
        std::fprintf(stderr, "pixel differs at row %lld byte %lld\n",
                     static_cast<long long>(y),
                     static_cast<long long>(left * 3 + x));
        std::abort();
      }
    }
  }
}

}  // namespace
}  // namespace fusednorm

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fusednorm::RunOne(data, size);
  return 0;
}

#ifndef FUSEDNORM_LIBFUZZER
// Replays random inputs: `jpeg_segments_fuzzer [iterations]` (default 5000).
int main(int argc, char** argv) {
  const long iterations = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 5000;
  std::mt19937 gen(11);
  for (long i = 0; i < iterations; ++i) {
    // A seed, a box, and 0..6 edits (a quarter of the inputs undamaged).
    std::vector<uint8_t> input(9 + 4 * (i % 4 ? gen() % 7 : 0));
    for (uint8_t& b : input) b = static_cast<uint8_t>(gen());
    input[0] &= 0x7F;
    fusednorm::RunOne(input.data(), input.size());
  }
  std::printf("replayed %ld inputs: %ld decoded, %ld from segments\n",
              fusednorm::g_runs, fusednorm::g_decoded, fusednorm::g_segmented);
  // A replay where no region came from segments would test nothing.
  return fusednorm::g_segmented < iterations / 8 ? 1 : 0;
}
#endif
