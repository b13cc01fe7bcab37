// The epoch's order of its samples as a function: position -> sample, in
// O(1) time and memory, so that an epoch of any size needs no array and a
// resumed or sharded run can start anywhere in it.
//
// It is a keyed Feistel network over b-bit numbers, 2^b the smallest power
// of two >= max(n, 1024): a number is split into a high and a low part (of
// b - b/2 and b/2 bits); each round replaces it by (low, high XOR F(low)),
// so the parts swap sizes from round to round, and every round is a
// bijection of the b-bit numbers. F is a 64-bit mixing function of the
// part and the round's key; the kRounds keys are drawn from the stream
// (seed, epoch, 2^63 - 1), which no sample uses. Cycle-walking (applying
// the network again while the result is >= n) turns the permutation of
// 2^b numbers into one of 0..n-1, in fewer than two steps on average
// (1024 / n for small n: an epoch's order costs at most about 1024 network
// passes more than n). Networks over fewer than 10 bits, or with fewer
// rounds, give orders whose statistics tell them from a uniform shuffle's
// (where each sample lands, which follows which) in a few hundred
// thousand epochs; these pass the same tests as Fisher-Yates
// (epoch_permutation_test.cc).
#ifndef FUSEDNORM_PIPELINE_EPOCH_PERMUTATION_H_
#define FUSEDNORM_PIPELINE_EPOCH_PERMUTATION_H_

#include <array>
#include <cstdint>

namespace fusednorm {

class EpochPermutation {
 public:
  static constexpr int kRounds = 12;

  // The order of epoch `epoch` of `n` samples under `seed`.
  EpochPermutation(uint64_t seed, uint32_t epoch, uint64_t n);

  // The sample at `position` (< n).
  uint64_t operator()(uint64_t position) const;

 private:
  uint64_t Network(uint64_t x) const;

  uint64_t n_;
  int bits_ = 0;  // b
  std::array<uint64_t, kRounds> keys_{};
};

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_EPOCH_PERMUTATION_H_
