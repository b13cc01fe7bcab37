// Host-to-device copy bandwidth from transfer slots, by pinning: pageable
// (none), mlock'ed and registered with the CUDA driver (cuda), through
// fusednorm's own dlopen'ed driver (cuda/context.h), one batch-sized slot
// of each, copied `--copies` times per round on one stream, the kinds taking
// turns over `--rounds` rounds (each round starts one kind later).
//
//   h2d_bandwidth [--bytes=N] [--copies=N] [--rounds=N] [--device=N]
//
// Per kind: the median GB/s of the rounds (their range), the share of a
// round the host spent inside the copy calls (an asynchronous copy returns
// at once, a staged one only after staging its bytes), and the ratio to
// pageable memory. Every kind's last copy is read back and compared with its
// source first. A kind the OS or the driver refuses is printed with its
// error, not timed.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cuda/context.h"
#include "pipeline/transfer_station.h"

namespace fusednorm {
namespace {

struct Options {
  // One batch of 64 float32 224x224x3 images.
  long long bytes = 64LL * 224 * 224 * 3 * 4;
  int copies = 20, rounds = 7, device = 0;
};

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const size_t eq = a.find('=');
    const std::string key = a.substr(0, eq);
    const long long value =
        eq == std::string::npos ? -1 : std::atoll(a.c_str() + eq + 1);
    if (key == "--bytes" && value >= 1) {
      o.bytes = value;
    } else if (key == "--copies" && value >= 1) {
      o.copies = static_cast<int>(value);
    } else if (key == "--rounds" && value >= 1) {
      o.rounds = static_cast<int>(value);
    } else if (key == "--device" && value >= 0) {
      o.device = static_cast<int>(value);
    } else {
      std::fprintf(stderr,
                   "bad option %s (--bytes, --copies, --rounds >= 1, "
                   "--device >= 0)\n",
                   a.c_str());
      std::exit(2);
    }
  }
  return o;
}

// One kind of host memory: a slot of a station with that pinning.
struct Kind {
  Kind(const char* n, Pinning p) : name(n), pinning(p) {}
  const char* name;
  Pinning pinning;
  std::shared_ptr<TransferStation> station;
  Slot slot;
  std::string error;          // why it is not timed
  std::vector<double> gbps;   // per round
  std::vector<double> share;  // of the round spent in the copy calls
};

void Prepare(Kind& k, const Options& o) {
  absl::StatusOr<std::shared_ptr<TransferStation>> s =
      TransferStation::Create(o.bytes, k.pinning, 0, o.device);
  absl::StatusOr<Slot> slot = s.ok() ? (*s)->Acquire() : s.status();
  if (!slot.ok()) {
    k.error = std::string(slot.status().message());
    return;
  }
  k.station = *std::move(s);
  k.slot = *std::move(slot);
  uint32_t x = 0x9E3779B9u ^ static_cast<uint32_t>(k.pinning);
  for (size_t i = 0; i < k.slot.bytes(); ++i) {  // non-zero, per kind
    x = x * 1664525u + 1013904223u;
    k.slot.data()[i] = static_cast<uint8_t>((x >> 24) | 1);
  }
}

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

absl::Status Round(Kind& k, const CudaStream& stream, const DeviceMemory& dst,
                   const Options& o) {
  const Clock::time_point start = Clock::now();
  double in_calls = 0;
  for (int i = 0; i < o.copies; ++i) {
    const Clock::time_point t = Clock::now();
    absl::Status s = stream.CopyToDevice(dst.ptr(), k.slot.data(), o.bytes);
    in_calls += Seconds(t, Clock::now());
    if (!s.ok()) return s;
  }
  if (absl::Status s = stream.Synchronize(); !s.ok()) return s;
  const double total = Seconds(start, Clock::now());
  k.gbps.push_back(static_cast<double>(o.bytes) * o.copies / total / 1e9);
  k.share.push_back(in_calls / total);
  return absl::OkStatus();
}

// The device's bytes after the last copy equal the source's.
absl::Status Check(const Kind& k, const DeviceMemory& dst, size_t bytes) {
  std::vector<uint8_t> back(bytes, 0);
  if (absl::Status s = dst.CopyToHost(back.data(), bytes); !s.ok()) return s;
  if (std::memcmp(back.data(), k.slot.data(), bytes) != 0)
    return absl::InternalError(std::string(k.name) +
                               ": the device's bytes "
                               "differ from the source's");
  return absl::OkStatus();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void Print(const std::vector<Kind>& kinds, const std::string& device,
           const Options& o) {
  std::printf("device %d (%s): %d rounds of %d copies of %lld bytes\n",
              o.device, device.c_str(), o.rounds, o.copies, o.bytes);
  std::printf("%-8s %10s %20s %14s %12s\n", "pinning", "GB/s", "(range)",
              "host in calls", "/ pageable");
  const double base = kinds[0].gbps.empty() ? 0 : Median(kinds[0].gbps);
  for (const Kind& k : kinds) {
    if (!k.error.empty()) {
      std::printf("%-8s not timed: %s\n", k.name, k.error.c_str());
      continue;
    }
    const auto [lo, hi] = std::minmax_element(k.gbps.begin(), k.gbps.end());
    const double m = Median(k.gbps);
    std::printf("%-8s %10.2f %9.2f - %8.2f %13.0f%% %11.2fx\n", k.name, m, *lo,
                *hi, 100 * Median(k.share), base > 0 ? m / base : 0.0);
  }
}

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "h2d_bandwidth: %s\n", s.ToString().c_str());
  return 1;
}

int Main(int argc, char** argv) {
  const Options o = Parse(argc, argv);
  absl::StatusOr<std::shared_ptr<const CudaContext>> ctx =
      CudaContext::Retain(o.device);
  if (!ctx.ok()) return Fail(ctx.status());
  absl::StatusOr<DeviceMemory> dst = DeviceMemory::Allocate(*ctx, o.bytes);
  if (!dst.ok()) return Fail(dst.status());
  absl::StatusOr<std::unique_ptr<CudaStream>> stream = CudaStream::Create(*ctx);
  if (!stream.ok()) return Fail(stream.status());
  std::vector<Kind> kinds;  // move-only: no initializer list
  kinds.emplace_back("none", Pinning::kNone);
  kinds.emplace_back("mlock", Pinning::kMlock);
  kinds.emplace_back("cuda", Pinning::kCuda);
  for (Kind& k : kinds) {
    Prepare(k, o);
    if (!k.error.empty()) continue;
    absl::Status s =
        (*stream)->CopyToDevice(dst->ptr(), k.slot.data(), o.bytes);
    if (s.ok()) s = (*stream)->Synchronize();
    if (s.ok()) s = Check(k, *dst, o.bytes);
    if (!s.ok()) return Fail(s);
  }
  for (int r = 0; r < o.rounds; ++r) {
    for (size_t i = 0; i < kinds.size(); ++i) {
      Kind& k = kinds[(i + r) % kinds.size()];
      if (!k.error.empty()) continue;
      if (absl::Status s = Round(k, **stream, *dst, o); !s.ok()) return Fail(s);
    }
  }
  Print(kinds, (*ctx)->device_name(), o);
  return 0;
}

}  // namespace
}  // namespace fusednorm

int main(int argc, char** argv) { return fusednorm::Main(argc, argv); }
