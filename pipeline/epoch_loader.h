// EpochLoader: one epoch of a Preprocessor's split. Worker threads run the
// transform chain per sample and write the fused op's output straight into
// a TransferStation slot, at the sample's place in its batch; Next() hands
// the batches out in order. Every sample submitted yields its output or an
// error: nothing is dropped silently.
//
// Made by Preprocessor::StartEpoch (pipeline/preprocessor.h).
#ifndef FUSEDNORM_PIPELINE_EPOCH_LOADER_H_
#define FUSEDNORM_PIPELINE_EPOCH_LOADER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "core/names.h"
#include "data/dataset.h"
#include "pipeline/transfer_station.h"

namespace fusednorm {

// What happens to a sample that fails (unreadable file, wrong size):
//   kFail: Next() returns its error, naming the sample, and the epoch ends;
//   kSkip: its place in the batch is zero-filled, marked invalid and
//          counted.
enum class ErrorPolicy { kFail, kSkip };

// fail, skip.
absl::Span<const Named<ErrorPolicy>> ErrorPolicyNames();

// One batch in a TransferStation slot. The Batch owns the slot's lease: the
// slot is refilled only after the last reference to the Batch is gone.
struct Batch {
  uint64_t global_index = 0;  // batch number in the single-process epoch
  // A batch past the epoch's end that evens out the ranks' batch counts:
  // its samples repeat the epoch's first ones (LoaderSettings::drop_last).
  bool padding = false;
  Slot slot;
  const uint8_t* data = nullptr;  // slot.data()
  // Bytes per sample; sample k is at data + k * sample_bytes.
  size_t sample_bytes = 0;
  size_t count = 0;  // samples in this batch (the last may be short)
  std::vector<uint64_t> sample_indices;  // dataset indices
  std::vector<int64_t> labels;
  // With soft targets (a chain with num_classes): count x num_classes
  // float32, row k for sample k; else empty.
  std::vector<float> targets;
  int64_t num_classes = 0;
  std::vector<bool> valid;  // false: skipped (kSkip), zero-filled
  size_t skipped = 0;
  // Why each skipped sample was skipped, as one line (core/one_line.h).
  std::vector<std::string> errors;
};

// Bounds of LoaderSettings: worker threads, slots being filled, bytes of one
// batch (a slot), CUDA device ordinals.
inline constexpr int kMaxThreads = 1024;
inline constexpr size_t kMaxSlots = 64;
inline constexpr size_t kMaxBatchBytes = size_t{1} << 40;
inline constexpr int kMaxCudaDevice = 1023;

// A batch handed out by EpochLoader::Next(), shared by whoever reads it.
using BatchRef = std::shared_ptr<const Batch>;

// How a Preprocessor's epochs run (its builder's settings).
struct LoaderSettings {
  size_t batch_size = 32;
  int threads = 1;
  uint64_t seed = 0;
  // Batches being filled at once (2: double buffering). Batches handed out
  // keep their slots until released, and do not count.
  size_t slots = 2;
  // How slots are page-locked (transfer_station.h); kCuda registers them
  // through the primary context of `cuda_device`.
  Pinning pinning = Pinning::kNone;
  int cuda_device = 0;
  bool shuffle = true;  // the epoch's order (training only)
  size_t samples = 0;   // an epoch is the dataset's first N samples; 0: all
  // Sharding: global batch b goes to rank b % world. Every rank gets the
  // same number of batches: with drop_last, the last round's incomplete
  // batches go to no rank; without (the default), a rank whose share is one
  // batch short gets a padding batch: the epoch's order continued past its
  // end, positions wrapping around to its start (DistributedSampler pads so,
  // though per sample). The real samples of the ranks are disjoint
  // and together are the single-process epoch, for any world size.
  int rank = 0, world = 1;
  bool drop_last = false;
  // Repeated augmentations (torchvision's RASampler), training only: each
  // sample of the order repeated `repeats` times in a row, the repeats
  // dealt to different ranks, each with its own decisions; a rank keeps
  // floor(samples / 256) * 256 / world of them, so an epoch sees about
  // samples / repeats distinct samples (pipeline/epoch_order.h); 1: off.
  int repeats = 1;
  ErrorPolicy policy = ErrorPolicy::kFail;
  // Decode only the first op's window of JPEGs (the same bytes come out;
  // off only to measure what it saves).
  bool crop_decode = true;
  // Reduced-size JPEG decoding where the crop allows it (real_ops.h's
  // DecodeOptions::scale): other pixels, so off by default.
  bool decode_scale = false;

  // InvalidArgument naming the first setting out of bounds (threads may be 0
  // until a Preprocessor resolves it to the core count), or a batch of
  // `sample_bytes`-byte samples too large to allocate.
  absl::Status Validate(size_t sample_bytes) const;

  // The samples of an epoch over a dataset of `dataset_size`.
  size_t epoch_samples(size_t dataset_size) const;
  // Batches of one epoch of `samples` samples: in the single-process run,
  // and for this rank (global batches rank, rank + world, ...).
  size_t global_batches(size_t samples) const;
  size_t local_batches(size_t samples) const;
  // The global batch numbers of this rank, in order (those past
  // global_batches() are padding).
  std::vector<uint64_t> RankBatches(size_t samples) const;
  // The samples of global batch b: full, but the last one may be short.
  size_t BatchSamples(uint64_t b, size_t samples) const;
  // The samples of this rank's batches.
  size_t local_samples(size_t samples) const;
};

struct Chain;  // pipeline/chain.h

// How an epoch's read-ahead (of a dataset read over a network) meets its
// neighbours' when a caller runs epochs back to back. With `into_next`
// the read-ahead goes on past the epoch into the first LinkedTasks() of
// epoch + 1's samples (from its start), so that its first batches do not
// wait a round trip to the server at its start; that epoch's loader is
// then started `from_previous`: its read-ahead begins after those samples,
// which its workers take from this loader's, kept (not destroyed) until
// they are read. Bytes are the same either way: a sample neither holds is
// fetched by its reader.
struct ReadAheadLinks {
  bool from_previous = false;
  bool into_next = false;
  // The samples one epoch reads ahead into the next, of `tasks`.
  static size_t LinkedTasks(size_t batch_size, size_t tasks) {
    return std::min(tasks, 2 * batch_size);
  }
};

class EpochLoader {
 public:
  // Starts the workers of epoch `epoch`: `chain` over `dataset`, shuffled
  // when `settings.shuffle`, filling slots of `station` (the Preprocessor's
  // pool; its slots must hold a batch: InvalidArgument otherwise). The
  // dataset and chain must outlive the loader. With `start` > 0 the epoch
  // resumes after that many of its batches (over all ranks) were handed
  // out: pipeline/epoch_order.h says which batches are left, and each is
  // byte for byte the batch of the same number in an epoch run whole;
  // InvalidArgument unless `start` is below the epoch's batch count
  // (EpochOrder::CheckStart; with drop_last what is left may still give
  // this rank none). `links`: see ReadAheadLinks (from_previous only with
  // `start` 0; into_next only below the last epoch).
  static absl::StatusOr<std::unique_ptr<EpochLoader>> Start(
      const Dataset& dataset, const Chain& chain,
      const LoaderSettings& settings, uint32_t epoch,
      std::shared_ptr<TransferStation> station, uint64_t start = 0,
      ReadAheadLinks links = {});

  // Stops the workers cleanly (Cancel(), then joins them).
  //
  // An epoch belongs to the process that started it. In a child made by
  // fork() its workers do not exist (nor may its locks be free): there
  // Next() is FailedPrecondition naming fork, WaitReady() is true at once,
  // Cancel() does nothing, and destruction leaves the epoch's memory as it
  // is instead of joining threads that are not there.
  ~EpochLoader();

  // The next batch in order, nullptr after the last, or an error (kFail: the
  // failing sample's, naming it; Cancelled after Cancel()). The batch may be
  // kept as long as the caller likes: its slot is reused once the last
  // reference is dropped. Not for concurrent calls.
  absl::StatusOr<BatchRef> Next();
  // Waits at most `timeout` for Next() to have its answer ready (a batch, the
  // end, or an error); true when it will not block. Lets a caller wait in
  // slices and react to interrupts in between.
  bool WaitReady(absl::Duration timeout);
  // Stops the epoch: workers finish the sample they are on and stop; Next()
  // returns Cancelled. Thread-safe, also while Next() waits.
  void Cancel();
  size_t batches() const;
  // Whether the dataset fetches this epoch's samples ahead (a network):
  // only then is the loader worth keeping for the next epoch
  // (ReadAheadLinks).
  bool reads_ahead() const;
  // Once Next() gave the end: the epoch no longer counts as using the
  // transfer slots (TransferStation::EndUse, as its destruction does), for
  // a loader kept for its read-ahead. Call it after the next epoch started,
  // so that the pool keeps its slots between the two.
  void ReleaseSlots();

  // Where a run that stops now resumes: this epoch after the batches
  // handed out over all ranks when every rank has handed out as many as
  // this one (so any rank may save it, between two steps), or, once this
  // rank's batches are all out, the next epoch's start. A batch Next()
  // failed with (kFail) was not handed out.
  struct Position {
    uint64_t epoch = 0;  // 2^32 after the last epoch, 2^32 - 1, is over
    uint64_t batches = 0;
  };
  Position resume_position() const;
  // Largest number of batches that were being filled at once (<= slots).
  size_t max_in_flight() const;

  // Worker time spent per stage so far, summed over threads, in seconds.
  struct StageSeconds {
    double load = 0;          // reading and decoding
    double transforms = 0;    // the real ops (crops, resizes, colour ops)
    double fused = 0;         // FusedNormalization
    double batch = 0;         // batch transforms and soft targets
    std::vector<double> ops;  // each real op's part of `transforms`
  };
  StageSeconds stage_seconds() const;

  // The JPEG and PNG samples' pixels decoded so far, and those of their
  // whole images (at the scale decoded): decoded < whole when only the
  // crops' windows were decoded. Decoded pixels (raw arrays, .npy shown in
  // place) count in neither.
  struct DecodedPixels {
    int64_t decoded = 0;
    int64_t whole = 0;
  };
  DecodedPixels decoded_pixels() const;

 private:
  struct Impl;
  explicit EpochLoader(std::unique_ptr<Impl> impl);
  // In a child made by fork() since the epoch started.
  bool Forked() const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_EPOCH_LOADER_H_
