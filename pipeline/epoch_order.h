// Which samples an epoch hands this rank, batch by batch, and the stream
// each one draws its decisions from.
//
// The epoch's order is EpochPermutation(seed, epoch, n) (the identity
// without shuffling), computed position by position. Then:
//
//   - by default (LoaderSettings's rules): global batch b holds positions
//     b * batch_size .. of the order and goes to rank b % world; sample i
//     draws from stream i;
//   - with repeated augmentations r > 1, torchvision's RASampler: each
//     sample of the order is repeated r times in a row, the list padded
//     from its start to a multiple of world, rank k takes positions k,
//     k + world, ... of it and keeps the first floor(n / 256) * 256 / world
//     of them (n the epoch's samples); its batches are consecutive runs of
//     that list. Repeat j of sample i draws from stream j * n + i, so each
//     repeat gets its own decisions (repeat 0 those of the default order).
//
// Every rank gets as many batches either way. A batch also has a number
// for its own stream (the batch transform's): its global number, or with
// repeats j * world + rank for this rank's batch j.
//
// An epoch resumed after `start` of its batches (over all ranks) were
// handed out deals the rest the same way: by default global batches
// start + rank, start + rank + world, ..., as many per rank as the
// remaining ones make (rounded up with padding batches, or down with
// drop_last), for any world size, so the batches themselves do not change;
// with repeats (whose lists depend on the world size) rank k skips its
// first start / world batches. Nothing here grows with the epoch's size.
#ifndef FUSEDNORM_PIPELINE_EPOCH_ORDER_H_
#define FUSEDNORM_PIPELINE_EPOCH_ORDER_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "pipeline/epoch_loader.h"
#include "pipeline/epoch_permutation.h"

namespace fusednorm {

// Most repeats of a sample in an epoch.
inline constexpr int kMaxRepeats = 64;

class EpochOrder {
 public:
  // The order of epoch `epoch` of `samples` samples under `settings`
  // (its seed, shuffle, batch size, rank, world size, drop_last, repeats),
  // from the batch after the first `start` (CheckStart must accept it).
  EpochOrder(const LoaderSettings& settings, uint32_t epoch, size_t samples,
             uint64_t start = 0);

  // InvalidArgument unless an epoch of `samples` can resume after `start`
  // batches under `settings`: start < its global batches (0 always), and
  // with repeats a multiple of the world size below its batch count.
  static absl::Status CheckStart(const LoaderSettings& settings, size_t samples,
                                 uint64_t start);

  // This rank's batches, the samples of its batch j, and that batch's
  // number (for its stream, and to tell padding batches: number >=
  // global_batches of the default order). Every batch but the last is
  // full.
  size_t batches() const { return batches_; }
  size_t BatchSamples(size_t j) const;
  uint64_t BatchNumber(size_t j) const;
  bool Padding(size_t j) const;
  // The samples of this rank's batches.
  size_t samples() const;
  // The epoch's batches (over all ranks) handed out once every rank has
  // handed out its first j (what a resume state counts).
  uint64_t BatchesBefore(size_t j) const {
    return BatchNumber(j) - static_cast<uint64_t>(s_.rank);
  }
  // Where epoch `epoch` (this order's) resumes once this rank has handed
  // out `handed` of its batches: after BatchesBefore(handed), or at the
  // next epoch's start when they are all out.
  EpochLoader::Position PositionAfter(uint32_t epoch, size_t handed) const;

  // The dataset index and the stream of sample `pos` of batch j.
  struct Sample {
    uint64_t index;
    uint64_t stream;
  };
  Sample At(size_t j, size_t pos) const;

  // The counts without making the order: this rank's batches and samples.
  static size_t LocalBatches(const LoaderSettings& s, size_t samples);
  static size_t LocalSamples(const LoaderSettings& s, size_t samples);

 private:
  // The dataset index at `position` of the order.
  uint64_t Order(uint64_t position) const;

  LoaderSettings s_;
  size_t samples_;
  uint64_t start_;  // default order: global batches; repeats: local ones
  size_t batches_ = 0;
  EpochPermutation permutation_;
};

// repeated_augmentations = repeats: in 1..kMaxRepeats.
absl::Status CheckRepeatCount(int repeats);

// InvalidArgument when `repeats` does not fit an epoch of `samples` over
// `world` ranks (it keeps no sample when samples < 256 or when
// floor(samples / 256) * 256 < world).
absl::Status CheckRepeats(int repeats, size_t samples, int world);

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_EPOCH_ORDER_H_
