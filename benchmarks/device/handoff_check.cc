// The GPU hand-off's promises checked on a real device, through the driver
// fusednorm loads (run_on_gpu.sh runs it there; prepare.sh smoke-runs it
// through the driver double):
//
//   1. bytes: two epochs copied by one DeviceCopier (restarted for the
//      second) from registered slots are on the device byte for byte as a
//      run without copies makes them (every batch read back);
//   2. waits sleep: the CPU time of a thread waiting for long copies
//      (CudaEvent::Synchronize after `--copies` copies of `--bytes`);
//   3. fork: a child made by fork() gets an error naming fork from the
//      driver, and a pinned = cuda transfer slot is refused to it.
//
//   handoff_check [--images=N] [--size=N] [--bytes=N] [--copies=N]
//
// One line per check ("ok" or "FAILED" and why); exit 1 if any failed.
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "cuda/context.h"
#include "pipeline/device_copier.h"
#include "pipeline/preprocessor.h"
#include "pipeline/transfer_station.h"

namespace fusednorm {
namespace {

struct Options {
  long images = 640, size = 224;
  long long bytes = 256LL << 20;
  int copies = 8;
};

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&](const char* flag) -> const char* {
      const size_t n = std::strlen(flag);
      return a.compare(0, n, flag) == 0 ? a.c_str() + n : nullptr;
    };
    if (const char* v = value("--images="))
      o.images = std::atol(v);
    else if (const char* v = value("--size="))
      o.size = std::atol(v);
    else if (const char* v = value("--bytes="))
      o.bytes = std::atoll(v);
    else if (const char* v = value("--copies="))
      o.copies = std::atoi(v);
    else {
      std::fprintf(stderr, "handoff_check: unknown argument %s\n", argv[i]);
      std::exit(2);
    }
  }
  return o;
}

bool Report(const char* check, const std::string& failure,
            const std::string& figures) {
  std::printf("%-6s %s: %s\n", failure.empty() ? "ok" : "FAILED", check,
              failure.empty() ? figures.c_str() : failure.c_str());
  return failure.empty();
}

absl::StatusOr<Preprocessor> Make(const Options& o) {
  PreprocessorBuilder b;
  b.dataset(MakeSyntheticDataset(static_cast<size_t>(o.images)))
      .normalization(Preset::kImagenet)
      .train_transforms(RandomResizedCrop(static_cast<int>(o.size)),
                        RandomHorizontalFlip(), RandomErasing(0.5))
      .val_transforms(CenterCrop(static_cast<int>(o.size)))
      .batch_size(64)
      .threads(static_cast<int>(std::thread::hardware_concurrency()))
      .seed(11)
      .pinning(Pinning::kCuda);
  return b.Commit();
}

// Check 1: what the first failure was, or "" ("batches" counts them).
std::string CheckBytes(const Preprocessor& p, size_t* batches) {
  std::unique_ptr<DeviceCopier> copier;
  for (uint32_t epoch = 0; epoch < 2; ++epoch) {
    std::map<uint64_t, std::vector<uint8_t>> ref;
    auto plain = p.StartEpoch(Split::kTrain, epoch);
    if (!plain.ok()) return plain.status().ToString();
    for (absl::StatusOr<BatchRef> b; (b = (*plain)->Next()).ok() && *b;) {
      ref[(*b)->global_index].assign(
          (*b)->data, (*b)->data + (*b)->count * (*b)->sample_bytes);
    }
    auto loader = p.StartEpoch(Split::kTrain, epoch);
    if (!loader.ok()) return loader.status().ToString();
    if (copier == nullptr) {
      auto c = DeviceCopier::Start(*std::move(loader), {0, 2});
      if (!c.ok()) return c.status().ToString();
      copier = *std::move(c);
    } else if (absl::Status s = copier->Restart(*std::move(loader)); !s.ok()) {
      return s.ToString();
    }
    for (size_t n = 0;; ++n, ++*batches) {
      absl::StatusOr<DeviceBatch> d = copier->Next();
      if (!d.ok()) return d.status().ToString();
      if (d->batch == nullptr) {
        if (n != ref.size()) return "an epoch ended early";
        break;
      }
      std::vector<uint8_t> back(d->batch->count * d->batch->sample_bytes);
      if (absl::Status s =
              d->buffer.memory()->CopyToHost(back.data(), back.size());
          !s.ok())
        return s.ToString();
      if (back != ref.at(d->batch->global_index))
        return "epoch " + std::to_string(epoch) + " batch " +
               std::to_string(d->batch->global_index) +
               " differs on the device";
    }
  }
  return "";
}

double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// Check 2: "" or the failure; `figures` says what the wait cost.
std::string CheckWaits(const Options& o, std::string* figures) {
  auto c = CudaContext::Retain(0);
  if (!c.ok()) return c.status().ToString();
  const size_t bytes = static_cast<size_t>(o.bytes);
  void* host = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (host == MAP_FAILED) return "cannot map the host buffer";
  std::string failure;
  if (absl::Status s = (*c)->RegisterHost(host, bytes); !s.ok()) {
    munmap(host, bytes);
    return s.ToString();
  }
  {
    auto device = DeviceMemory::Allocate(*c, bytes);
    auto stream = CudaStream::Create(*c);
    auto event = CudaEvent::Create(*c);
    if (!device.ok() || !stream.ok() || !event.ok()) {
      failure = "cannot allocate the device buffer, stream or event";
    } else {
      absl::Status queued;
      for (int i = 0; i < o.copies && queued.ok(); ++i)
        queued = (*stream)->CopyToDevice(device->ptr(), host, bytes);
      if (queued.ok()) queued = (*event)->Record(**stream);
      if (!queued.ok()) failure = queued.ToString();
      const auto start = std::chrono::steady_clock::now();
      const double cpu = ThreadCpuSeconds();
      if (absl::Status s = (*event)->Synchronize(); !s.ok())
        failure = s.ToString();
      const double used = ThreadCpuSeconds() - cpu;
      const double waited = std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - start)
                                .count();
      char line[160];
      std::snprintf(line, sizeof(line),
                    "waited %.1f ms for %d copies of %lld MiB, using %.1f ms "
                    "of CPU (%.0f%%)",
                    waited * 1e3, o.copies, o.bytes >> 20, used * 1e3,
                    waited > 0 ? 100 * used / waited : 0.0);
      *figures = line;
      if (failure.empty() && waited > 0.005 && used > 0.25 * waited)
        failure = std::string(line) + ": the waiting thread spins";
    }
  }
  (*c)->UnregisterHost(host).IgnoreError();
  munmap(host, bytes);
  return failure;
}

// Check 3: "" or the failure.
std::string CheckFork() {
  auto station = TransferStation::Create(4096, Pinning::kCuda, 1);
  if (!station.ok()) return station.status().ToString();
  std::fflush(stdout);
  const pid_t child = fork();
  if (child < 0) return "fork() failed";
  if (child == 0) {
    const absl::Status d = CudaDriver::Get().status();
    const absl::Status s = (*station)->Acquire().status();
    const bool named = d.message().find("fork()") != std::string::npos &&
                       s.message().find("fork()") != std::string::npos;
    _exit(named ? 0 : 1);
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
    return "the child did not exit";
  if (WEXITSTATUS(status) != 0)
    return "the child's driver or slot error does not name fork()";
  return "";
}

int Main(int argc, char** argv) {
  const Options o = Parse(argc, argv);
  auto driver = CudaDriver::Get();
  if (!driver.ok()) {
    std::printf("FAILED driver: %s\n", driver.status().ToString().c_str());
    return 1;
  }
  auto p = Make(o);
  if (!p.ok()) {
    std::printf("FAILED set-up: %s\n", p.status().ToString().c_str());
    return 1;
  }
  size_t batches = 0;
  bool ok = true;
  const std::string bytes = CheckBytes(*p, &batches);
  ok &= Report(
      "bytes", bytes,
      std::to_string(batches) + " batches of two epochs equal on the device");
  std::string figures;
  const std::string waits = CheckWaits(o, &figures);
  ok &= Report("waits", waits, figures);
  ok &= Report("fork", CheckFork(), "the child's errors name fork()");
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace fusednorm

int main(int argc, char** argv) { return fusednorm::Main(argc, argv); }
