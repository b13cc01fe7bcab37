// Timing outside Google Benchmark's loop, for the rooflines the benchmarks
// divide by (the vs_stream counters): measured once, before any timed row.
#ifndef FUSEDNORM_BENCHMARKS_MEASURE_H_
#define FUSEDNORM_BENCHMARKS_MEASURE_H_

#include <chrono>

namespace fusednorm {

// Calls `step` (which processes some images and returns how many) until at
// least `seconds` have passed; returns images per second.
template <typename Step>
double ImagesPerSecond(double seconds, Step step) {
  const auto start = std::chrono::steady_clock::now();
  double images = 0, elapsed = 0;
  while (elapsed < seconds) {
    images += step();
    elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
  }
  return images / elapsed;
}

}  // namespace fusednorm

#endif  // FUSEDNORM_BENCHMARKS_MEASURE_H_
