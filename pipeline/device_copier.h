// DeviceCopier: an epoch's batches copied to a CUDA device while the workers
// fill the next ones, the loader's double buffering extended to the device.
//
//   std::shared_ptr<EpochLoader> epoch = *p.StartEpoch(Split::kTrain, 0);
//   auto copier = *DeviceCopier::Start(epoch, {/*cuda_device=*/0});
//   for (;;) {
//     absl::StatusOr<DeviceBatch> b = copier->Next();
//     if (!b.ok() || b->batch == nullptr) break;
//     Train(b->buffer.ptr(), b->batch->labels);  // the copy has completed
//   }
//
// A copy thread takes each batch from the loader as soon as it is filled,
// queues its copy on a stream of its own (cuMemcpyHtoDAsync into a buffer
// from a DeviceBufferPool) and records an event after it; Next() hands the
// batches out in order, each once its event has completed. At most `ahead`
// batches are copied or being copied ahead of the consumer.
//
// The rule that keeps the copies right: a slot is refilled only after the
// copy from it has completed. The copier holds the batch (its BatchRef, so
// its slot's lease) from the moment it queues the copy until Next() has seen
// the copy's event complete, and its destructor waits for every queued copy
// before it lets a batch go. For the copy to be direct and asynchronous the
// slots must be registered (LoaderSettings::pinning = kCuda, on the same
// cuda_device); from other memory the driver stages it, synchronously.
//
// One copier serves a whole run: Restart(next epoch's loader) after an
// epoch keeps its context retained, its stream, events and device buffers,
// so that a run neither resets the primary context between epochs (its
// last release would) nor allocates its buffers again.
//
// The consumer's side of the rule: a DeviceBatch's buffer is reused for a
// later copy once the DeviceBatch (its buffer lease) is destroyed, so drop it
// only after the work reading the buffer has finished; or, when that work is
// queued on a stream of the consumer's (a framework's), hand the buffer back
// with `batch.buffer.ReleaseAfter(stream)` at once: the next copy into it
// waits on the device for what that stream had queued (cuStreamWaitEvent),
// and no thread waits. The host batch in it may be dropped at any time: its
// copy is complete.
#ifndef FUSEDNORM_PIPELINE_DEVICE_COPIER_H_
#define FUSEDNORM_PIPELINE_DEVICE_COPIER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cuda/device_pool.h"
#include "pipeline/epoch_loader.h"

namespace fusednorm {

struct DeviceCopyOptions {
  int cuda_device = 0;  // the device whose primary context copies
  // Batches copied or being copied ahead of the consumer (1..kMaxSlots).
  size_t ahead = 2;
};

// One batch on the device.
struct DeviceBatch {
  BatchRef batch;  // the host batch (labels, indices); nullptr at the end
  // Its count * sample_bytes bytes, copied; the buffer itself holds the
  // slot's bytes (batch->slot.bytes()).
  DeviceBuffer buffer;
};

class DeviceCopier {
 public:
  // Starts copying the batches of `loader` (which nothing else may call
  // Next() on): InvalidArgument for options out of bounds; the driver's
  // errors (FailedPrecondition naming libcuda.so.1 without one).
  static absl::StatusOr<std::unique_ptr<DeviceCopier>> Start(
      std::shared_ptr<EpochLoader> loader, const DeviceCopyOptions& options);

  // Cancels the epoch, waits for every queued copy to complete, then lets
  // the batches go.
  ~DeviceCopier();

  // The next batch, in order, once its copy has completed; a DeviceBatch
  // with a null batch after the last; or an error: the loader's (after the
  // batches before it), the driver's, Cancelled after Cancel(). Not for
  // concurrent calls.
  absl::StatusOr<DeviceBatch> Next();
  // Waits at most `timeout` until Next() no longer waits for the workers:
  // the next batch's copy is queued (Next() then waits for the device
  // alone), or the epoch's end or an error is known.
  bool WaitReady(absl::Duration timeout);
  // Stops the loader and the copies; Next() returns Cancelled. Thread-safe.
  void Cancel();
  // Goes on with `loader`'s batches (the next epoch), with this copier's
  // context, stream, events and buffers: cancels what is left of the
  // current epoch and waits for its copies first. Stats start again from 0
  // (buffers aside). The error Next() returned from the driver, if any, is
  // returned again; InvalidArgument for a null loader. Not concurrently
  // with Next(), WaitReady() or Cancel().
  absl::Status Restart(std::shared_ptr<EpochLoader> loader);

  struct Stats {
    size_t copies = 0;             // queued so far
    uint64_t bytes = 0;            // their bytes
    size_t buffers = 0;            // device buffers allocated
    double copy_wait_seconds = 0;  // Next() waited for copies to complete
  };
  Stats stats() const;
  // The device's name, as the driver gives it.
  std::string device_name() const;

 private:
  struct Impl;
  explicit DeviceCopier(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_DEVICE_COPIER_H_
