// BM_Peer/<system>: the fused op beside real peers doing the same work, in
// one binary, on one thread: a 224x224x3 uint8 HWC image (in cache, reused)
// to a normalized float32 CHW tensor (the layout the peers produce) with
// ImageNet's mean and std, flipped horizontally, with a 56x56 rectangle
// erased to 0. `./bazelw run -c opt //benchmarks:peers` (tagged manual: it
// links Debian's OpenCV 4.6 and libtorch 1.13, which ./bazelw installs for
// it).
//
//   fusednorm_fast / _exact  the op, best kernel on this CPU
//   unfused                  torchvision's passes vectorised with the op's
//                            Highway target (baselines.h)
//   opencv_blob              cv::dnn::blobFromImage (one scale factor for all
//                            channels, so the per-channel 1/std is a second
//                            pass), after cv::flip; erase with setTo
//   opencv_mat               the fastest cv::Mat route found: cv::flip,
//                            cv::split, then one convertTo per channel with
//                            scale 1/(255 std) and shift -mean/std straight
//                            into the output planes; erase with setTo
//   libtorch                 the ATen calls torchvision 0.14 makes: permute
//                            + contiguous, to(float).div(255), flip(-1),
//                            clone().sub_(mean).div_(std), erase by slice
//   stream                   the memory roofline (baselines.h)
//
// Before timing, every peer's output is compared with fusednorm's exact
// output; a peer off by more than 1e-5 is reported as an error, not timed.
// Counters: images/s and vs_fusednorm (images/s over fusednorm_fast's,
// measured in this run before the table).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "ATen/Parallel.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "benchmarks/baselines.h"
#include "benchmarks/measure.h"
#include "kernels/dispatch.h"
#include "opencv2/core.hpp"
#include "opencv2/dnn.hpp"
#include "ops/fused_normalization.h"
#include "torch/torch.h"

namespace fusednorm {
namespace {

constexpr int kH = 224, kW = 224, kC = 3;
constexpr int kPlane = kH * kW;
constexpr EraseRect kErase = {40, 60, 56, 56};
const float kMean[3] = {0.485f, 0.456f, 0.406f};
const float kStd[3] = {0.229f, 0.224f, 0.225f};

// One peer: writes the float32 CHW result of the work for `in` into `out`.
using Peer = std::function<void(const uint8_t* in, float* out)>;

const std::vector<uint8_t>& Input() {
  static const std::vector<uint8_t>* in = [] {
    auto* v = new std::vector<uint8_t>(kH * kW * kC);
    std::mt19937 gen(3);
    for (uint8_t& b : *v) b = static_cast<uint8_t>(1 + gen() % 255);
    return v;
  }();
  return *in;
}

Peer FusedNorm(Mode mode) {
  FusedNormalizationOptions o;
  o.dtype = DType::kFloat32;
  o.layout = Layout::kCHW;
  o.mode = mode;
  auto op =
      std::make_shared<FusedNormalization>(*FusedNormalization::Create(o));
  return [op](const uint8_t* in, float* out) {
    const ImageView view{absl::MakeConstSpan(in, kH * kW * kC), kH, kW, kC,
                         kW * kC};
    const absl::Status s = op->Apply(
        view, {true, kErase},
        {absl::MakeSpan(reinterpret_cast<uint8_t*>(out), kPlane * kC * 4)});
    if (!s.ok()) std::abort();
  };
}

Peer Unfused() {
  auto scratch = std::make_shared<std::vector<float>>(2 * kPlane * kC);
  return [scratch](const uint8_t* in, float* out) {
    UnfusedArgs u;
    u.input = in;
    u.height = kH;
    u.width = kW;
    u.row_stride = kW * kC;
    u.channels = kC;
    u.mean = kMean;
    u.std = kStd;
    u.aug = {true, kErase};
    u.output = reinterpret_cast<uint8_t*>(out);
    u.a = scratch->data();
    u.b = scratch->data() + kPlane * kC;
    UnfusedTorchvision(u);
  };
}

void EraseCv(float* out) {
  for (int c = 0; c < kC; ++c) {
    cv::Mat plane(kH, kW, CV_32F, out + c * kPlane);
    plane(cv::Rect(kErase.left, kErase.top, kErase.width, kErase.height))
        .setTo(0.0f);
  }
}

Peer OpenCvBlob() {
  return [](const uint8_t* in, float* out) {
    const cv::Mat img(kH, kW, CV_8UC3, const_cast<uint8_t*>(in));
    cv::Mat flipped, blob;
    cv::flip(img, flipped, 1);
    cv::dnn::blobFromImage(
        flipped, blob, 1.0 / 255, cv::Size(),
        cv::Scalar(kMean[0] * 255, kMean[1] * 255, kMean[2] * 255), false,
        false, CV_32F);
    for (int c = 0; c < kC; ++c) {
      const cv::Mat src(kH, kW, CV_32F, blob.ptr<float>() + c * kPlane);
      cv::Mat dst(kH, kW, CV_32F, out + c * kPlane);
      src.convertTo(dst, CV_32F, 1.0 / kStd[c]);
    }
    EraseCv(out);
  };
}

Peer OpenCvMat() {
  return [](const uint8_t* in, float* out) {
    const cv::Mat img(kH, kW, CV_8UC3, const_cast<uint8_t*>(in));
    cv::Mat flipped;
    cv::flip(img, flipped, 1);
    cv::Mat planes[kC];
    cv::split(flipped, planes);
    for (int c = 0; c < kC; ++c) {
      cv::Mat dst(kH, kW, CV_32F, out + c * kPlane);
      planes[c].convertTo(dst, CV_32F, 1.0 / (255.0 * kStd[c]),
                          -kMean[c] / kStd[c]);
    }
    EraseCv(out);
  };
}

Peer LibTorch() {
  const at::Tensor mean =
      torch::tensor({kMean[0], kMean[1], kMean[2]}).view({-1, 1, 1});
  const at::Tensor std =
      torch::tensor({kStd[0], kStd[1], kStd[2]}).view({-1, 1, 1});
  return [mean, std](const uint8_t* in, float* out) {
    at::Tensor t =
        torch::from_blob(const_cast<uint8_t*>(in), {kH, kW, kC}, torch::kUInt8);
    t = t.permute({2, 0, 1}).contiguous().to(torch::kFloat).div(255);
    t = t.flip({-1});
    t = t.clone().sub_(mean).div_(std);
    t = t.clone();  // RandomErasing(inplace=False)
    t.slice(1, kErase.top, kErase.top + kErase.height)
        .slice(2, kErase.left, kErase.left + kErase.width)
        .zero_();
    std::memcpy(out, t.data_ptr<float>(), kPlane * kC * sizeof(float));
  };
}

// The largest |difference| between `peer`'s output and fusednorm exact's.
double MaxDifference(const Peer& peer) {
  std::vector<float> want(kPlane * kC), got(kPlane * kC, NAN);
  FusedNorm(Mode::kTorchvisionExact)(Input().data(), want.data());
  peer(Input().data(), got.data());
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double d = std::fabs(double{got[i]} - want[i]);
    worst = std::isnan(d) ? INFINITY : std::max(worst, d);
  }
  return worst;
}

double ImagesPerSecondOf(const Peer& peer) {
  std::vector<float> out(kPlane * kC);
  return ImagesPerSecond(0.5, [&] {
    for (int k = 0; k < 8; ++k) peer(Input().data(), out.data());
    return 8;
  });
}

void BM_Peer(benchmark::State& state, Peer peer, double reference) {
  const double diff = MaxDifference(peer);
  if (!(diff <= 1e-5)) {
    state.SkipWithError(
        absl::StrCat("output differs from fusednorm exact by ", diff).c_str());
    return;
  }
  std::vector<float> out(kPlane * kC);
  for (auto _ : state) {
    peer(Input().data(), out.data());
    benchmark::ClobberMemory();
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["images/s"] =
      benchmark::Counter(n, benchmark::Counter::kIsRate);
  state.counters["vs_fusednorm"] =
      benchmark::Counter(n / reference, benchmark::Counter::kIsRate);
  state.counters["max_diff"] = diff;
}

void BM_Stream(benchmark::State& state, double reference) {
  std::vector<float> out(kPlane * kC);
  for (auto _ : state) {
    StreamBaseline(Input().data(), Input().size(),
                   reinterpret_cast<uint8_t*>(out.data()), out.size(),
                   DType::kFloat32, false);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["images/s"] =
      benchmark::Counter(n, benchmark::Counter::kIsRate);
  state.counters["vs_fusednorm"] =
      benchmark::Counter(n / reference, benchmark::Counter::kIsRate);
}

void RegisterAll() {
  const double reference = ImagesPerSecondOf(FusedNorm(Mode::kFast));
  const std::pair<const char*, Peer> peers[] = {
      {"fusednorm_fast", FusedNorm(Mode::kFast)},
      {"fusednorm_exact", FusedNorm(Mode::kTorchvisionExact)},
      {"unfused", Unfused()},
      {"opencv_blob", OpenCvBlob()},
      {"opencv_mat", OpenCvMat()},
      {"libtorch", LibTorch()},
  };
  for (const auto& [name, peer] : peers) {
    benchmark::RegisterBenchmark(absl::StrCat("BM_Peer/", name).c_str(),
                                 BM_Peer, peer, reference);
  }
  benchmark::RegisterBenchmark("BM_Peer/stream", BM_Stream, reference);
}

}  // namespace
}  // namespace fusednorm

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  cv::setNumThreads(1);
  at::set_num_threads(1);
  const auto active = fusednorm::ActiveKernel();
  benchmark::AddCustomContext("fusednorm_kernel",
                              active.ok() ? fusednorm::DescribeKernel(**active)
                                          : active.status().ToString());
  benchmark::AddCustomContext("opencv", CV_VERSION);
  benchmark::AddCustomContext("libtorch", TORCH_VERSION);
  fusednorm::RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
