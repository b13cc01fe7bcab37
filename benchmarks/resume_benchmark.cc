// What resuming mid-epoch costs (`./bazelw run -c opt //benchmarks:resume`):
//
//   first batch   StartEpoch + the first Next() of a 10^7-sample index, at
//                 its start and resumed at sample 10^6 (nothing replayed),
//                 interleaved, median of 7 each
//   order         the epoch's order per position (EpochPermutation) against
//                 the loader's own time per sample at one thread, measured
//                 in the same run; and the Fisher-Yates array it replaced
//   memory        the resident memory an epoch adds, at 10^5 and 10^7
//                 samples
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <vector>

#include "benchmarks/measure.h"
#include "data/dataset.h"
#include "pipeline/epoch_permutation.h"
#include "pipeline/preprocessor.h"
#include "rng/philox.h"

namespace fusednorm {
namespace {

constexpr size_t kBatch = 64;

double Now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Resident memory of the process, bytes.
double ResidentBytes() {
  long pages = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr || std::fscanf(f, "%ld %ld", &pages, &resident) != 2) {
    if (f != nullptr) std::fclose(f);
    return 0;
  }
  std::fclose(f);
  return static_cast<double>(resident) * sysconf(_SC_PAGESIZE);
}

Preprocessor Make(size_t samples, int threads) {
  absl::StatusOr<Preprocessor> p =
      PreprocessorBuilder()
          .dataset(
              std::shared_ptr<const Dataset>(MakeSyntheticDataset(samples)))
          .train_transforms(RandomResizedCrop(224), RandomHorizontalFlip(),
                            RandomErasing(0.5))
          .val_transforms(Resize(256), CenterCrop(224))
          .batch_size(kBatch)
          .threads(threads)
          .seed(1)
          .Commit();
  if (!p.ok()) {
    std::fprintf(stderr, "%s\n", p.status().ToString().c_str());
    std::exit(1);
  }
  return *std::move(p);
}

// Seconds from StartEpoch to the first batch in hand.
double FirstBatch(const Preprocessor& p, uint64_t start) {
  const double t0 = Now();
  auto loader = p.StartEpoch(Split::kTrain, 0, start);
  if (!loader.ok() || !(*loader)->Next().ok()) std::exit(1);
  return Now() - t0;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void FirstBatchRow() {
  const Preprocessor p = Make(10000000, 2);
  FirstBatch(p, 0);  // maps the slots
  std::vector<double> plain, resumed;
  for (int i = 0; i < 7; ++i) {
    plain.push_back(FirstBatch(p, 0));
    resumed.push_back(FirstBatch(p, 1000000 / kBatch));
  }
  std::printf(
      "first batch, 10^7-sample index, 2 threads: at sample 0 %.1f ms, "
      "resumed at sample 10^6 %.1f ms (difference %+.1f ms)\n",
      1e3 * Median(plain), 1e3 * Median(resumed),
      1e3 * (Median(resumed) - Median(plain)));
}

void OrderRow() {
  const Preprocessor p = Make(100000, 1);
  uint32_t epoch = 0;
  const double per_second = ImagesPerSecond(3.0, [&] {
    auto loader = p.StartEpoch(Split::kTrain, epoch++);
    size_t images = 0;
    for (int b = 0; b < 4; ++b) images += (*(*loader)->Next())->count;
    return static_cast<double>(images);
  });
  const uint64_t n = 10000000;
  const EpochPermutation order(1, 0, n);
  uint64_t sink = 0;
  double t0 = Now();
  for (uint64_t i = 0; i < n; ++i) sink += order(i);
  const double per_position = (Now() - t0) / n;
  std::vector<uint64_t> array(n);
  t0 = Now();
  std::iota(array.begin(), array.end(), 0);
  SampleStream r(1, 0, (uint64_t{1} << 63) - 1);
  for (uint64_t i = n - 1; i > 0; --i)
    std::swap(array[i], array[r.UniformInt(0, static_cast<int64_t>(i))]);
  const double shuffle = Now() - t0;
  std::printf(
      "order: %.0f ns per position, %.3f%% of the loader's %.0f us per "
      "sample (1 thread, RandomResizedCrop(224) + flip + erase); the "
      "Fisher-Yates array it replaces took %.2f s and %.0f MB per epoch of "
      "10^7 (checksum %llu)\n",
      1e9 * per_position, 100 * per_position * per_second, 1e6 / per_second,
      shuffle, array.size() * 8e-6,
      static_cast<unsigned long long>((sink + array[7]) % 1000));
}

void MemoryRow() {
  for (const size_t n : {size_t{100000}, size_t{10000000}}) {
    const Preprocessor p = Make(n, 1);
    { auto warm = p.StartEpoch(Split::kTrain, 0); }  // maps the slots
    const double before = ResidentBytes();
    auto loader = p.StartEpoch(Split::kTrain, 1);
    if (!loader.ok() || !(*loader)->Next().ok()) std::exit(1);
    std::printf("memory: an epoch of %zu samples adds %.2f MB resident\n", n,
                (ResidentBytes() - before) * 1e-6);
  }
}

}  // namespace
}  // namespace fusednorm

int main() {
  fusednorm::FirstBatchRow();
  fusednorm::OrderRow();
  fusednorm::MemoryRow();
  return 0;
}
