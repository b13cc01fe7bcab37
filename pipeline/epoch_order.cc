// EpochOrder (epoch_order.h).
#include "pipeline/epoch_order.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace fusednorm {
namespace {

// RASampler's per-rank length: floor(n // 256 * 256 / world).
size_t SelectedSamples(size_t n, int world) {
  return n / 256 * 256 / static_cast<size_t>(world);
}

}  // namespace

absl::Status CheckRepeatCount(int repeats) {
  if (repeats < 1 || repeats > kMaxRepeats) {
    return InvalidArgumentCat("repeated_augmentations = ", repeats,
                              ": must be in 1..", kMaxRepeats);
  }
  return absl::OkStatus();
}

absl::Status CheckRepeats(int repeats, size_t samples, int world) {
  FUSEDNORM_RETURN_IF_ERROR(CheckRepeatCount(repeats));
  if (repeats > 1 && SelectedSamples(samples, world) == 0) {
    return InvalidArgumentCat(
        "repeated_augmentations = ", repeats, " over ", samples,
        " samples and world_size = ", world,
        ": RASampler keeps floor(samples / 256) * 256 / world_size samples "
        "per rank, none here");
  }
  return absl::OkStatus();
}

size_t EpochOrder::LocalBatches(const LoaderSettings& s, size_t samples) {
  if (s.repeats <= 1) return s.local_batches(samples);
  const size_t n = SelectedSamples(samples, s.world);
  return s.drop_last ? n / s.batch_size : (n + s.batch_size - 1) / s.batch_size;
}

size_t EpochOrder::LocalSamples(const LoaderSettings& s, size_t samples) {
  if (s.repeats <= 1) return s.local_samples(samples);
  const size_t n = SelectedSamples(samples, s.world);
  return std::min(n, LocalBatches(s, samples) * s.batch_size);
}

absl::Status EpochOrder::CheckStart(const LoaderSettings& s, size_t n,
                                    uint64_t start) {
  if (start == 0) return absl::OkStatus();
  if (s.repeats <= 1) {
    if (start < s.global_batches(n)) return absl::OkStatus();
    return InvalidArgumentCat("resuming after ", start,
                              " batches: the epoch has ", s.global_batches(n),
                              " batches of ", s.batch_size, " samples");
  }
  const uint64_t world = static_cast<uint64_t>(s.world);
  if (start % world == 0 && start / world < LocalBatches(s, n))
    return absl::OkStatus();
  return InvalidArgumentCat(
      "resuming after ", start,
      " batches with repeated_augmentations = ", s.repeats, ": each of the ",
      s.world, " ranks has ", LocalBatches(s, n),
      " batches, so it must be a multiple of ", s.world, " below ",
      LocalBatches(s, n) * world);
}

EpochOrder::EpochOrder(const LoaderSettings& s, uint32_t epoch, size_t n,
                       uint64_t start)
    : s_(s),
      samples_(n),
      start_(s.repeats <= 1 ? start : start / s.world),
      permutation_(s.seed, epoch, n) {
  const uint64_t world = static_cast<uint64_t>(s.world);
  if (s.repeats > 1) {
    batches_ = LocalBatches(s, n) - start_;
  } else {
    const uint64_t rest = s.global_batches(n) - start;
    batches_ = s.drop_last ? rest / world : (rest + world - 1) / world;
  }
}

uint64_t EpochOrder::Order(uint64_t position) const {
  return s_.shuffle ? permutation_(position) : position;
}

uint64_t EpochOrder::BatchNumber(size_t j) const {
  const uint64_t world = static_cast<uint64_t>(s_.world);
  if (s_.repeats <= 1) return start_ + s_.rank + j * world;
  return (start_ + j) * world + s_.rank;
}

size_t EpochOrder::BatchSamples(size_t j) const {
  if (s_.repeats <= 1) return s_.BatchSamples(BatchNumber(j), samples_);
  const size_t done = (start_ + j) * s_.batch_size;
  return std::min(s_.batch_size, LocalSamples(s_, samples_) - done);
}

size_t EpochOrder::samples() const {
  if (batches_ == 0) return 0;
  return (batches_ - 1) * s_.batch_size + BatchSamples(batches_ - 1);
}

EpochLoader::Position EpochOrder::PositionAfter(uint32_t epoch,
                                                size_t handed) const {
  if (handed >= batches_) return {uint64_t{epoch} + 1, 0};
  return {epoch, BatchesBefore(handed)};
}

bool EpochOrder::Padding(size_t j) const {
  return s_.repeats <= 1 && BatchNumber(j) >= s_.global_batches(samples_);
}

EpochOrder::Sample EpochOrder::At(size_t j, size_t pos) const {
  if (s_.repeats <= 1) {
    // Padding batches (past the epoch's end) wrap around to its start.
    const uint64_t index =
        Order((BatchNumber(j) * s_.batch_size + pos) % samples_);
    return {index, index};
  }
  // Position k of this rank's list is position rank + k * world of the
  // repeated list, which past n * r repeats its start.
  const uint64_t r = static_cast<uint64_t>(s_.repeats);
  const uint64_t k = (start_ + j) * s_.batch_size + pos;
  uint64_t q = static_cast<uint64_t>(s_.rank) + k * s_.world;
  q %= samples_ * r;
  const uint64_t index = Order(q / r);
  return {index, (q % r) * samples_ + index};
}

}  // namespace fusednorm
