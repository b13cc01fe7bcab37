// DeviceBufferPool and DeviceBuffer (device_pool.h).
#include "cuda/device_pool.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace fusednorm {

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : pool_(std::move(other.pool_)),
      memory_(std::exchange(other.memory_, nullptr)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    DeviceBuffer old(std::move(*this));
    pool_ = std::move(other.pool_);
    memory_ = std::exchange(other.memory_, nullptr);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (memory_ != nullptr) pool_->Release(memory_);
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
      DeviceMemory* m = free_.back();
      free_.pop_back();
      return DeviceBuffer(shared_from_this(), m);
    }
  }
  FUSEDNORM_ASSIGN_OR_RETURN(DeviceMemory m,
                             DeviceMemory::Allocate(context_, bytes_));
  auto owned = std::make_unique<DeviceMemory>(std::move(m));
  DeviceMemory* p = owned.get();
  std::lock_guard<std::mutex> lock(mu_);
  all_.push_back(std::move(owned));
  return DeviceBuffer(shared_from_this(), p);
}

void DeviceBufferPool::Release(DeviceMemory* memory) {
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(memory);
}

size_t DeviceBufferPool::allocated() const {
  std::lock_guard<std::mutex> lock(mu_);
  return all_.size();
}

}  // namespace fusednorm
