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
// Slots are optionally page-locked ("pinned"): with mlock (memory the OS
// will not swap), or registered with the CUDA driver (cuda/context.h) for
// every CUDA context in the process, torch's included, so that a
// host-to-device copy from a slot is direct DMA and asynchronous. A pinning
// the OS or the driver refuses is an error, never ignored; registered slots
// are unregistered before they are unmapped. Registered slots are shared
// mappings, so a fork() never moves a page the driver reads; a child made
// by fork() cannot acquire them (the driver is its parent's), and slots of
// other pinnings work in a child as in any process.
//
// A copy from a slot reads it until the copy completes: whoever issues one
// holds the slot's lease (the Batch) until then (pipeline/device_copier.h
// does; so does fusednorm.torch in Python).
#ifndef FUSEDNORM_PIPELINE_TRANSFER_STATION_H_
#define FUSEDNORM_PIPELINE_TRANSFER_STATION_H_

#include <sys/types.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/names.h"

namespace fusednorm {

class CudaContext;  // cuda/context.h
class TransferStation;

// How slots are page-locked: not at all, with mlock, or registered with the
// CUDA driver.
enum class Pinning { kNone, kMlock, kCuda };

// none, mlock, cuda.
absl::Span<const Named<Pinning>> PinningNames();

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
  // of them mapped (and pinned) now; more are mapped on demand. kCuda
  // registers them through the primary context of `cuda_device`: an error
  // from the driver (FailedPrecondition naming libcuda.so.1 without one).
  static absl::StatusOr<std::shared_ptr<TransferStation>> Create(
      size_t slot_bytes, Pinning pinning, size_t prepared = 0,
      int cuda_device = 0);
  ~TransferStation();
  TransferStation(const TransferStation&) = delete;
  TransferStation& operator=(const TransferStation&) = delete;

  // A free slot, or a newly mapped one when all are lent. ResourceExhausted
  // (naming the size) when the OS refuses the memory; FailedPrecondition when
  // it refuses to mlock it; the driver's error when it refuses to register
  // it; FailedPrecondition naming fork for kCuda in a child made by fork().
  absl::StatusOr<Slot> Acquire();

  size_t slot_bytes() const { return slot_bytes_; }
  Pinning pinning() const { return pinning_; }
  // Slots mapped so far (lent and free).
  size_t slots_mapped() const;

  // An epoch fills the pool between BeginUse() and EndUse(keep): while any
  // epoch does, the pool grows to what it needs and keeps every slot; once
  // none does, it keeps at most `keep` slots and unmaps the others as they
  // come back (a consumer that held a whole epoch does not keep its memory
  // mapped, pinned or registered).
  void BeginUse();
  void EndUse(size_t keep);

 private:
  friend class Slot;
  TransferStation(size_t slot_bytes, size_t stride, Pinning pinning,
                  std::shared_ptr<const CudaContext> cuda)
      : slot_bytes_(slot_bytes),
        stride_(stride),
        pinning_(pinning),
        cuda_(std::move(cuda)) {}
  // Maps and pins one slot.
  absl::StatusOr<uint8_t*> Map();
  absl::Status Pin(uint8_t* p);
  void Unmap(uint8_t* p);
  void Release(uint8_t* data);

  const size_t slot_bytes_, stride_;
  const Pinning pinning_;
  const std::shared_ptr<const CudaContext> cuda_;  // kCuda
  // The process whose threads take mu_: in a child made by fork(), a slot
  // given back is left alone (a thread of the parent's may have held mu_
  // at the fork, and the slot is the parent's copy anyway).
  const pid_t process_ = getpid();
  mutable std::mutex mu_;
  std::vector<uint8_t*> all_, free_;
  size_t users_ = 0;        // epochs between BeginUse and EndUse
  size_t keep_ = SIZE_MAX;  // slots kept while no epoch uses the pool
};

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_TRANSFER_STATION_H_
