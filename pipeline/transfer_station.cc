// TransferStation and Slot (transfer_station.h): page-aligned, optionally
// page-locked slots, lent and returned.
#include "pipeline/transfer_station.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace fusednorm {

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
    size_t slot_bytes, bool pinned, size_t prepared) {
  constexpr size_t kMaxSlotBytes = size_t{1} << 40;
  if (slot_bytes < 1 || slot_bytes >= kMaxSlotBytes) {
    return InvalidArgumentCat("TransferStation slot_bytes = ", slot_bytes,
                              " must be in 1..", kMaxSlotBytes - 1);
  }
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t stride = (slot_bytes + page - 1) / page * page;
  std::shared_ptr<TransferStation> ts(
      new TransferStation(slot_bytes, stride, pinned));
  std::vector<Slot> ready;
  for (size_t i = 0; i < prepared; ++i) {
    FUSEDNORM_ASSIGN_OR_RETURN(Slot s, ts->Acquire());
    ready.push_back(std::move(s));
  }
  return ts;  // `ready` goes back to the pool
}

TransferStation::~TransferStation() {
  for (uint8_t* p : all_) {
    if (pinned_) munlock(p, stride_);
    munmap(p, stride_);
  }
}

absl::StatusOr<uint8_t*> TransferStation::Map() {
  // MAP_POPULATE faults the pages in now, not while workers write a batch.
  void* p = mmap(nullptr, stride_, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (p == MAP_FAILED) {
    return absl::ResourceExhaustedError(
        absl::StrCat("TransferStation: cannot map a slot of ", stride_,
                     " bytes: ", std::strerror(errno)));
  }
  if (pinned_ && mlock(p, stride_) != 0) {
    const int err = errno;
    munmap(p, stride_);
    return absl::FailedPreconditionError(absl::StrCat(
        "pinned TransferStation: mlock of ", stride_, " bytes failed (",
        std::strerror(err),
        "); raise the locked-memory limit (ulimit -l) or turn pinning off"));
  }
  return static_cast<uint8_t*>(p);
}

absl::StatusOr<Slot> TransferStation::Acquire() {
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
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(data);
}

size_t TransferStation::slots_mapped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return all_.size();
}

}  // namespace fusednorm
