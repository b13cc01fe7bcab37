// Resizing one 3-channel uint8 image to 224x224 on one thread: our resize
// rows (Pillow's bits) beside OpenCV 4.6's cv::resize, in one binary.
// `./bazelw run -c opt //benchmarks:resize` (tagged manual: it links Debian's
// OpenCV, which ./bazelw installs for it). Pillow itself is timed by
// benchmarks/resize_peer.py (//benchmarks:resize_peer).
//
//   BM_Resize/<row>/<case>   ops/resize.h's Resizer with the pil filter on
//                            that resize dispatch row and a workspace kept
//                            across calls, as a loader's worker keeps it
//                            (weights included)
//   BM_OpenCV/<interp>/<case> cv::resize on a cv::Mat view of the same box,
//                            cv::setNumThreads(1); INTER_LINEAR (2 taps, no
//                            antialiasing: the fastest) and INTER_AREA (its
//                            antialiasing downscale)
//
// Cases: 300x300 -> 224x224, 500x375 (landscape) -> 224x224, a
// RandomResizedCrop-like box of 301x222 at (13, 27) in a 410x470 image, and
// "rrc64": 64 such boxes of 150..409 x 150..469 (a fixed sequence) in turn,
// so that no call reuses the weights and tables of the one before, as in a
// loader's RandomResizedCrop, and "cold64": 64 boxes of 150..191 x
// 150..255 drawn the same way, over 1,024 copies of a 192x256 image (as
// `pack --encoding raw --max-side 256` stores them), one copy per call, 151
// MB in all: the input comes from memory, as a raw shard's mapped pages do.
// Counter: images/s.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "kernels/resize/resize_dispatch.h"
#include "opencv2/core.hpp"
#include "opencv2/imgproc.hpp"
#include "ops/resize.h"

namespace fusednorm {
namespace {

constexpr int kC = 3;

struct Case {
  const char* name;
  int64_t image_h, image_w;
  CropWindow box;
  bool varying = false;  // the 64 boxes of Boxes() in turn
  int copies = 1;        // images the calls take in turn
};

const Case kCases[] = {
    {"300x300", 300, 300, {0, 0, 300, 300}},
    {"500x375", 375, 500, {0, 0, 375, 500}},
    {"crop301x222", 410, 470, {13, 27, 301, 222}},
    {"rrc64", 410, 470, {0, 0, 410, 470}, true},
    {"cold64", 192, 256, {0, 0, 192, 256}, true, 1024},
};

// The boxes of a varying case: 64 sizes and positions, the same every run.
std::vector<CropWindow> Boxes(const Case& c) {
  if (!c.varying) return {c.box};
  std::mt19937 rng(5);
  std::vector<CropWindow> boxes;
  for (int i = 0; i < 64; ++i) {
    const int64_t h = 150 + rng() % (c.image_h - 150);
    const int64_t w = 150 + rng() % (c.image_w - 150);
    const int64_t top = rng() % (c.image_h - h + 1);
    boxes.push_back(
        {top, static_cast<int64_t>(rng() % (c.image_w - w + 1)), h, w});
  }
  return boxes;
}

// The case's images: one of random bytes, then copies of it.
const std::vector<Image>& Inputs(const Case& c) {
  static auto* made =
      new std::vector<std::pair<const char*, std::vector<Image>>>();
  for (const auto& [name, images] : *made) {
    if (name == c.name) return images;
  }
  std::vector<Image> images(static_cast<size_t>(c.copies));
  std::mt19937 rng(1);
  for (Image& im : images) {
    (void)AllocateImage(c.image_h, c.image_w, kC, &im);
    if (&im == &images[0]) {
      for (uint8_t& p : im.pixels) p = static_cast<uint8_t>(rng());
    } else {
      im.pixels = images[0].pixels;
    }
  }
  made->emplace_back(c.name, std::move(images));
  return made->back().second;
}

void BM_Resize(benchmark::State& state, std::string row, Case c) {
  const std::vector<Image>& inputs = Inputs(c);
  const std::vector<CropWindow> boxes = Boxes(c);
  const absl::StatusOr<Resizer> resizer =
      Resizer::Create(ResizeFilter::kPil, row);
  if (!resizer.ok()) {
    state.SkipWithError(std::string(resizer.status().message()).c_str());
    return;
  }
  ResizeWorkspace ws;  // a worker's, kept from call to call
  Image out;
  size_t i = 0;
  for (auto _ : state) {
    const CropWindow& box = boxes[i % boxes.size()];
    const Image& in = inputs[i++ % inputs.size()];
    const absl::Status s =
        resizer->Resize(in.view(), box, {224, 224}, &ws, &out);
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(out.pixels.data());
  }
  state.counters["images/s"] =
      benchmark::Counter(state.iterations(), benchmark::Counter::kIsRate);
}

void BM_OpenCV(benchmark::State& state, int interpolation, Case c) {
  cv::setNumThreads(1);
  const std::vector<Image>& inputs = Inputs(c);
  const std::vector<CropWindow> boxes = Boxes(c);
  cv::Mat out(224, 224, CV_8UC3);
  size_t i = 0;
  for (auto _ : state) {
    const CropWindow& b = boxes[i % boxes.size()];
    const cv::Mat image(
        static_cast<int>(c.image_h), static_cast<int>(c.image_w), CV_8UC3,
        const_cast<uint8_t*>(inputs[i++ % inputs.size()].pixels.data()));
    cv::resize(
        image(cv::Rect(static_cast<int>(b.left), static_cast<int>(b.top),
                       static_cast<int>(b.width), static_cast<int>(b.height))),
        out, cv::Size(224, 224), 0, 0, interpolation);
    benchmark::DoNotOptimize(out.data);
  }
  state.counters["images/s"] =
      benchmark::Counter(state.iterations(), benchmark::Counter::kIsRate);
}

void Register() {
  for (const Case& c : kCases) {
    for (const ResizeKernelInfo& row : ResizeKernelTable()) {
      benchmark::RegisterBenchmark(
          absl::StrCat("BM_Resize/", row.id, "/", c.name).c_str(), BM_Resize,
          std::string(row.id), c);
    }
    benchmark::RegisterBenchmark(
        absl::StrCat("BM_OpenCV/INTER_LINEAR/", c.name).c_str(), BM_OpenCV,
        cv::INTER_LINEAR, c);
    benchmark::RegisterBenchmark(
        absl::StrCat("BM_OpenCV/INTER_AREA/", c.name).c_str(), BM_OpenCV,
        cv::INTER_AREA, c);
  }
}

}  // namespace
}  // namespace fusednorm

int main(int argc, char** argv) {
  fusednorm::Register();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
