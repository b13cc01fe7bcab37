// Philox4x32-10 throughput: blocks/s for the pure function, floats/s through a
// SampleStream and through the seed-compatible Generator (one block per float).
#include <cstdint>

#include "benchmark/benchmark.h"
#include "rng/philox.h"

namespace fusednorm {
namespace {

void BM_Philox4x32_10(benchmark::State& state) {
  PhiloxCounter counter = {0, 1, 2, 3};
  const PhiloxKey key = {0xdeadbeef, 0x12345678};
  uint32_t sink = 0;
  for (auto _ : state) {
    const PhiloxCounter out = Philox4x32_10(counter, key);
    sink ^= out[0] ^ out[3];
    ++counter[0];
  }
  benchmark::DoNotOptimize(sink);
  state.counters["blocks/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Philox4x32_10);

void BM_SampleStreamFloats(benchmark::State& state) {
  SampleStream stream(42, 0, 7);
  float sum = 0;
  for (auto _ : state) sum += stream.Uniform();
  benchmark::DoNotOptimize(sum);
  state.counters["floats/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SampleStreamFloats);

void BM_GeneratorFloats(benchmark::State& state) {
  Generator gen(42);
  float sum = 0;
  for (auto _ : state) sum += gen.Uniform();
  benchmark::DoNotOptimize(sum);
  state.counters["floats/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_GeneratorFloats);

}  // namespace
}  // namespace fusednorm
