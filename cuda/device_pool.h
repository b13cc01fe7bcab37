// DeviceBufferPool: device memory buffers of one size, lent as move-only
// DeviceBuffer leases, the device-side twin of the host's transfer slots
// (pipeline/transfer_station.h). A buffer returns to the pool when its lease
// is destroyed, never earlier; when every buffer is lent, Acquire()
// allocates another, so the pool grows to what the consumers hold. The pool
// lives while any lease does and frees its memory with its last one.
//
// Whoever drops a lease must be done with the buffer: work still reading it
// on some stream would see the next copy's bytes. A consumer whose work is
// queued on a stream of its own hands the lease back with ReleaseAfter(that
// stream) instead: the buffer keeps an event recorded there, and whoever
// writes it next first makes its stream wait for that event
// (OrderWritesAfterRelease), on the device, with no host wait.
#ifndef FUSEDNORM_CUDA_DEVICE_POOL_H_
#define FUSEDNORM_CUDA_DEVICE_POOL_H_

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "cuda/context.h"

namespace fusednorm {

class DeviceBufferPool;

// One lent buffer: `bytes()` bytes of device memory at `ptr()`.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  ~DeviceBuffer();

  CuDevicePtr ptr() const { return memory_ == nullptr ? 0 : memory_->ptr(); }
  size_t bytes() const { return memory_ == nullptr ? 0 : memory_->bytes(); }
  const DeviceMemory* memory() const { return memory_; }
  explicit operator bool() const { return memory_ != nullptr; }

  // Hands the buffer back once the work queued on `stream` so far (a
  // stream of the pool's context) has run; the lease is empty afterwards.
  // The driver's error leaves the lease as it was.
  absl::Status ReleaseAfter(CuStream stream);
  // Makes `writer` wait for the work the last ReleaseAfter() marked, if
  // any, before the writes queued on it next.
  absl::Status OrderWritesAfterRelease(const CudaStream& writer);

 private:
  friend class DeviceBufferPool;
  DeviceBuffer(std::shared_ptr<DeviceBufferPool> pool, DeviceMemory* memory,
               std::unique_ptr<CudaEvent> released_after)
      : pool_(std::move(pool)),
        memory_(memory),
        released_after_(std::move(released_after)) {}

  std::shared_ptr<DeviceBufferPool> pool_;
  DeviceMemory* memory_ = nullptr;
  std::unique_ptr<CudaEvent> released_after_;  // the last reader's mark
};

class DeviceBufferPool : public std::enable_shared_from_this<DeviceBufferPool> {
 public:
  // A pool of `bytes`-byte buffers (>= 1) on the context's device.
  static absl::StatusOr<std::shared_ptr<DeviceBufferPool>> Create(
      std::shared_ptr<const CudaContext> context, size_t bytes);

  // A free buffer, or a new one (the driver's error, ResourceExhausted when
  // the device is out of memory).
  absl::StatusOr<DeviceBuffer> Acquire();

  size_t buffer_bytes() const { return bytes_; }
  // Buffers allocated so far (lent and free).
  size_t allocated() const;

 private:
  friend class DeviceBuffer;
  DeviceBufferPool(std::shared_ptr<const CudaContext> context, size_t bytes)
      : context_(std::move(context)), bytes_(bytes) {}
  void Release(DeviceMemory* memory, std::unique_ptr<CudaEvent> after);

  struct Free {
    DeviceMemory* memory;
    std::unique_ptr<CudaEvent> after;  // its last reader's, or null
  };

  const std::shared_ptr<const CudaContext> context_;
  const size_t bytes_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<DeviceMemory>> all_;
  std::vector<Free> free_;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_CUDA_DEVICE_POOL_H_
