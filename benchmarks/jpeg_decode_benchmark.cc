// Decoding RandomResizedCrop boxes of JPEGs on one thread, the ways the
// loader can: `./bazelw run -c opt //benchmarks:jpeg_decode [-- options]`.
//
//   whole            the original decoded whole
//   window           the original's crop window (jpeg_crop_scanline +
//                    jpeg_skip_scanlines: every MCU above and beside the
//                    crop is still entropy-decoded)
//   whole/<R>        the file transcoded with restart interval R
//                    (jpeg_transcode.h), decoded whole
//   window/<R>       its crop window, restart segments not used
//   segments/<R>     its crop from only the segments under it
//   splice/<R>       the byte work of segments/<R> alone (finding the
//                    segments and splicing them; no decoding)
//   window+scale, seg+scale/<R>
//                    the same with --decode-scale's DCT scaling (1/2, 1/4,
//                    1/8 where the box is that many times 224x224)
//
// R is `rows` (one interval per MCU row), at most N MCUs (the largest
// divisor of the MCU row not above N), or `none`: the same optimized
// baseline copy without restart markers (libjpeg-turbo's fast Huffman path
// is off in any file with restart markers: none/rows/N tell that apart from
// the cut). Each variant decodes every (image,
// box) pair once per round into one reused DecodedRegion, as a worker does,
// the variants taking turns on each pair; each variant's best round is
// printed in microseconds per image, with its ratio to `window` (>1:
// faster). The
// transcode is timed too (images/s) and its size given against the input.
//
// Options: --images=N (64) photo-like images of 300..520 x 340..600 made
// here (shapes of smooth colour over fractal texture, a little noise;
// JPEG quality 90, 4:2:0, as Pillow saves them), --content=noise for the
// loader benchmark's noisy sinusoids instead, --dir=PATH to read the *.jpg
// files of a folder instead, --boxes=K (4) per image, --rounds=R (5),
// --save=PATH to write the images made into a folder (for a look at them).
#include <dirent.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "codecs/encode.h"
#include "codecs/jpeg.h"
#include "codecs/jpeg_segments.h"
#include "codecs/jpeg_transcode.h"
#include "data/read_file.h"
#include "ops/transforms.h"
#include "rng/philox.h"
#include "testing/jpeg_files.h"

namespace fusednorm {
namespace {

struct Options {
  int images = 64, boxes = 4, rounds = 5;
  std::string content = "photo", dir, save;
};

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const size_t eq = a.find('=');
    const std::string key = a.substr(0, eq), value = a.substr(eq + 1);
    int* number = key == "--images"   ? &o.images
                  : key == "--boxes"  ? &o.boxes
                  : key == "--rounds" ? &o.rounds
                                      : nullptr;
    std::string* text = key == "--content" ? &o.content
                        : key == "--dir"   ? &o.dir
                        : key == "--save"  ? &o.save
                                           : nullptr;
    if (number != nullptr) {
      *number = std::atoi(value.c_str());
    } else if (text != nullptr && eq != std::string::npos) {
      *text = value;
    } else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

// The loader benchmark's content (benchmarks/loader_peer.py): sinusoids
// with Gaussian noise of 10.
std::vector<uint8_t> NoisySines(int h, int w, std::mt19937* rng) {
  std::uniform_real_distribution<double> u(0.005, 0.05);
  double f[6];
  for (double& x : f) x = u(*rng);
  std::normal_distribution<double> noise(0, 10);
  std::vector<uint8_t> px(static_cast<size_t>(h) * w * 3);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const double v[3] = {std::sin(x * f[0] + y * f[1]),
                           std::sin(x * f[2] - y * f[3]),
                           std::cos((x + y) * f[4] + f[5])};
      for (int c = 0; c < 3; ++c) {
        px[(static_cast<size_t>(y) * w + x) * 3 + c] = static_cast<uint8_t>(
            std::clamp(std::lround(v[c] * 90 + 128 + noise(*rng)), 0L, 255L));
      }
    }
  }
  return px;
}

std::vector<std::vector<uint8_t>> MakeImages(const Options& o) {
  std::vector<std::vector<uint8_t>> files;
  if (!o.dir.empty()) {
    DIR* d = opendir(o.dir.c_str());
    for (dirent* e; d != nullptr && (e = readdir(d)) != nullptr;) {
      const std::string name = e->d_name;
      if (name.size() > 4 && name.substr(name.size() - 4) == ".jpg")
        files.push_back(*ReadFileBytes(o.dir + "/" + name, kMaxImageFileBytes));
    }
    if (d != nullptr) closedir(d);
    return files;
  }
  std::mt19937 rng(1);
  for (int i = 0; i < o.images; ++i) {
    JpegSpec spec;
    spec.height = 300 + rng() % 220;
    spec.width = 340 + rng() % 260;
    const std::vector<uint8_t> px =
        o.content == "noise" ? NoisySines(spec.height, spec.width, &rng)
                             : PhotoLike(spec.height, spec.width, rng());
    files.push_back(EncodeTestJpeg(spec, px));
    if (!o.save.empty()) {
      const std::string path = o.save + "/" + std::to_string(i) + ".jpg";
      FILE* f = std::fopen(path.c_str(), "wb");
      if (f != nullptr) {
        std::fwrite(files.back().data(), 1, files.back().size(), f);
        std::fclose(f);
      }
    }
  }
  return files;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

struct Variant {
  std::string name;
  const std::vector<std::vector<uint8_t>>* files;
  bool crop, segments, scaled = false;
  bool splice_only = false;  // only find and splice the segments
  double best = 1e30;
  long from_segments = 0;
};

// The loader's --decode-scale choice: the largest DCT scale (8, 4, 2, else
// 1) at which the box stays at least 224x224.
int Scale(const CropWindow& box) {
  for (int k : {8, 4, 2}) {
    if (box.height >= k * 224 && box.width >= k * 224) return k;
  }
  return 1;
}

// The byte work alone: the header walk, the cut, the scan and the splice.
bool Splice(const std::vector<uint8_t>& file, const CropWindow& box,
            SegmentScratch* scratch) {
  const std::optional<RestartLayout> layout = ReadRestartLayout(file);
  if (!layout) return false;
  const std::optional<SegmentCut> cut = PlanSegmentCut(*layout, box, 8);
  return cut && SpliceSegments(file, *layout, *cut, scratch);
}

// Decodes (or only splices) image `i`'s `box` as `v` says.
void Once(Variant& v, size_t i, const CropWindow& box, DecodedRegion* region) {
  if (v.splice_only) {
    v.from_segments += Splice((*v.files)[i], box, &region->scratch.segments);
    return;
  }
  const absl::Status s = DecodeJpegInto(
      (*v.files)[i], "image",
      [&](Size2) {
        return JpegRequest{
            v.crop ? std::optional<CropWindow>(box) : std::nullopt,
            v.scaled ? Scale(box) : 1, v.segments};
      },
      region);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    std::exit(1);
  }
  v.from_segments += region->from_segments;
}

// One round: each (image, box) pair decoded by every variant in turn,
// starting from a different one each time, so that the machine's changing
// load falls on all of them alike; keeps each variant's best round.
void Round(const std::vector<std::vector<CropWindow>>& boxes,
           std::vector<Variant>* variants, DecodedRegion* region) {
  std::vector<double> seconds(variants->size(), 0.0);
  double decodes = 0;
  size_t pair = 0;
  for (Variant& v : *variants) v.from_segments = 0;
  for (size_t i = 0; i < boxes.size(); ++i) {
    for (const CropWindow& box : boxes[i]) {
      for (size_t k = 0; k < variants->size(); ++k) {
        const size_t n = (k + pair) % variants->size();
        const auto start = std::chrono::steady_clock::now();
        Once((*variants)[n], i, box, region);
        seconds[n] += Seconds(start);
      }
      ++pair;
      ++decodes;
    }
  }
  for (size_t n = 0; n < variants->size(); ++n) {
    (*variants)[n].best = std::min((*variants)[n].best, seconds[n] / decodes);
  }
}

}  // namespace
}  // namespace fusednorm

int main(int argc, char** argv) {
  using namespace fusednorm;
  const Options o = Parse(argc, argv);
  const std::vector<std::vector<uint8_t>> originals = MakeImages(o);
  size_t original_bytes = 0;
  std::vector<std::vector<CropWindow>> boxes(originals.size());
  const RandomResizedCrop crop(224);
  for (size_t i = 0; i < originals.size(); ++i) {
    original_bytes += originals[i].size();
    const absl::StatusOr<DecodedRegion> d = DecodeJpeg(originals[i], "image");
    for (int k = 0; k < o.boxes; ++k) {
      SampleStream stream(7, 0, i * o.boxes + k);
      boxes[i].push_back(crop.Window(d->image.height, d->image.width, stream));
    }
  }
  std::printf("%zu images, %.0f bytes on average, %d boxes each\n",
              originals.size(),
              static_cast<double>(original_bytes) / originals.size(), o.boxes);
  const std::pair<const char*, RestartSpacing> spacings[] = {
      {"none", {false, 0}}, {"rows", {true, 0}}, {"8", {false, 8}},
      {"4", {false, 4}},    {"2", {false, 2}},   {"1", {false, 1}}};
  std::vector<std::vector<std::vector<uint8_t>>> transcoded;
  std::printf("\n%-10s %14s %14s\n", "transcode", "images/s", "size vs input");
  for (const auto& [name, spacing] : spacings) {
    std::vector<std::vector<uint8_t>> files;
    size_t bytes = 0;
    const auto start = std::chrono::steady_clock::now();
    for (const std::vector<uint8_t>& f : originals) {
      // As pack does, a file that cannot be rewritten is kept as it is.
      absl::StatusOr<std::vector<uint8_t>> t =
          AddRestartMarkers(f, "image", spacing);
      files.push_back(t.ok() ? *std::move(t) : f);
      bytes += files.back().size();
    }
    std::printf("%-10s %14.0f %+13.2f%%\n", name,
                originals.size() / Seconds(start),
                100.0 * (static_cast<double>(bytes) / original_bytes - 1));
    transcoded.push_back(std::move(files));
  }
  std::vector<Variant> variants = {
      {"whole", &originals, false, false},
      {"window", &originals, true, false},
      {"window+scale", &originals, true, false, true}};
  for (size_t s = 0; s < transcoded.size(); ++s) {
    const std::string r = spacings[s].first;
    variants.push_back({"whole/" + r, &transcoded[s], false, false});
    variants.push_back({"window/" + r, &transcoded[s], true, false});
    variants.push_back({"segments/" + r, &transcoded[s], true, true});
    variants.push_back({"seg+scale/" + r, &transcoded[s], true, true, true});
    variants.push_back(
        {"splice/" + r, &transcoded[s], true, true, false, true});
  }
  DecodedRegion region;
  const double decodes = static_cast<double>(originals.size()) * o.boxes;
  for (int round = 0; round < o.rounds; ++round)
    Round(boxes, &variants, &region);
  const double window = variants[1].best;
  std::printf("\n%-14s %12s %12s %10s\n", "decode", "us/image", "vs window",
              "segments");
  for (const Variant& v : variants) {
    std::printf("%-14s %12.1f %11.2fx %9.0f%%\n", v.name.c_str(), v.best * 1e6,
                window / v.best, 100.0 * v.from_segments / decodes);
  }
  return 0;
}
