// TransferStation (transfer_station.h): page-aligned, optionally page-locked
// output slots.
#include "pipeline/transfer_station.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace fusednorm {

absl::StatusOr<std::unique_ptr<TransferStation>> TransferStation::Create(
    size_t slots, size_t slot_bytes, bool pinned) {
  if (slots < 1 || slot_bytes < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("TransferStation slots = ", slots,
                     ", slot_bytes = ", slot_bytes, ": both must be >= 1"));
  }
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t stride = (slot_bytes + page - 1) / page * page;
  if (stride / page > (size_t{1} << 40) / page / slots) {
    return absl::InvalidArgumentError(absl::StrCat("TransferStation of ", slots,
                                                   " slots of ", slot_bytes,
                                                   " bytes is too large"));
  }
  std::unique_ptr<TransferStation> ts(new TransferStation);
  ts->mapped_ = stride * slots;
  // MAP_POPULATE faults the pages in now, not while the workers write the first
  // batch.
  void* p = mmap(nullptr, ts->mapped_, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (p == MAP_FAILED) {
    return absl::ResourceExhaustedError(
        absl::StrCat("TransferStation: cannot map ", ts->mapped_,
                     " bytes: ", std::strerror(errno)));
  }
  ts->base_ = static_cast<uint8_t*>(p);
  ts->slots_ = slots;
  ts->slot_bytes_ = slot_bytes;
  ts->stride_ = stride;
  if (pinned) {
    if (mlock(p, ts->mapped_) != 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "pinned TransferStation: mlock of ", ts->mapped_, " bytes failed (",
          std::strerror(errno),
          "); raise the locked-memory limit (ulimit -l) or turn pinning off"));
    }
    ts->pinned_ = true;
  }
  return ts;
}

TransferStation::~TransferStation() {
  if (base_ == nullptr) return;
  if (pinned_) munlock(base_, mapped_);
  munmap(base_, mapped_);
}

}  // namespace fusednorm
