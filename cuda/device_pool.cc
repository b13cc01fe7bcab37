// DeviceBufferPool and DeviceBuffer (device_pool.h).
#include "cuda/device_pool.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace fusednorm {

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : pool_(std::move(other.pool_)),
      memory_(std::exchange(other.memory_, nullptr)),
      released_after_(std::move(other.released_after_)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    DeviceBuffer old(std::move(*this));
    pool_ = std::move(other.pool_);
    memory_ = std::exchange(other.memory_, nullptr);
    released_after_ = std::move(other.released_after_);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (memory_ != nullptr) pool_->Release(memory_, std::move(released_after_));
}

absl::Status DeviceBuffer::ReleaseAfter(CuStream stream) {
  if (memory_ == nullptr)
    return absl::FailedPreconditionError("ReleaseAfter: an empty lease");
  FUSEDNORM_ASSIGN_OR_RETURN(std::unique_ptr<CudaEvent> event,
                             CudaEvent::Create(pool_->context_));
  FUSEDNORM_RETURN_IF_ERROR(event->Record(stream));
  pool_->Release(std::exchange(memory_, nullptr), std::move(event));
  released_after_.reset();
  pool_.reset();
  return absl::OkStatus();
}

absl::Status DeviceBuffer::OrderWritesAfterRelease(const CudaStream& writer) {
  if (released_after_ == nullptr) return absl::OkStatus();
  FUSEDNORM_RETURN_IF_ERROR(writer.WaitFor(*released_after_));
  released_after_.reset();  // the wait holds the mark it saw
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<DeviceBufferPool>> DeviceBufferPool::Create(
    std::shared_ptr<const CudaContext> context, size_t bytes) {
  if (bytes < 1) return InvalidArgumentCat("device buffer bytes = 0");
  return std::shared_ptr<DeviceBufferPool>(
      new DeviceBufferPool(std::move(context), bytes));
}

absl::StatusOr<DeviceBuffer> DeviceBufferPool::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      Free f = std::move(free_.back());
      free_.pop_back();
      return DeviceBuffer(shared_from_this(), f.memory, std::move(f.after));
    }
  }
  FUSEDNORM_ASSIGN_OR_RETURN(DeviceMemory m,
                             DeviceMemory::Allocate(context_, bytes_));
  auto owned = std::make_unique<DeviceMemory>(std::move(m));
  DeviceMemory* p = owned.get();
  std::lock_guard<std::mutex> lock(mu_);
  all_.push_back(std::move(owned));
  return DeviceBuffer(shared_from_this(), p, nullptr);
}

void DeviceBufferPool::Release(DeviceMemory* memory,
                               std::unique_ptr<CudaEvent> after) {
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back({memory, std::move(after)});
}

size_t DeviceBufferPool::allocated() const {
  std::lock_guard<std::mutex> lock(mu_);
  return all_.size();
}

}  // namespace fusednorm
