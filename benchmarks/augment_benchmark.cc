// The augment kernels on one 224x224 RGB image on one thread, every row of
// the augment registry: the affine transforms the auto-augment ops make
// (NEAREST shear, rotation and translation, BILINEAR rotation and shear,
// BICUBIC rotation), Sharpness, a lookup table per channel and the
// histogram, in microseconds per image.
//
//   BM_Augment/<row>/<kernel>
//
// `./bazelw run -c opt //benchmarks:augment`.
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "kernels/augment/augment_dispatch.h"

namespace fusednorm {
namespace {

constexpr int64_t kSide = 224;
constexpr int kChannels = 3;

std::vector<uint8_t> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (uint8_t& x : v) x = static_cast<uint8_t>(rng());
  return v;
}

// Rotation by `degrees` about the image's centre, as Image.rotate makes it.
std::vector<double> Rotation(double degrees) {
  const double t = degrees * M_PI / 180.0, c = std::cos(t), s = std::sin(t);
  const double m = kSide / 2.0;
  return {c, s, m - c * m - s * m, -s, c, m + s * m - c * m};
}

struct Buffers {
  std::vector<uint8_t> image = Random(kSide * kSide * kChannels, 3);
  std::vector<uint8_t> out = std::vector<uint8_t>(image.size(), 128);
  std::vector<uint8_t> luts = Random(256 * kChannels, 5);
  std::vector<uint32_t> hist = std::vector<uint32_t>(256 * kChannels);
  AugmentInput in() const {
    return {image.data(), kSide, kSide, kChannels, kSide * kChannels};
  }
};

using Kernel = std::function<void(const AugmentKernelInfo&, Buffers&)>;

Kernel Affine(std::vector<double> a, AffineFilter filter) {
  return [a, filter](const AugmentKernelInfo& k, Buffers& b) {
    k.affine(b.in(), a.data(), filter, b.out.data(), kSide, kSide);
  };
}

std::vector<std::pair<const char*, Kernel>> Kernels() {
  return {
      {"affine_nearest_shear_0.3",
       Affine({1, 0.3, -0.3 * kSide / 2, 0, 1, 0}, AffineFilter::kNearest)},
      {"affine_nearest_rotate_30",
       Affine(Rotation(30), AffineFilter::kNearest)},
      {"affine_nearest_translate_100",
       Affine({1, 0, 100, 0, 1, 0}, AffineFilter::kNearest)},
      {"affine_bilinear_rotate_30",
       Affine(Rotation(30), AffineFilter::kBilinear)},
      {"affine_bilinear_shear_0.3",
       Affine({1, 0.3, -0.3 * kSide / 2, 0, 1, 0}, AffineFilter::kBilinear)},
      {"affine_bicubic_rotate_30",
       Affine(Rotation(30), AffineFilter::kBicubic)},
      {"sharpen_1.5",
       [](const AugmentKernelInfo& k, Buffers& b) {
         k.sharpen(b.in(), 1.5f, b.out.data());
       }},
      {"lookup",
       [](const AugmentKernelInfo& k, Buffers& b) {
         k.lookup(b.image.data(), b.out.data(), kSide * kSide, kChannels,
                  b.luts.data());
       }},
      {"histogram",
       [](const AugmentKernelInfo& k, Buffers& b) {
         k.histogram(b.image.data(), kSide * kSide, kChannels, b.hist.data());
       }},
  };
}

void BM_Augment(benchmark::State& state, const AugmentKernelInfo* row,
                Kernel kernel) {
  if (!AugmentKernels().supported(*row)) {
    state.SkipWithError("not supported on this CPU");
    return;
  }
  Buffers b;
  for (auto _ : state) {
    kernel(*row, b);
    benchmark::DoNotOptimize(b.out.data());
    benchmark::DoNotOptimize(b.hist.data());
  }
}

void Register() {
  for (const auto& [name, kernel] : Kernels()) {
    for (const AugmentKernelInfo& row : AugmentKernels().rows()) {
      benchmark::RegisterBenchmark(
          absl::StrCat("BM_Augment/", row.id, "/", name).c_str(), BM_Augment,
          &row, kernel)
          ->Unit(benchmark::kMicrosecond);
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
