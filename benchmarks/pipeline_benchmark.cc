// The pipeline end to end, per thread count (1, 2, 4, ... up to the
// hardware's):
//
//   BM_Train/fused/<decoded|jpeg>  RandomResizedCrop(224) + flip + erase +
//                                  the fused op, through Preprocessor epochs
//                                  into TransferStation slots
//   BM_Train/unfused/decoded       the same crop, then torchvision's four
//                                  passes
//   BM_FusedStep                   the fused op alone: pre-cropped 224x224x3
//                                  inputs into a batch of kSlotImages float32
//                                  outputs (non-temporal)
//   BM_StreamNT                    the memory roofline for the same bytes and
//                                  threads
//
// Counters: images/s; the fused step also has vs_stream, its ratio to
// BM_StreamNT at the same thread count, measured by this binary before the
// table.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "benchmarks/baselines.h"
#include "benchmarks/measure.h"
#include "pipeline/codecs.h"
#include "pipeline/preprocessor.h"
#include "pipeline/transfer_station.h"

namespace fusednorm {
namespace {

constexpr int kImages = 64;       // per epoch
constexpr int kSlotImages = 256;  // fused-step batch: 154 MB of float32 outputs
constexpr int64_t kSide = 224;
constexpr size_t kInBytes = kSide * kSide * 3;
constexpr size_t kOutBytes = kInBytes * 4;

std::shared_ptr<const Dataset> Decoded() {
  static std::shared_ptr<const Dataset>* d = [] {
    auto synth = MakeSyntheticDataset(kImages, 11);
    std::vector<Image> images;
    std::vector<int64_t> labels;
    for (int i = 0; i < kImages; ++i) {
      Sample s = *synth->Get(i);
      images.push_back(std::move(s.image));
      labels.push_back(s.label);
    }
    return new std::shared_ptr<const Dataset>(
        *MakeInMemoryDataset(images, labels));
  }();
  return *d;
}

// A folder of JPEGs (quality 90) made from the synthetic images, in /tmp.
std::shared_ptr<const Dataset> Jpegs() {
  static std::shared_ptr<const Dataset>* d = [] {
    const std::string dir =
        absl::StrCat("/tmp/fusednorm_bench_jpegs_", getpid());
    mkdir(dir.c_str(), 0755);
    mkdir((dir + "/x").c_str(), 0755);
    auto synth = MakeSyntheticDataset(kImages, 11);
    for (int i = 0; i < kImages; ++i) {
      const std::vector<uint8_t> jpg = *EncodeJpeg((*synth->Get(i)).image, 90);
      std::ofstream(absl::StrCat(dir, "/x/", i, ".jpg"), std::ios::binary)
          .write(reinterpret_cast<const char*>(jpg.data()), jpg.size());
    }
    return new std::shared_ptr<const Dataset>(*OpenImageFolder(dir));
  }();
  return *d;
}

void SetRate(benchmark::State& state, double images) {
  state.counters["images/s"] =
      benchmark::Counter(images, benchmark::Counter::kIsRate);
}

void BM_TrainFused(benchmark::State& state, bool jpeg) {
  const int threads = static_cast<int>(state.range(0));
  PreprocessorBuilder b;
  b.dataset(jpeg ? Jpegs() : Decoded())
      .normalization(Preset::kImagenet)
      .train_transforms(RandomResizedCrop(kSide), RandomHorizontalFlip(),
                        RandomErasing(0.5))
      .val_transforms(CenterCrop(kSide))
      .batch_size(16)
      .threads(threads)
      .slots(4);
  absl::StatusOr<Preprocessor> p = b.Commit();
  if (!p.ok()) {
    state.SkipWithError(p.status().ToString().c_str());
    return;
  }
  uint32_t epoch = 0;
  double images = 0;
  for (auto _ : state) {
    auto loader = p->StartEpoch(Split::kTrain, epoch++);
    for (;;) {
      absl::StatusOr<const Batch*> batch = (*loader)->Next();
      if (!batch.ok() || *batch == nullptr) break;
      images += (*batch)->count;
    }
  }
  SetRate(state, images);
}

// The same crop, then the unfused normalization, on `threads` plain threads.
void BM_TrainUnfused(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const auto data = Decoded();
  const RandomResizedCrop crop(kSide);
  FusedNormalizationOptions o;
  o.erase.enabled = true;
  const FusedNormalization sampler = *FusedNormalization::Create(o);
  const Normalization n = PresetNormalization(Preset::kImagenet);
  std::vector<uint8_t> out(static_cast<size_t>(kImages) * kOutBytes);
  uint32_t epoch = 0;
  for (auto _ : state) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        std::vector<float> a(kInBytes), b(kInBytes);
        Image cropped;
        for (int i = t; i < kImages; i += threads) {
          SampleStream s(1, epoch, i);
          const Sample sample = *data->Get(i);
          if (!crop.Execute(sample.image.view(), s, &cropped).ok())
            std::abort();
          const Augmentation aug = sampler.Sample(kSide, kSide, s);
          UnfusedTorchvision(cropped.pixels.data(), kSide, kSide, 3,
                             n.mean.data(), n.std.data(), aug, DType::kFloat32,
                             Layout::kHWC, out.data() + i * kOutBytes, a, b);
        }
      });
    }
    for (auto& th : pool) th.join();
    ++epoch;
  }
  SetRate(state, static_cast<double>(state.iterations()) * kImages);
}

// Pre-cropped inputs and a slot for kSlotImages outputs, shared by the two rows
// below.
struct StepData {
  std::vector<uint8_t> inputs;
  std::unique_ptr<TransferStation> station;
  std::vector<Augmentation> augs;
};

StepData& Step() {
  static StepData* s = [] {
    auto* d = new StepData;
    d->inputs.resize(kImages * kInBytes);
    std::mt19937 gen(5);
    for (auto& v : d->inputs) v = static_cast<uint8_t>(1 + gen() % 255);
    d->station = *TransferStation::Create(1, kSlotImages * kOutBytes, false);
    std::memset(d->station->slot(0), 0, kSlotImages * kOutBytes);
    FusedNormalizationOptions o;
    o.erase.enabled = true;
    const FusedNormalization op = *FusedNormalization::Create(o);
    for (int i = 0; i < kSlotImages; ++i) {
      SampleStream st(3, 0, i);
      d->augs.push_back(op.Sample(kSide, kSide, st));
    }
    return d;
  }();
  return *s;
}

// Runs body(image) for images 0..kSlotImages-1 spread over `threads` threads.
template <typename Body>
void Parallel(int threads, const Body& body) {
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (int i = t; i < kSlotImages; i += threads) body(i);
    });
  }
  for (auto& th : pool) th.join();
}

void StreamOnce(int threads) {
  StepData& d = Step();
  Parallel(threads, [&](int i) {
    StreamBaseline(d.inputs.data() + (i % kImages) * kInBytes, kInBytes,
                   d.station->slot(0) + i * kOutBytes, kInBytes,
                   DType::kFloat32, true);
  });
}

double StreamRate(int threads) {
  static std::map<int, double>* rates = new std::map<int, double>;
  auto it = rates->find(threads);
  if (it != rates->end()) return it->second;
  StreamOnce(threads);  // warm up
  return (*rates)[threads] = ImagesPerSecond(0.5, [threads] {
           StreamOnce(threads);
           return kSlotImages;
         });
}

void BM_StreamNT(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) StreamOnce(threads);
  SetRate(state, static_cast<double>(state.iterations()) * kSlotImages);
}

void BM_FusedStep(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  StepData& d = Step();
  FusedNormalizationOptions o;
  o.erase.enabled = true;
  o.stores = FusedNormalizationOptions::Stores::kNontemporal;
  const FusedNormalization op = *FusedNormalization::Create(o);
  for (auto _ : state) {
    Parallel(threads, [&](int i) {
      const ImageView in{
          absl::MakeConstSpan(d.inputs.data() + (i % kImages) * kInBytes,
                              kInBytes),
          kSide, kSide, 3, kSide * 3};
      if (!op.Apply(in, d.augs[i],
                    OutputView{absl::MakeSpan(
                        d.station->slot(0) + i * kOutBytes, kOutBytes)})
               .ok()) {
        std::abort();
      }
    });
  }
  const double images = static_cast<double>(state.iterations()) * kSlotImages;
  SetRate(state, images);
  state.counters["vs_stream"] = benchmark::Counter(images / StreamRate(threads),
                                                   benchmark::Counter::kIsRate);
}

std::vector<int64_t> ThreadCounts() {
  const int hw = std::max(1u, std::thread::hardware_concurrency());
  std::vector<int64_t> counts;
  for (int t = 1; t < hw; t *= 2) counts.push_back(t);
  counts.push_back(hw);
  return counts;
}

void RegisterAll() {
  for (int64_t t : ThreadCounts()) StreamRate(static_cast<int>(t));
  const auto args = [](benchmark::internal::Benchmark* b) {
    for (int64_t t : ThreadCounts()) b->Arg(t);
    b->ArgName("threads")->UseRealTime()->MeasureProcessCPUTime();
  };
  benchmark::RegisterBenchmark("BM_Train/fused/decoded", BM_TrainFused, false)
      ->Apply(args);
  benchmark::RegisterBenchmark("BM_Train/unfused/decoded", BM_TrainUnfused)
      ->Apply(args);
  benchmark::RegisterBenchmark("BM_Train/fused/jpeg", BM_TrainFused, true)
      ->Apply(args);
  benchmark::RegisterBenchmark("BM_FusedStep", BM_FusedStep)->Apply(args);
  benchmark::RegisterBenchmark("BM_StreamNT", BM_StreamNT)->Apply(args);
}

}  // namespace
}  // namespace fusednorm

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  fusednorm::RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
