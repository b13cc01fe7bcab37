// EpochPermutation (epoch_permutation.h).
#include "pipeline/epoch_permutation.h"

#include "rng/philox.h"

namespace fusednorm {
namespace {

// The stream the keys come from: far above every sample's.
constexpr uint64_t kOrderStream = (uint64_t{1} << 63) - 1;

// A 64-bit finalizer (every input bit moves every output bit).
uint64_t Mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

uint64_t Mask(int bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

}  // namespace

EpochPermutation::EpochPermutation(uint64_t seed, uint32_t epoch, uint64_t n)
    : n_(n) {
  bits_ = 10;  // small domains mix too little (see the header)
  while (bits_ < 64 && (uint64_t{1} << bits_) < n) ++bits_;
  SampleStream stream(seed, epoch, kOrderStream);
  for (uint64_t& key : keys_) {
    const uint64_t high = stream.NextWord();
    key = (high << 32) | stream.NextWord();
  }
}

uint64_t EpochPermutation::Network(uint64_t x) const {
  int low_bits = bits_ / 2, high_bits = bits_ - low_bits;
  for (const uint64_t key : keys_) {
    const uint64_t low = x & Mask(low_bits), high = x >> low_bits;
    const uint64_t mixed = (high ^ Mix(low ^ key)) & Mask(high_bits);
    x = (low << high_bits) | mixed;
    const int t = low_bits;  // the parts swap sizes
    low_bits = high_bits;
    high_bits = t;
  }
  return x;
}

uint64_t EpochPermutation::operator()(uint64_t position) const {
  if (n_ <= 1) return 0;
  uint64_t x = position;
  do {
    x = Network(x);
  } while (x >= n_);
  return x;
}

}  // namespace fusednorm
