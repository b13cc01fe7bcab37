// BM_FusedNorm/<kernel>/<dtype>_<layout>_<mode>/<aug>/<regime>: the fused op
// on 224x224x3 images, for every kernel variant in the dispatch table (rows
// this CPU cannot run are listed with an error), next to baselines measured
// in the same binary on the same bytes:
//
//   unfused    torchvision's four passes with float intermediates (ToTensor,
//              flip, Normalize, erase) plus the conversion into the output
//              dtype/layout, each pass vectorised with the kernel's Highway
//              target (baselines.h)
//   stream     read the u8 input, write the output's bytes with no
//              arithmetic: the memory roofline for this work
//   stream_nt  the same with non-temporal stores
//   memcpy     copy the output's bytes
//
// Regimes: hot (one input and one output, reused: in cache, through Apply)
// and batch (kBatch distinct inputs written through ApplyBatch into one
// buffer of kBatch outputs, far larger than the caches, default stores:
// kAuto streams there). Augmentations: none; flip (always on, no erase);
// flip_erase (flip p=0.5 + erase p=0.5, decisions drawn per image from its
// sample stream).
//
// Counters: images/s, bytes/s (the bytes the row must move) and vs_stream,
// the ratio of images/s to the stream (hot) or stream_nt (batch) row of the
// same dtype/layout/regime, measured by this binary before the table.
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "benchmarks/baselines.h"
#include "benchmarks/measure.h"
#include "core/format_names.h"
#include "kernels/dispatch.h"
#include "ops/fused_normalization.h"

namespace fusednorm {
namespace {

constexpr int64_t kH = 224, kW = 224, kC = 3;
constexpr size_t kInBytes = kH * kW * kC;
constexpr int kBatch = 256;

struct OutputKind {
  DType dtype;
  Layout layout;
};
constexpr OutputKind kOutputs[] = {{DType::kFloat32, Layout::kHWC},
                                   {DType::kFloat32, Layout::kCHW},
                                   {DType::kFloat16, Layout::kHWC4},
                                   {DType::kFloat16, Layout::kCHW},
                                   {DType::kBFloat16, Layout::kCHW}};

size_t OutBytes(OutputKind o) {
  return kH * kW * StoredChannels(o.layout, kC) * DTypeSize(o.dtype);
}

// Page-aligned, never-freed memory (the benchmark's lifetime).
uint8_t* AllocPages(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) std::abort();
  std::memset(p, 1, bytes);  // fault the pages in before timing
  return static_cast<uint8_t*>(p);
}

// Random non-zero inputs: kBatch distinct images (the hot regime uses the
// first).
const uint8_t* Inputs() {
  static const uint8_t* inputs = [] {
    uint8_t* p = AllocPages(kInBytes * kBatch);
    std::mt19937 gen(7);
    for (size_t i = 0; i < kInBytes * kBatch; ++i) {
      p[i] = static_cast<uint8_t>(1 + gen() % 255);
    }
    return p;
  }();
  return inputs;
}

// Output space for kBatch images of the largest kind, and a second one as
// memcpy's source.
uint8_t* Outputs(int which) {
  static uint8_t* outputs[2] = {nullptr, nullptr};
  if (outputs[which] == nullptr) {
    outputs[which] = AllocPages(OutBytes(kOutputs[0]) * kBatch);
  }
  return outputs[which];
}

std::string Name(OutputKind o, Mode m) {
  return absl::StrCat(DTypeName(o.dtype), "_", LayoutName(o.layout), "_",
                      ModeName(m));
}

// `moved`: the bytes one image's work must move at least (the input read and
// the output written; memcpy: its source read and its destination written).
void SetCounters(benchmark::State& state, size_t moved, double roofline) {
  const double n = static_cast<double>(state.iterations());
  state.counters["images/s"] =
      benchmark::Counter(n, benchmark::Counter::kIsRate);
  state.counters["bytes/s"] = benchmark::Counter(
      n * moved, benchmark::Counter::kIsRate, benchmark::Counter::kIs1024);
  if (roofline > 0) {
    // Resolved when the counters are reported: images/s / roofline images/s.
    state.counters["vs_stream"] =
        benchmark::Counter(n / roofline, benchmark::Counter::kIsRate);
  }
}

// ---- baselines ----

// Streams kind `o`'s bytes for image i (hot: always 0).
void StreamImage(OutputKind o, int i, bool nontemporal) {
  uint8_t* out = Outputs(0) + OutBytes(o) * i;
  StreamBaseline(Inputs() + kInBytes * i, kInBytes, out,
                 OutBytes(o) / DTypeSize(o.dtype), o.dtype, nontemporal);
}

// Measures images/s of the stream baseline directly (for the vs_stream
// ratios): the best of three rounds, so that a slow moment of a shared
// machine does not lower the bound.
double MeasureStream(OutputKind o, bool batch, bool nontemporal) {
  double best = 0;
  for (int round = 0; round < 3; ++round) {
    int i = 0;
    best = std::max(best, ImagesPerSecond(0.2, [&] {
                      for (int k = 0; k < 16; ++k) {
                        StreamImage(o, batch ? i : 0, nontemporal);
                        i = (i + 1) % kBatch;
                      }
                      return 16;
                    }));
  }
  return best;
}

// The roofline images/s for (kind, regime), measured once.
double Roofline(OutputKind o, bool batch) {
  static std::map<std::pair<int, bool>, double>* cache =
      new std::map<std::pair<int, bool>, double>;
  const int key = static_cast<int>(o.dtype) * 8 + static_cast<int>(o.layout);
  auto it = cache->find({key, batch});
  if (it != cache->end()) return it->second;
  StreamImage(o, 0, batch);  // warm up
  const double v = MeasureStream(o, batch, /*nontemporal=*/batch);
  (*cache)[{key, batch}] = v;
  return v;
}

void BM_Stream(benchmark::State& state, OutputKind o, bool batch, bool nt) {
  int i = 0;
  for (auto _ : state) {
    StreamImage(o, batch ? i : 0, nt);
    i = (i + 1) % kBatch;
  }
  SetCounters(state, kInBytes + OutBytes(o), Roofline(o, batch));
}

void BM_Memcpy(benchmark::State& state, OutputKind o, bool batch) {
  const size_t bytes = OutBytes(o);
  int i = 0;
  for (auto _ : state) {
    const int k = batch ? i : 0;
    std::memcpy(Outputs(0) + bytes * k, Outputs(1) + bytes * k, bytes);
    benchmark::ClobberMemory();
    i = (i + 1) % kBatch;
  }
  SetCounters(state, 2 * bytes, Roofline(o, batch));
}

// The augmentations a row runs: none, flip always on (no erase), or flip
// p=0.5 + erase p=0.5 with each image's decisions drawn from its stream.
enum class Aug { kNone, kFlip, kFlipErase };
const char* AugName(Aug a) {
  return a == Aug::kNone ? "none" : a == Aug::kFlip ? "flip" : "flip_erase";
}

std::vector<Augmentation> Augmentations(const FusedNormalization& op,
                                        Aug augment) {
  std::vector<Augmentation> augs(kBatch);
  if (augment == Aug::kNone) return augs;
  for (int i = 0; i < kBatch; ++i) {
    SampleStream s(2024, 0, i);
    augs[i] = op.Sample(kH, kW, s);
  }
  return augs;
}

// Stores stay at the default, kAuto: the batch regime writes through
// ApplyBatch into one buffer of kBatch images, where kAuto streams.
FusedNormalizationOptions Options(const std::string& kernel, OutputKind o,
                                  Mode m, Aug augment) {
  FusedNormalizationOptions opt;
  opt.preset = Preset::kImagenet;
  opt.dtype = o.dtype;
  opt.layout = o.layout;
  opt.mode = m;
  opt.kernel = kernel;
  opt.flip_p = augment == Aug::kNone ? 0.0 : augment == Aug::kFlip ? 1.0 : 0.5;
  opt.erase.enabled = augment == Aug::kFlipErase;
  return opt;
}

void BM_Unfused(benchmark::State& state, OutputKind o, Aug augment,
                bool batch) {
  const FusedNormalization op = *FusedNormalization::Create(
      Options("", o, Mode::kTorchvisionExact, augment));
  const std::vector<Augmentation> augs = Augmentations(op, augment);
  const Normalization n = PresetNormalization(Preset::kImagenet);
  std::vector<float> a(kC * kH * kW), b(kC * kH * kW);
  UnfusedArgs u;
  u.height = kH;
  u.width = kW;
  u.row_stride = kW * kC;
  u.channels = kC;
  u.mean = n.mean.data();
  u.std = n.std.data();
  u.dtype = o.dtype;
  u.layout = o.layout;
  u.a = a.data();
  u.b = b.data();
  int i = 0;
  for (auto _ : state) {
    const int k = batch ? i : 0;
    u.input = Inputs() + kInBytes * k;
    u.aug = augs[i];
    u.output = Outputs(0) + OutBytes(o) * k;
    UnfusedTorchvision(u);
    i = (i + 1) % kBatch;
  }
  SetCounters(state, kInBytes + OutBytes(o), Roofline(o, batch));
}

void BM_FusedNorm(benchmark::State& state, const KernelInfo* kernel,
                  OutputKind o, Mode m, Aug augment, bool batch) {
  if (!kernel->supported()) {
    state.SkipWithError(
        absl::StrCat("not supported by this CPU (needs ", kernel->needs, ")")
            .c_str());
    return;
  }
  absl::StatusOr<FusedNormalization> op =
      FusedNormalization::Create(Options(kernel->id, o, m, augment));
  if (!op.ok()) {
    state.SkipWithError(op.status().ToString().c_str());
    return;
  }
  const std::vector<Augmentation> augs = Augmentations(*op, augment);
  const size_t out_bytes = OutBytes(o);
  // Hot: one image's buffer (Apply); batch: kBatch images' (ApplyBatch).
  const OutputView out{
      absl::MakeSpan(Outputs(0), out_bytes * (batch ? kBatch : 1))};
  int i = 0;
  for (auto _ : state) {
    const int k = batch ? i : 0;
    const ImageView in{absl::MakeConstSpan(Inputs() + kInBytes * k, kInBytes),
                       kH, kW, kC, kW * kC};
    const absl::Status s = batch ? op->ApplyBatch({in}, {augs[i]}, out, k)
                                 : op->Apply(in, augs[i], out);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
    i = (i + 1) % kBatch;
  }
  SetCounters(state, kInBytes + out_bytes, Roofline(o, batch));
}

void RegisterAll() {
  const char* regimes[] = {"hot", "batch"};
  for (int r = 0; r < 2; ++r) {
    const bool batch = r == 1;
    for (const OutputKind& o : kOutputs) {
      const std::string shape =
          absl::StrCat(DTypeName(o.dtype), "_", LayoutName(o.layout));
      benchmark::RegisterBenchmark(
          absl::StrCat("BM_Stream/", shape, "/", regimes[r]).c_str(), BM_Stream,
          o, batch, false);
      benchmark::RegisterBenchmark(
          absl::StrCat("BM_StreamNT/", shape, "/", regimes[r]).c_str(),
          BM_Stream, o, batch, true);
      benchmark::RegisterBenchmark(
          absl::StrCat("BM_Memcpy/", shape, "/", regimes[r]).c_str(), BM_Memcpy,
          o, batch);
      for (Aug augment : {Aug::kNone, Aug::kFlip, Aug::kFlipErase}) {
        const char* aug = AugName(augment);
        benchmark::RegisterBenchmark(
            absl::StrCat("BM_Unfused/", shape, "_exact/", aug, "/", regimes[r])
                .c_str(),
            BM_Unfused, o, augment, batch);
        for (const KernelInfo& k : KernelTable()) {
          for (Mode m : {Mode::kFast, Mode::kTorchvisionExact}) {
            benchmark::RegisterBenchmark(
                absl::StrCat("BM_FusedNorm/", k.id, "/", Name(o, m), "/", aug,
                             "/", regimes[r])
                    .c_str(),
                BM_FusedNorm, &k, o, m, augment, batch);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace fusednorm

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  const auto active = fusednorm::ActiveKernel();
  benchmark::AddCustomContext("default_kernel",
                              active.ok() ? fusednorm::DescribeKernel(**active)
                                          : active.status().ToString());
  // Measure the rooflines before any timed benchmark, so no row's time includes
  // them.
  for (const fusednorm::OutputKind& o : fusednorm::kOutputs) {
    fusednorm::Roofline(o, false);
    fusednorm::Roofline(o, true);
  }
  fusednorm::RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
