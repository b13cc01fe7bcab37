// TransferStation: a ring of page-aligned output slots, one batch each, that
// the fused op writes into directly: the buffers a host-to-device copy reads.
// Optionally page-locked ("pinned") with mlock; a request that the OS refuses
// is an error, never ignored.
#ifndef FUSEDNORM_PIPELINE_TRANSFER_STATION_H_
#define FUSEDNORM_PIPELINE_TRANSFER_STATION_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"

namespace fusednorm {

class TransferStation {
 public:
  // `slots` slots of `slot_bytes` bytes each (both >= 1), each starting on a
  // page.
  static absl::StatusOr<std::unique_ptr<TransferStation>> Create(
      size_t slots, size_t slot_bytes, bool pinned);
  ~TransferStation();
  TransferStation(const TransferStation&) = delete;
  TransferStation& operator=(const TransferStation&) = delete;

  size_t slots() const { return slots_; }
  size_t slot_bytes() const { return slot_bytes_; }
  bool pinned() const { return pinned_; }
  // Slot i's first byte (page-aligned).
  uint8_t* slot(size_t i) const { return base_ + i * stride_; }

 private:
  TransferStation() = default;
  uint8_t* base_ = nullptr;
  size_t slots_ = 0, slot_bytes_ = 0, stride_ = 0, mapped_ = 0;
  bool pinned_ = false;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_TRANSFER_STATION_H_
