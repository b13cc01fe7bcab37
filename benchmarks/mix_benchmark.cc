// The mix kernels on one thread, every row of the mix registry: MixUp's
// arithmetic on a 224x224x3 sample and its partner, in each output dtype,
// as MixBatch runs it for each sample of a batch. `hot`: the two samples
// stay in the cache (they fit in L2); `batch`: a batch of 64 samples mixed
// in turn as MixBatch does, from memory, with regular stores; `streamed`:
// the same with streaming stores, as MixBatch stores a batch that large.
//
//   BM_Mix/<row>/<dtype>/<hot|batch|streamed>   samples/s
//
// `./bazelw run -c opt //benchmarks:mix`.
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "kernels/mix/mix_dispatch.h"

namespace fusednorm {
namespace {

constexpr size_t kValues = 224 * 224 * 3;

size_t Bytes(DType t) { return t == DType::kFloat32 ? 4 : 2; }

// Values in the normalized range, in the dtype's bits (16-bit patterns of
// float16 or bfloat16 near 1.0 stand for any values: the kernels' work does
// not depend on them).
std::vector<uint8_t> Samples(DType t, size_t samples) {
  std::mt19937 rng(5);
  std::vector<uint8_t> v(samples * kValues * Bytes(t));
  for (size_t i = 0; i + 4 <= v.size(); i += 4) {
    const float f = static_cast<float>(rng() % 4096) / 1024.0f - 2.0f;
    uint32_t u;
    std::memcpy(&u, &f, sizeof(u));
    if (t == DType::kFloat32) {
      std::memcpy(&v[i], &u, sizeof(u));
    } else {
      const uint16_t h = t == DType::kFloat16 ? 0x3C00 | (u & 0x3FF)
                                              : static_cast<uint16_t>(u >> 16);
      std::memcpy(&v[i], &h, sizeof(h));
      std::memcpy(&v[i + 2], &h, sizeof(h));
    }
  }
  return v;
}

void BM_Mix(benchmark::State& state, const MixKernelInfo* row, DType t,
            size_t samples, bool stream) {
  if (!MixKernels().supported(*row)) {
    state.SkipWithError("not supported on this CPU");
    return;
  }
  std::vector<uint8_t> data = Samples(t, samples + 1);
  const size_t bytes = kValues * Bytes(t);
  for (auto _ : state) {
    for (size_t i = samples; i > 0; --i) {
      row->mix(t, data.data() + (i - 1) * bytes, data.data() + i * bytes,
               kValues, 0.7f, 0.3f, stream);
    }
    benchmark::DoNotOptimize(data.data());
  }
  state.counters["samples/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * samples),
                         benchmark::Counter::kIsRate);
}

void Register() {
  const std::pair<DType, const char*> dtypes[] = {
      {DType::kFloat32, "float32"},
      {DType::kFloat16, "float16"},
      {DType::kBFloat16, "bfloat16"}};
  for (const MixKernelInfo& row : MixKernels().rows()) {
    for (const auto& [t, name] : dtypes) {
      benchmark::RegisterBenchmark(
          absl::StrCat("BM_Mix/", row.id, "/", name, "/hot").c_str(), BM_Mix,
          &row, t, size_t{1}, false);
      benchmark::RegisterBenchmark(
          absl::StrCat("BM_Mix/", row.id, "/", name, "/batch").c_str(), BM_Mix,
          &row, t, size_t{64}, false);
      benchmark::RegisterBenchmark(
          absl::StrCat("BM_Mix/", row.id, "/", name, "/streamed").c_str(),
          BM_Mix, &row, t, size_t{64}, true);
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
