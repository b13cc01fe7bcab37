// Philox4x32-10 and the per-sample streams built on it (philox.h).
#include "rng/philox.h"

namespace fusednorm {
namespace {

constexpr uint32_t kMul0 = 0xD2511F53u;
constexpr uint32_t kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u;  // golden ratio
constexpr uint32_t kWeyl1 = 0xBB67AE85u;  // sqrt(3) - 1

inline void MulHiLo(uint32_t a, uint32_t b, uint32_t* hi, uint32_t* lo) {
  const uint64_t p = static_cast<uint64_t>(a) * b;
  *hi = static_cast<uint32_t>(p >> 32);
  *lo = static_cast<uint32_t>(p);
}

}  // namespace

PhiloxCounter Philox4x32_10(const PhiloxCounter& counter,
                            const PhiloxKey& key) {
  PhiloxCounter x = counter;
  uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {  // the key schedule: bump between rounds
      k0 += kWeyl0;
      k1 += kWeyl1;
    }
    uint32_t hi0, lo0, hi1, lo1;
    MulHiLo(kMul0, x[0], &hi0, &lo0);
    MulHiLo(kMul1, x[2], &hi1, &lo1);
    x = {hi1 ^ x[1] ^ k0, lo1, hi0 ^ x[3] ^ k1, lo0};
  }
  return x;
}

float UniformFloat(uint64_t seed, uint64_t offset) {
  const PhiloxCounter counter = {static_cast<uint32_t>(offset),
                                 static_cast<uint32_t>(offset >> 32), 0, 0};
  return WordToUniformFloat(Philox4x32_10(counter, KeyFromSeed(seed))[0]);
}

int64_t Generator::UniformInt(int64_t lo, int64_t hi) {
  return rng_internal::UniformIntFromWords(lo, hi, [this] {
    const uint64_t offset = NextOffset(1);
    const PhiloxCounter counter = {static_cast<uint32_t>(offset),
                                   static_cast<uint32_t>(offset >> 32), 0, 0};
    return Philox4x32_10(counter, KeyFromSeed(seed_))[0];
  });
}

SampleStream::SampleStream(uint64_t seed, uint32_t epoch, uint64_t sample_index)
    : key_(KeyFromSeed(seed)),
      counter_{0, epoch, static_cast<uint32_t>(sample_index),
               static_cast<uint32_t>(sample_index >> 32) | 0x80000000u} {}

void SampleStream::Refill() {
  block_ = Philox4x32_10(counter_, key_);
  ++counter_[0];
  next_ = 0;
}

}  // namespace fusednorm
