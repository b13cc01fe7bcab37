// MemoryBudget (memory_budget.h): a byte count under a mutex.
#include "pipeline/memory_budget.h"

#include <algorithm>

namespace fusednorm {

bool MemoryBudget::Acquire(int64_t bytes) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock,
           [&] { return cancelled_ || held_ == 0 || held_ + bytes <= limit_; });
  if (cancelled_) return false;
  held_ += bytes;
  peak_ = std::max(peak_, held_);
  return true;
}

void MemoryBudget::Release(int64_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    held_ -= bytes;
  }
  cv_.notify_all();
}

void MemoryBudget::Cancel() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
  }
  cv_.notify_all();
}

int64_t MemoryBudget::peak() const {
  std::lock_guard<std::mutex> lock(mu_);
  return peak_;
}

}  // namespace fusednorm
