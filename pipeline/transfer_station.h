// TransferStation: a pool of page-aligned output slots, one batch each, that
// the fused op writes into directly: the buffers a host-to-device copy reads.
//
// A slot is lent as a Slot, a move-only lease; the slot returns to the pool
// when the lease is destroyed, never earlier. Whoever holds a batch (a
// consumer reading it, a Python array viewing it, a copy in flight) holds its
// lease, so a slot is never refilled while anything may still read it. When
// every slot is lent, Acquire() maps a new one: the pool grows to what the
// consumers hold, and memory is reused as soon as they let go.
//
// Slots are optionally page-locked ("pinned") with mlock; a request that the
// OS refuses is an error, never ignored.
#ifndef FUSEDNORM_PIPELINE_TRANSFER_STATION_H_
#define FUSEDNORM_PIPELINE_TRANSFER_STATION_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"

namespace fusednorm {

class TransferStation;

// One lent slot: `bytes()` writable bytes at `data()` (page-aligned). Returns
// the slot to its station when destroyed; the station lives while any of its
// slots is lent.
class Slot {
 public:
  Slot() = default;
  Slot(Slot&& other) noexcept;
  Slot& operator=(Slot&& other) noexcept;
  ~Slot();

  uint8_t* data() const { return data_; }
  size_t bytes() const;
  explicit operator bool() const { return data_ != nullptr; }

 private:
  friend class TransferStation;
  Slot(std::shared_ptr<TransferStation> station, uint8_t* data)
      : station_(std::move(station)), data_(data) {}

  std::shared_ptr<TransferStation> station_;
  uint8_t* data_ = nullptr;
};

class TransferStation : public std::enable_shared_from_this<TransferStation> {
 public:
  // A pool of slots of `slot_bytes` bytes (>= 1, < 1 TiB), with `prepared`
  // of them mapped (and pinned) now; more are mapped on demand.
  static absl::StatusOr<std::shared_ptr<TransferStation>> Create(
      size_t slot_bytes, bool pinned, size_t prepared = 0);
  ~TransferStation();
  TransferStation(const TransferStation&) = delete;
  TransferStation& operator=(const TransferStation&) = delete;

  // A free slot, or a newly mapped one when all are lent. ResourceExhausted
  // (naming the size) when the OS refuses the memory; FailedPrecondition when
  // it refuses to pin it.
  absl::StatusOr<Slot> Acquire();

  size_t slot_bytes() const { return slot_bytes_; }
  bool pinned() const { return pinned_; }
  // Slots mapped so far (lent and free).
  size_t slots_mapped() const;

 private:
  friend class Slot;
  TransferStation(size_t slot_bytes, size_t stride, bool pinned)
      : slot_bytes_(slot_bytes), stride_(stride), pinned_(pinned) {}
  // Maps (and pins) one slot; nullptr with *error set on failure.
  absl::StatusOr<uint8_t*> Map();
  void Release(uint8_t* data);

  const size_t slot_bytes_, stride_;
  const bool pinned_;
  mutable std::mutex mu_;
  std::vector<uint8_t*> all_, free_;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_TRANSFER_STATION_H_
