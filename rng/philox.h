// Philox4x32-10 counter-based random numbers (Salmon et al., SC'11) and the
// generators fusednorm draws every random decision from.
//
// Everything here is a pure function of (key, counter), so results never depend
// on thread count or scheduling. Two ways to address the counter space, with
// disjoint counters:
//
// 1. Generator(seed) / UniformFloat(seed, offset): the seed-compatible mapping.
//      key     = (seed & 0xffffffff, seed >> 32)
//      counter = (offset & 0xffffffff, offset >> 32, 0, 0)
//      float   = (word0 >> 8) * 2^-24, in [0, 1)
//    Generator::NextOffset(n) reserves n consecutive offsets atomically.
//
// 2. SampleStream(seed, epoch, sample_index): one private stream per sample.
//      key     = (seed & 0xffffffff, seed >> 32)
//      counter = (block, epoch, index & 0xffffffff, (index >> 32) | 0x80000000)
//    `block` counts Philox blocks within the stream (0, 1, 2, ...), and all
//    four output words of each block are used in order. Distinct (epoch,
//    sample_index) pairs have distinct counter[1..3], so their streams never
//    share a counter; the top bit of counter[3] keeps them apart from the
//    Generator's counters (which have counter[3] == 0). sample_index must be <
//    2^63 and a stream may use at most 2^32 blocks (2^34 words).
//
// Integer convention, everywhere in fusednorm: UniformInt(lo, hi) is over the
// CLOSED range [lo, hi] (hi inclusive), and is exactly uniform (Lemire's
// multiply-and-reject method).
#ifndef FUSEDNORM_RNG_PHILOX_H_
#define FUSEDNORM_RNG_PHILOX_H_

#include <array>
#include <atomic>
#include <cstdint>

namespace fusednorm {

using PhiloxCounter = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;

// Returns the Philox4x32 block for `counter` under `key`, after 10 rounds.
PhiloxCounter Philox4x32_10(const PhiloxCounter& counter, const PhiloxKey& key);

// Returns the key both counter layouts use for `seed`.
inline PhiloxKey KeyFromSeed(uint64_t seed) {
  return {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
}

// Maps a 32-bit word to a float in [0, 1) with 24 random bits: (word >> 8) *
// 2^-24.
inline float WordToUniformFloat(uint32_t word) {
  return static_cast<float>(word >> 8) * (1.0f / 16777216.0f);
}

// Returns the seed-compatible uniform float in [0, 1) for (seed, offset).
float UniformFloat(uint64_t seed, uint64_t offset);

namespace rng_internal {

// Draws an exactly uniform integer in [lo, hi] from `next_word` (a callable
// returning uint32_t), consuming one word per try (two when the range exceeds
// 2^32).
template <typename NextWord>
int64_t UniformIntFromWords(int64_t lo, int64_t hi, NextWord&& next_word) {
  // Range size minus one, computed in unsigned arithmetic so [INT64_MIN,
  // INT64_MAX] works.
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span <= 0xffffffffull) {
    const uint64_t n = span + 1;  // in [1, 2^32]
    if (n == (1ull << 32)) return lo + static_cast<int64_t>(next_word());
    // Lemire: m = x * n; the high word is uniform once low words below 2^32 mod
    // n are rejected.
    const uint32_t threshold = static_cast<uint32_t>((1ull << 32) % n);
    for (;;) {
      const uint64_t m = static_cast<uint64_t>(next_word()) * n;
      if (static_cast<uint32_t>(m) >= threshold) {
        return static_cast<int64_t>(static_cast<uint64_t>(lo) + (m >> 32));
      }
    }
  }
  const auto next64 = [&] {
    const uint64_t a = next_word();
    return (a << 32) | next_word();
  };
  if (span == ~0ull) return static_cast<int64_t>(next64());
  const uint64_t n = span + 1;
  const uint64_t threshold = (0 - n) % n;  // 2^64 mod n
  for (;;) {
    const unsigned __int128 m = static_cast<unsigned __int128>(next64()) * n;
    if (static_cast<uint64_t>(m) >= threshold) {
      return static_cast<int64_t>(static_cast<uint64_t>(lo) +
                                  static_cast<uint64_t>(m >> 64));
    }
  }
}

}  // namespace rng_internal

// The seed-compatible generator: a seed and an atomic offset. Thread-safe.
class Generator {
 public:
  explicit Generator(uint64_t seed) : seed_(seed) {}
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  uint64_t seed() const { return seed_; }

  // Reserves `n` consecutive offsets and returns the first. Safe to call
  // concurrently; each offset is handed out exactly once.
  uint64_t NextOffset(uint64_t n) {
    return offset_.fetch_add(n, std::memory_order_relaxed);
  }

  // Returns UniformFloat(seed(), NextOffset(1)).
  float Uniform() { return UniformFloat(seed_, NextOffset(1)); }

  // Returns an exactly uniform integer in [lo, hi] (hi inclusive); requires lo
  // <= hi. Uses word 0 of the Philox block at each offset it reserves.
  int64_t UniformInt(int64_t lo, int64_t hi);

 private:
  const uint64_t seed_;
  std::atomic<uint64_t> offset_{0};
};

// A private stream of random words for one sample: (seed, epoch, sample_index).
// Not thread-safe; each worker makes its own. Cheap to construct (no Philox
// call until used).
// Sample indices are below this: the stream's fourth counter word keeps its
// top bit for itself, so 2^63 + k would be sample k's stream.
inline constexpr uint64_t kSampleIndexLimit = uint64_t{1} << 63;

class SampleStream {
 public:
  SampleStream(uint64_t seed, uint32_t epoch, uint64_t sample_index);

  // Returns the next 32-bit word of the stream.
  uint32_t NextWord() {
    if (next_ == 4) Refill();
    return block_[next_++];
  }

  // Returns a float in [0, 1) from the next word: (word >> 8) * 2^-24.
  float Uniform() { return WordToUniformFloat(NextWord()); }

  // torch.empty(1).uniform_(lo, hi).item(): a float in [lo, hi), computed
  // in float32 as torch does (u * (hi - lo) + lo), so every draw is a value
  // torchvision's could be. lo, hi and hi - lo must be within float's range.
  double UniformFloat32(double lo, double hi) {
    const float from = static_cast<float>(lo);
    const float to = static_cast<float>(hi);
    return static_cast<float>(Uniform() * (to - from) + from);
  }

  // Returns a double in [0, 1) with 53 random bits from the next two words.
  double Uniform53() {
    const uint32_t a = NextWord() >> 5, b = NextWord() >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
  }

  // Returns an exactly uniform integer in [lo, hi] (hi inclusive); requires lo
  // <= hi.
  int64_t UniformInt(int64_t lo, int64_t hi) {
    return rng_internal::UniformIntFromWords(lo, hi,
                                             [this] { return NextWord(); });
  }

  // Number of Philox blocks generated so far.
  uint32_t blocks_used() const { return counter_[0]; }

 private:
  void Refill();

  PhiloxKey key_;
  PhiloxCounter counter_;  // counter_[0] is the next block to generate.
  PhiloxCounter block_{};
  int next_ = 4;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_RNG_PHILOX_H_
