// TransferStation and Slot (transfer_station.h): page-aligned, optionally
// page-locked or CUDA-registered slots, lent and returned.
#include "pipeline/transfer_station.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/memory.h"
#include "core/status.h"
#include "cuda/context.h"

namespace fusednorm {

absl::Span<const Named<Pinning>> PinningNames() {
  static constexpr Named<Pinning> kNames[] = {{Pinning::kNone, "none"},
                                              {Pinning::kMlock, "mlock"},
                                              {Pinning::kCuda, "cuda"}};
  return kNames;
}

Slot::Slot(Slot&& other) noexcept
    : station_(std::move(other.station_)),
      data_(std::exchange(other.data_, nullptr)) {}

Slot& Slot::operator=(Slot&& other) noexcept {
  if (this != &other) {
    Slot old(std::move(*this));
    station_ = std::move(other.station_);
    data_ = std::exchange(other.data_, nullptr);
  }
  return *this;
}

Slot::~Slot() {
  if (data_ != nullptr) station_->Release(data_);
}

size_t Slot::bytes() const {
  return data_ == nullptr ? 0 : station_->slot_bytes();
}

absl::StatusOr<std::shared_ptr<TransferStation>> TransferStation::Create(
    size_t slot_bytes, Pinning pinning, size_t prepared, int cuda_device) {
  constexpr size_t kMaxSlotBytes = size_t{1} << 40;
  if (slot_bytes < 1 || slot_bytes >= kMaxSlotBytes) {
    return InvalidArgumentCat("TransferStation slot_bytes = ", slot_bytes,
                              " must be in 1..", kMaxSlotBytes - 1);
  }
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t stride = (slot_bytes + page - 1) / page * page;
  std::shared_ptr<const CudaContext> cuda;
  if (pinning == Pinning::kCuda) {
    absl::StatusOr<std::shared_ptr<const CudaContext>> c =
        CudaContext::Retain(cuda_device);
    if (!c.ok()) return PrefixStatus(c.status(), "pinned = cuda: ");
    cuda = *std::move(c);
  }
  std::shared_ptr<TransferStation> ts(
      new TransferStation(slot_bytes, stride, pinning, std::move(cuda)));
  std::vector<Slot> ready;
  for (size_t i = 0; i < prepared; ++i) {
    FUSEDNORM_ASSIGN_OR_RETURN(Slot s, ts->Acquire());
    ready.push_back(std::move(s));
  }
  return ts;  // `ready` goes back to the pool
}

TransferStation::~TransferStation() {
  for (uint8_t* p : all_) Unmap(p);
}

absl::StatusOr<uint8_t*> TransferStation::Map() {
  // Mapped with MAP_POPULATE past the memory left, a slot would have the
  // kernel kill the process instead of failing the mmap.
  if (const uint64_t left = AvailableMemoryBytes();
      left != 0 && stride_ > left) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "TransferStation: a slot of ", stride_,
        " bytes (one batch) is more than the ", left,
        " bytes of memory left; a smaller batch size or sample size needs "
        "less"));
  }
  // MAP_POPULATE faults the pages in now, not while workers write a batch.
  // Registered slots are shared, not private: after a fork() a private
  // page the parent writes is copied to a new page while the device may go
  // on reading the old one (or every pinned page is copied into the child).
  const int sharing = pinning_ == Pinning::kCuda ? MAP_SHARED : MAP_PRIVATE;
  void* p = mmap(nullptr, stride_, PROT_READ | PROT_WRITE,
                 sharing | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (p == MAP_FAILED) {
    return absl::ResourceExhaustedError(
        absl::StrCat("TransferStation: cannot map a slot of ", stride_,
                     " bytes: ", std::strerror(errno)));
  }
  if (absl::Status st = Pin(static_cast<uint8_t*>(p)); !st.ok()) {
    munmap(p, stride_);
    return st;
  }
  return static_cast<uint8_t*>(p);
}

absl::Status TransferStation::Pin(uint8_t* p) {
  switch (pinning_) {
    case Pinning::kNone:
      return absl::OkStatus();
    case Pinning::kMlock:
      if (mlock(p, stride_) == 0) return absl::OkStatus();
      return absl::FailedPreconditionError(absl::StrCat(
          "pinned TransferStation: mlock of ", stride_, " bytes failed (",
          std::strerror(errno),
          "); raise the locked-memory limit (ulimit -l) or turn pinning off"));
    case Pinning::kCuda:
      return PrefixStatus(
          cuda_->RegisterHost(p, stride_),
          absl::StrCat("pinned = cuda: registering a transfer slot of ",
                       stride_, " bytes: "));
  }
  return absl::OkStatus();
}

void TransferStation::Unmap(uint8_t* p) {
  if (pinning_ == Pinning::kMlock) munlock(p, stride_);
  // Nothing to report to at destruction; the driver keeps no pages of an
  // unmapped range either way.
  if (pinning_ == Pinning::kCuda) cuda_->UnregisterHost(p).IgnoreError();
  munmap(p, stride_);
}

absl::StatusOr<Slot> TransferStation::Acquire() {
  // A child made by fork() shares the registered slots with its parent:
  // writing one would change a batch the parent may still be copying.
  if (pinning_ == Pinning::kCuda) {
    FUSEDNORM_RETURN_IF_ERROR(
        PrefixStatus(cuda_->driver().CheckProcess(), "pinned = cuda: "));
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      uint8_t* p = free_.back();
      free_.pop_back();
      return Slot(shared_from_this(), p);
    }
  }
  FUSEDNORM_ASSIGN_OR_RETURN(uint8_t * p, Map());
  std::lock_guard<std::mutex> lock(mu_);
  all_.push_back(p);
  return Slot(shared_from_this(), p);
}

void TransferStation::Release(uint8_t* data) {
  if (getpid() != process_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (users_ > 0 || all_.size() <= keep_) {
      free_.push_back(data);
      return;
    }
    all_.erase(std::find(all_.begin(), all_.end(), data));
  }
  Unmap(data);  // outside the lock: it may call the driver
}

void TransferStation::BeginUse() {
  std::lock_guard<std::mutex> lock(mu_);
  ++users_;
}

void TransferStation::EndUse(size_t keep) {
  std::vector<uint8_t*> unmap;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (--users_ > 0) return;
    keep_ = keep;
    while (all_.size() > keep_ && !free_.empty()) {
      uint8_t* p = free_.back();
      free_.pop_back();
      all_.erase(std::find(all_.begin(), all_.end(), p));
      unmap.push_back(p);
    }
  }
  for (uint8_t* p : unmap) Unmap(p);
}

size_t TransferStation::slots_mapped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return all_.size();
}

}  // namespace fusednorm
