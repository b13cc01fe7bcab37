// FakeCuda: a test's handle on the CUDA driver double (fake_cuda.h), the
// library FUSEDNORM_CUDA_DRIVER names (driver_test_main.cc sets it from the
// test's arguments).
#ifndef FUSEDNORM_CUDA_TESTING_FAKE_CUDA_CONTROL_H_
#define FUSEDNORM_CUDA_TESTING_FAKE_CUDA_CONTROL_H_

#include <cstddef>
#include <string>
#include <vector>

#include "cuda/testing/fake_cuda.h"

namespace fusednorm {

class FakeCuda {
 public:
  // The double the driver loads (CudaDriverLibrary()); aborts the test
  // binary with a message when it is not the double.
  static FakeCuda& Get();

  std::vector<std::string> Log() const;
  // The log's lines that start with `call`.
  std::vector<std::string> Calls(const std::string& call) const;
  void ClearLog() const { clear_log_(); }
  // The `nth` next call of `call` returns `code`.
  void Fail(const std::string& call, int nth, int code) const {
    fail_(call.c_str(), nth, code);
  }
  void SetEventDelay(int queries) const { set_event_delay_(queries); }
  void SetCopyMilliseconds(int ms) const { set_copy_ms_(ms); }
  // Queues a read of device memory on `stream` (fake_cuda.h).
  bool QueueRead(CuStream stream, CuDevicePtr src, size_t bytes,
                 void* out) const {
    return queue_read_(stream, src, bytes, out) == 0;
  }
  FakeCudaCounts Counts() const;
  bool IsRegistered(const void* p, size_t bytes) const {
    return is_registered_(p, bytes) != 0;
  }

 private:
  FakeCuda() = default;
  long (*log_size_)() = nullptr;
  const char* (*log_line_)(long) = nullptr;
  void (*clear_log_)() = nullptr;
  void (*fail_)(const char*, int, int) = nullptr;
  void (*set_event_delay_)(int) = nullptr;
  void (*set_copy_ms_)(int) = nullptr;
  int (*queue_read_)(CuStream, unsigned long long, size_t, void*) = nullptr;
  void (*counts_)(FakeCudaCounts*) = nullptr;
  int (*is_registered_)(const void*, size_t) = nullptr;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_CUDA_TESTING_FAKE_CUDA_CONTROL_H_
