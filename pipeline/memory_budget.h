// MemoryBudget: a bound on the memory a loader's workers hold at once for
// large samples. Each worker keeps buffers as large as the largest image it
// decoded, and a small file may declare an image of 2^28 pixels: sixteen
// workers each decoding one would hold over 12 GB. So a worker about to
// decode an image whose buffers pass `free_bytes` first takes their bytes
// here, waiting while the others' large samples hold too much for it to fit
// under `limit` (a sample larger than the limit runs alone), and gives them
// back once it has freed those buffers. Samples under `free_bytes` -- every
// photo of a usual dataset -- never wait.
#ifndef FUSEDNORM_PIPELINE_MEMORY_BUDGET_H_
#define FUSEDNORM_PIPELINE_MEMORY_BUDGET_H_

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace fusednorm {

class MemoryBudget {
 public:
  // The loader's bounds: samples whose buffers stay under 512 MiB (about
  // 56 megapixels) never wait; the large ones share 2 GiB.
  static constexpr int64_t kFreeBytes = int64_t{512} << 20;
  static constexpr int64_t kLimitBytes = int64_t{2} << 30;

  explicit MemoryBudget(int64_t free_bytes = kFreeBytes,
                        int64_t limit = kLimitBytes)
      : free_bytes_(free_bytes), limit_(limit) {}

  // Whether a sample whose buffers take `bytes` must take them from here.
  bool Needs(int64_t bytes) const { return bytes > free_bytes_; }
  // Takes `bytes`, waiting while they do not fit under the limit beside
  // what others hold (and they hold anything); false, taking nothing, once
  // Cancel() is called.
  bool Acquire(int64_t bytes);
  void Release(int64_t bytes);
  // Wakes every waiter; every Acquire from now on fails.
  void Cancel();
  // The most bytes held at once so far.
  int64_t peak() const;

 private:
  const int64_t free_bytes_, limit_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int64_t held_ = 0, peak_ = 0;
  bool cancelled_ = false;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_MEMORY_BUDGET_H_
