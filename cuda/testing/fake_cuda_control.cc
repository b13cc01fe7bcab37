// FakeCuda (fake_cuda_control.h): the double's control functions, found by
// dlsym in the library the driver loads.
#include "cuda/testing/fake_cuda_control.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "cuda/driver.h"

namespace fusednorm {
namespace {

template <typename F>
void Resolve(void* lib, const char* symbol, F* fn) {
  *fn = reinterpret_cast<F>(dlsym(lib, symbol));
  if (*fn == nullptr) {
    std::fprintf(stderr, "FakeCuda: %s is not the CUDA double (no %s)\n",
                 CudaDriverLibrary().c_str(), symbol);
    std::abort();
  }
}

}  // namespace

FakeCuda& FakeCuda::Get() {
  static FakeCuda* fake = [] {
    void* lib = dlopen(CudaDriverLibrary().c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      std::fprintf(stderr, "FakeCuda: %s\n", dlerror());
      std::abort();
    }
    auto* f = new FakeCuda();
    Resolve(lib, "fake_cuda_log_size", &f->log_size_);
    Resolve(lib, "fake_cuda_log_line", &f->log_line_);
    Resolve(lib, "fake_cuda_clear_log", &f->clear_log_);
    Resolve(lib, "fake_cuda_fail", &f->fail_);
    Resolve(lib, "fake_cuda_set_event_delay", &f->set_event_delay_);
    Resolve(lib, "fake_cuda_set_copy_ms", &f->set_copy_ms_);
    Resolve(lib, "fake_cuda_queue_read", &f->queue_read_);
    Resolve(lib, "fake_cuda_counts", &f->counts_);
    Resolve(lib, "fake_cuda_is_registered", &f->is_registered_);
    return f;
  }();
  return *fake;
}

std::vector<std::string> FakeCuda::Log() const {
  std::vector<std::string> out;
  const long n = log_size_();
  for (long i = 0; i < n; ++i) {
    const char* line = log_line_(i);
    if (line != nullptr) out.emplace_back(line);
  }
  return out;
}

std::vector<std::string> FakeCuda::Calls(const std::string& call) const {
  std::vector<std::string> out;
  for (std::string& line : Log()) {
    if (line.compare(0, call.size() + 1, call + " ") == 0)
      out.push_back(std::move(line));
  }
  return out;
}

FakeCudaCounts FakeCuda::Counts() const {
  FakeCudaCounts c{};
  counts_(&c);
  return c;
}

}  // namespace fusednorm
