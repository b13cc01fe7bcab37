// EpochOrder (epoch_order.h).
#include "pipeline/epoch_order.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "rng/philox.h"

namespace fusednorm {
namespace {

// The epoch's shuffle draws from this sample index's stream, which no sample
// uses (sample streams are far below it).
constexpr uint64_t kShuffleStream = (uint64_t{1} << 63) - 1;

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

EpochOrder::EpochOrder(const LoaderSettings& s, uint32_t epoch, size_t n)
    : s_(s), samples_(n) {
  order_.resize(n);
  for (size_t i = 0; i < n; ++i) order_[i] = i;
  if (s.shuffle && n > 1) {
    SampleStream r(s.seed, epoch, kShuffleStream);  // Fisher-Yates
    for (size_t i = n - 1; i > 0; --i)
      std::swap(order_[i], order_[r.UniformInt(0, static_cast<int64_t>(i))]);
  }
  if (s.repeats <= 1) {
    for (const uint64_t g : s.RankBatches(n)) {
      batch_numbers_.push_back(g);
      batch_samples_.push_back(s.BatchSamples(g, n));
    }
    return;
  }
  const size_t mine = LocalSamples(s, n);
  for (size_t j = 0, done = 0; done < mine; ++j) {
    batch_numbers_.push_back(j * static_cast<uint64_t>(s.world) + s.rank);
    batch_samples_.push_back(std::min(s.batch_size, mine - done));
    done += batch_samples_.back();
  }
}

bool EpochOrder::Padding(size_t j) const {
  return s_.repeats <= 1 && batch_numbers_[j] >= s_.global_batches(samples_);
}

EpochOrder::Sample EpochOrder::At(size_t j, size_t pos) const {
  if (s_.repeats <= 1) {
    // Padding batches (past the epoch's end) wrap around to its start.
    const uint64_t index =
        order_[(batch_numbers_[j] * s_.batch_size + pos) % samples_];
    return {index, index};
  }
  // Position k of this rank's list is position rank + k * world of the
  // repeated list, which past n * r repeats its start.
  const uint64_t r = static_cast<uint64_t>(s_.repeats);
  const uint64_t k = j * s_.batch_size + pos;
  uint64_t q = static_cast<uint64_t>(s_.rank) + k * s_.world;
  q %= samples_ * r;
  const uint64_t index = order_[q / r];
  return {index, (q % r) * samples_ + index};
}

}  // namespace fusednorm
