// The colour kernels on one 224x224 RGB image on one thread, every row of
// the colour registry: each kernel ColorJitter and the gray ops run, in
// place, as ColorJitter runs them on a worker's image. Pillow's own times
// for the same steps come from torchvision's functional calls on PIL
// images (benchmarks/color_peer.py).
//
//   BM_Color/<row>/<kernel>   images/s
//
// `./bazelw run -c opt //benchmarks:color`.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "kernels/color/color_dispatch.h"

namespace fusednorm {
namespace {

constexpr int64_t kPixels = 224 * 224;

std::vector<uint8_t> Image3() {
  std::mt19937 rng(3);
  std::vector<uint8_t> v(kPixels * 3);
  for (uint8_t& x : v) x = static_cast<uint8_t>(rng());
  return v;
}

using Kernel = void (*)(const ColorKernelInfo&, uint8_t* image, uint8_t* gray);

ColorStep Step(ColorStep::Kind kind, float alpha, uint8_t degenerate = 0,
               uint8_t shift = 0) {
  ColorStep s;
  s.kind = kind;
  s.alpha = alpha;
  s.degenerate = degenerate;
  s.shift = shift;
  return s;
}

void Run(const ColorKernelInfo& k, uint8_t* p, std::vector<ColorStep> steps,
         uint64_t* sum = nullptr) {
  k.adjust(p, p, kPixels, 3, steps.data(), static_cast<int>(steps.size()), sum);
}

using K = ColorStep::Kind;

// The steps alone (Color both above 1, where blends clamp, and below), and
// ColorJitter(0.4, 0.4, 0.4, 0.1)'s two passes (the adjustments before
// Contrast, summing; Contrast and those after it).
const std::pair<const char*, Kernel> kKernels[] = {
    {"copy",
     [](const ColorKernelInfo& k, uint8_t* p, uint8_t*) { Run(k, p, {}); }},
    {"brightness",
     [](const ColorKernelInfo& k, uint8_t* p, uint8_t*) {
       Run(k, p, {Step(K::kBlendConstant, 1.0001f)});
     }},
    {"contrast",
     [](const ColorKernelInfo& k, uint8_t* p, uint8_t*) {
       uint64_t sum = 0;
       Run(k, p, {}, &sum);
       Run(k, p,
           {Step(K::kBlendConstant, 0.9999f,
                 static_cast<uint8_t>(sum / kPixels))});
     }},
    {"saturation", [](const ColorKernelInfo& k, uint8_t* p,
                      uint8_t*) { Run(k, p, {Step(K::kBlendGray, 1.0001f)}); }},
    {"desaturation",
     [](const ColorKernelInfo& k, uint8_t* p, uint8_t*) {
       Run(k, p, {Step(K::kBlendGray, 0.9999f)});
     }},
    {"hue", [](const ColorKernelInfo& k, uint8_t* p,
               uint8_t*) { Run(k, p, {Step(K::kHue, 1, 0, 1)}); }},
    {"jitter4",
     [](const ColorKernelInfo& k, uint8_t* p, uint8_t*) {
       uint64_t sum = 0;
       Run(k, p, {Step(K::kBlendConstant, 1.1f), Step(K::kHue, 1, 0, 5)}, &sum);
       Run(k, p,
           {Step(K::kBlendConstant, 0.9f, static_cast<uint8_t>(sum / kPixels)),
            Step(K::kBlendGray, 1.2f)});
     }},
    {"grayscale", [](const ColorKernelInfo& k, uint8_t* p,
                     uint8_t* g) { k.to_gray(p, g, kPixels, 3, 3); }},
};

void BM_Color(benchmark::State& state, const ColorKernelInfo* row,
              Kernel kernel) {
  if (!ColorKernels().supported(*row)) {
    state.SkipWithError("not supported on this CPU");
    return;
  }
  std::vector<uint8_t> image = Image3(), gray(image.size());
  for (auto _ : state) {
    kernel(*row, image.data(), gray.data());
    benchmark::DoNotOptimize(image.data());
    benchmark::DoNotOptimize(gray.data());
  }
  state.counters["images/s"] =
      benchmark::Counter(state.iterations(), benchmark::Counter::kIsRate);
}

void Register() {
  for (const auto& [name, kernel] : kKernels) {
    for (const ColorKernelInfo& row : ColorKernels().rows()) {
      benchmark::RegisterBenchmark(
          absl::StrCat("BM_Color/", row.id, "/", name).c_str(), BM_Color, &row,
          kernel);
    }
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
