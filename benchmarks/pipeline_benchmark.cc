// The pipeline end to end, per thread count (1, 2, 4, ... up to the
// hardware's):
//
//   BM_Train/fused/<decoded|jpeg>  RandomResizedCrop(224) + flip + erase +
//                                  the fused op, through Preprocessor epochs
//                                  into TransferStation slots
//   BM_Train/unfused/decoded       the same crop, then torchvision's four
//                                  passes
//   BM_FusedStep                   the fused op alone: pre-cropped 224x224x3
//                                  inputs into a slot of kSlotImages float32
//                                  outputs, through ApplyBatch with the
//                                  default store policy
//   BM_Stream, BM_StreamNT         the memory roofline for the same bytes and
//                                  threads, regular and streaming stores
//
// Counters: images/s; the fused step also has vs_stream, its ratio to the
// better of the two rooflines at the same thread count, measured right after
// the row.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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
#include "codecs/encode.h"
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
      Sample s = *DecodeSample(*synth, i);
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
      const std::vector<uint8_t> jpg =
          *EncodeJpeg((*DecodeSample(*synth, i)).image, 90);
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
      absl::StatusOr<BatchRef> batch = (*loader)->Next();
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
        UnfusedArgs u;
        u.height = u.width = kSide;
        u.row_stride = kSide * 3;
        u.channels = 3;
        u.mean = n.mean.data();
        u.std = n.std.data();
        u.dtype = DType::kFloat32;
        u.layout = Layout::kHWC;
        u.a = a.data();
        u.b = b.data();
        Image cropped;
        for (int i = t; i < kImages; i += threads) {
          SampleStream s(1, epoch, i);
          const Sample sample = *DecodeSample(*data, i);
          if (!crop.Execute(sample.image.view(), s, &cropped).ok())
            std::abort();
          u.aug = sampler.Sample(kSide, kSide, s);
          u.input = cropped.pixels.data();
          u.output = out.data() + i * kOutBytes;
          UnfusedTorchvision(u);
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
  Slot slot;
  std::vector<Augmentation> augs;
};

StepData& Step() {
  static StepData* s = [] {
    auto* d = new StepData;
    d->inputs.resize(kImages * kInBytes);
    std::mt19937 gen(5);
    for (auto& v : d->inputs) v = static_cast<uint8_t>(1 + gen() % 255);
    d->slot =
        *(*TransferStation::Create(kSlotImages * kOutBytes, Pinning::kNone))
             ->Acquire();
    std::memset(d->slot.data(), 0, kSlotImages * kOutBytes);
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

void StreamOnce(int threads, bool nontemporal) {
  StepData& d = Step();
  Parallel(threads, [&](int i) {
    StreamBaseline(d.inputs.data() + (i % kImages) * kInBytes, kInBytes,
                   d.slot.data() + i * kOutBytes, kInBytes, DType::kFloat32,
                   nontemporal);
  });
}

// The roofline at `threads` threads: the better of regular and streaming
// stores, so that no store policy can beat it. Measured when asked, right
// after the row it is for, not once before the table: a figure taken minutes
// earlier, at another clock speed or with other pages resident, is no bound.
double Roofline(int threads) {
  double best = 0;
  for (bool nt : {true, false}) {
    StreamOnce(threads, nt);  // warm up
    best = std::max(best, ImagesPerSecond(0.3, [threads, nt] {
                      StreamOnce(threads, nt);
                      return kSlotImages;
                    }));
  }
  return best;
}

void BM_Stream(benchmark::State& state, bool nontemporal) {
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) StreamOnce(threads, nontemporal);
  SetRate(state, static_cast<double>(state.iterations()) * kSlotImages);
}

// Writes through ApplyBatch with the default store policy (kAuto), which
// streams into a slot this large.
void BM_FusedStep(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  StepData& d = Step();
  FusedNormalizationOptions o;
  o.erase.enabled = true;
  const FusedNormalization op = *FusedNormalization::Create(o);
  const OutputView slot{absl::MakeSpan(d.slot.data(), kSlotImages * kOutBytes)};
  for (auto _ : state) {
    Parallel(threads, [&](int i) {
      const ImageView in{
          absl::MakeConstSpan(d.inputs.data() + (i % kImages) * kInBytes,
                              kInBytes),
          kSide, kSide, 3, kSide * 3};
      if (!op.ApplyBatch({in}, {d.augs[i]}, slot, i).ok()) std::abort();
    });
  }
  const double images = static_cast<double>(state.iterations()) * kSlotImages;
  SetRate(state, images);
  state.counters["vs_stream"] = benchmark::Counter(images / Roofline(threads),
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
  benchmark::RegisterBenchmark("BM_Stream", BM_Stream, false)->Apply(args);
  benchmark::RegisterBenchmark("BM_StreamNT", BM_Stream, true)->Apply(args);
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
