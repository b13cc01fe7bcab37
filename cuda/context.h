// CudaContext and what is made in it: a device's primary context (the one
// the CUDA runtime, hence torch, uses too), host memory registered with it,
// device memory, streams and events, each an owner that frees what it made.
//
// No thread needs a context of its own: every call pushes the context on
// the calling thread and pops it again (CudaContext::Call), so a worker, a
// copy thread and a consumer whose own framework has another context
// current can all use one. Errors are statuses naming the call
// (cuda/driver.h).
#ifndef FUSEDNORM_CUDA_CONTEXT_H_
#define FUSEDNORM_CUDA_CONTEXT_H_

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cuda/driver.h"

namespace fusednorm {

class CudaContext {
 public:
  // Retains the primary context of device `ordinal` (>= 0) of the process's
  // driver (CudaDriver::Get()), creating it if no one has.
  static absl::StatusOr<std::shared_ptr<const CudaContext>> Retain(int ordinal);
  // The same with an explicit driver (which must outlive the context).
  static absl::StatusOr<std::shared_ptr<const CudaContext>> Retain(
      const CudaDriver& driver, int ordinal);
  ~CudaContext();  // releases the primary context
  CudaContext(const CudaContext&) = delete;
  CudaContext& operator=(const CudaContext&) = delete;

  // Runs `fn(api)`, which returns a CuResult, with this context current on
  // the calling thread; the error names `call`.
  template <typename Fn>
  absl::Status Call(const char* call, Fn fn) const {
    if (absl::Status s = Push(); !s.ok()) return s;
    const CuResult r = fn(driver_->api());
    Pop();
    return driver_->Check(r, call);
  }

  // Page-locks `bytes` bytes at `p` for every context of the process
  // (CU_MEMHOSTREGISTER_PORTABLE), so copies from them are direct DMA.
  absl::Status RegisterHost(void* p, size_t bytes) const;
  // Undoes RegisterHost(p, ...).
  absl::Status UnregisterHost(void* p) const;

  int ordinal() const { return ordinal_; }
  // The device's name ("NVIDIA H200"), or "?".
  std::string device_name() const;
  const CudaDriver& driver() const { return *driver_; }

 private:
  CudaContext(const CudaDriver* driver, int ordinal, CuDevice device,
              CuContext context)
      : driver_(driver), ordinal_(ordinal), device_(device), ctx_(context) {}
  absl::Status Push() const;
  void Pop() const;

  const CudaDriver* driver_;
  int ordinal_;
  CuDevice device_;
  CuContext ctx_;
};

// Device memory (cuMemAlloc), freed on destruction.
class DeviceMemory {
 public:
  // ResourceExhausted naming the size when the device has too little left.
  static absl::StatusOr<DeviceMemory> Allocate(
      std::shared_ptr<const CudaContext> context, size_t bytes);
  DeviceMemory() = default;
  DeviceMemory(DeviceMemory&& other) noexcept;
  DeviceMemory& operator=(DeviceMemory&& other) noexcept;
  ~DeviceMemory();

  CuDevicePtr ptr() const { return ptr_; }
  size_t bytes() const { return bytes_; }
  // Copies `bytes` (<= this->bytes()) of device memory to `host`,
  // synchronously.
  absl::Status CopyToHost(void* host, size_t bytes) const;

 private:
  std::shared_ptr<const CudaContext> context_;
  CuDevicePtr ptr_ = 0;
  size_t bytes_ = 0;
};

class CudaEvent;

// A stream that does not wait for the legacy default stream.
class CudaStream {
 public:
  static absl::StatusOr<std::unique_ptr<CudaStream>> Create(
      std::shared_ptr<const CudaContext> context);
  ~CudaStream();  // after Synchronize() when work may be pending

  // Queues a copy of `bytes` bytes from `host` to `device` (which must hold
  // them). `host` must stay valid and unchanged until the copy completes
  // (an event recorded after it, or Synchronize()).
  absl::Status CopyToDevice(CuDevicePtr device, const void* host,
                            size_t bytes) const;
  // Waits until all work queued so far has finished, asleep (on a
  // blocking-sync event; cuStreamSynchronize would spin under the primary
  // context's default schedule).
  absl::Status Synchronize() const;
  // Makes work queued on this stream from now on wait (on the device, not
  // the host) for the work `event` marks (cuStreamWaitEvent).
  absl::Status WaitFor(const CudaEvent& event) const;

  CuStream handle() const { return stream_; }
  const CudaContext& context() const { return *context_; }

 private:
  CudaStream(std::shared_ptr<const CudaContext> c, CuStream s)
      : context_(std::move(c)), stream_(s) {}
  std::shared_ptr<const CudaContext> context_;
  CuStream stream_;
};

// An event without timing data, re-recordable. Synchronize() puts the
// thread to sleep until the work completes (CU_EVENT_BLOCKING_SYNC); without
// it the driver spins, taking a core from the decoding workers for the
// whole copy.
class CudaEvent {
 public:
  static absl::StatusOr<std::unique_ptr<CudaEvent>> Create(
      std::shared_ptr<const CudaContext> context);
  ~CudaEvent();

  // Marks the point after the work queued on `stream` so far.
  absl::Status Record(const CudaStream& stream) const;
  // The same on a stream of someone else's (a framework's), in this
  // context.
  absl::Status Record(CuStream stream) const;
  // Whether that work has finished (an error when it failed).
  absl::StatusOr<bool> Done() const;
  // Waits until it has.
  absl::Status Synchronize() const;

  CuEvent handle() const { return event_; }

 private:
  CudaEvent(std::shared_ptr<const CudaContext> c, CuEvent e)
      : context_(std::move(c)), event_(e) {}
  std::shared_ptr<const CudaContext> context_;
  CuEvent event_;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_CUDA_CONTEXT_H_
