// Philox against published known answers, the uniform mappings' ranges and
// statistics, and the streams' independence.
#include "rng/philox.h"

#include <cmath>
#include <cstdint>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace fusednorm {
namespace {

// Random123's published known-answer vectors for philox4x32-10 (its
// kat_vectors file).
struct Kat {
  PhiloxCounter counter;
  PhiloxKey key;
  PhiloxCounter expected;
};

TEST(Philox4x32_10, KnownAnswers) {
  const Kat kats[] = {
      {{0x00000000, 0x00000000, 0x00000000, 0x00000000},
       {0x00000000, 0x00000000},
       {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat& kat : kats) {
    EXPECT_EQ(Philox4x32_10(kat.counter, kat.key), kat.expected);
  }
}

TEST(UniformFloat, SeedCompatibleMapping) {
  // key = (seed lo, seed hi), counter = (offset lo, offset hi, 0, 0), (word0 >>
  // 8) * 2^-24.
  const uint64_t seed = 0x0123456789abcdefull;
  const uint64_t offset = 0x00000007fffffff5ull;
  const PhiloxCounter block =
      Philox4x32_10({0xfffffff5u, 0x7u, 0, 0}, {0x89abcdefu, 0x01234567u});
  const float expected = static_cast<float>(block[0] >> 8) / 16777216.0f;
  EXPECT_EQ(UniformFloat(seed, offset), expected);
  // The all-zero KAT: word0 = 0x6627e8d5.
  EXPECT_EQ(UniformFloat(0, 0), static_cast<float>(0x6627e8u) / 16777216.0f);

  Generator gen(seed);
  EXPECT_EQ(gen.seed(), seed);
  for (uint64_t i = 0; i < 100; ++i)
    EXPECT_EQ(gen.Uniform(), UniformFloat(seed, i));
  EXPECT_EQ(gen.NextOffset(5), 100u);
  EXPECT_EQ(gen.NextOffset(1), 105u);
}

TEST(WordToUniformFloat, EndsOfRange) {
  EXPECT_EQ(WordToUniformFloat(0), 0.0f);
  EXPECT_LT(WordToUniformFloat(0xffffffffu), 1.0f);
  EXPECT_EQ(WordToUniformFloat(0xffffffffu), 1.0f - 1.0f / 16777216.0f);
}

// Chi-square over 64 equal bins, 10^6 draws: 63 degrees of freedom; the 1e-6
// upper tail is about 130, so a correct generator fails this once in a million
// runs (it is seeded, so in fact never).
double ChiSquare(const std::vector<int64_t>& counts, double expected) {
  double chi2 = 0;
  for (int64_t c : counts) chi2 += (c - expected) * (c - expected) / expected;
  return chi2;
}

TEST(UniformFloat, ChiSquare64Bins) {
  constexpr int kBins = 64, kDraws = 1000000;
  std::vector<int64_t> gen_counts(kBins), stream_counts(kBins);
  Generator gen(42);
  SampleStream stream(42, 3, 17);
  for (int i = 0; i < kDraws; ++i) {
    const float a = gen.Uniform(), b = stream.Uniform();
    ASSERT_GE(a, 0.0f);
    ASSERT_LT(a, 1.0f);
    ASSERT_GE(b, 0.0f);
    ASSERT_LT(b, 1.0f);
    ++gen_counts[static_cast<int>(a * kBins)];
    ++stream_counts[static_cast<int>(b * kBins)];
  }
  EXPECT_LT(ChiSquare(gen_counts, kDraws / kBins), 130.0);
  EXPECT_LT(ChiSquare(stream_counts, kDraws / kBins), 130.0);
}

// A modulo-biased draw over n = 2^31 + 1 puts twice the mass on the values
// below 2^32 - 2 * n... i.e. the lower half gets ~2/3 of all draws. Bins of the
// range, scaled.
void ExpectUniformInts(int64_t lo, int64_t hi, int bins) {
  constexpr int kDraws = 600000;
  SampleStream stream(7, 0, 1);
  const double n = static_cast<double>(hi - lo) + 1;
  std::vector<int64_t> counts(bins);
  for (int i = 0; i < kDraws; ++i) {
    const int64_t v = stream.UniformInt(lo, hi);
    ASSERT_GE(v, lo);
    ASSERT_LE(v, hi);
    ++counts[static_cast<int>((v - lo) / n * bins)];
  }
  // Bins hold (almost) equal numbers of values when n >> bins, or exactly one
  // when n == bins.
  EXPECT_LT(ChiSquare(counts, static_cast<double>(kDraws) / bins),
            bins + 10 * std::sqrt(2.0 * bins))
      << "range [" << lo << ", " << hi << "]";
}

TEST(UniformInt, NoBiasOnAwkwardRanges) {
  ExpectUniformInts(0, 2, 3);                   // n = 3
  ExpectUniformInts(-5, -3, 3);                 // negative bounds
  ExpectUniformInts(0, (int64_t{1} << 31), 2);  // n = 2^31 + 1: halves equal
  ExpectUniformInts(10, 10 + (int64_t{1} << 31), 64);
  ExpectUniformInts(0, (int64_t{3} << 30) - 1,
                    3);  // n = 3 * 2^30: modulo bias would be 2:1
  ExpectUniformInts(0, (int64_t{1} << 40), 16);  // the 64-bit path
}

TEST(UniformInt, HiIsInclusiveAndDegenerateRange) {
  SampleStream stream(1, 0, 0);
  std::set<int64_t> seen;
  for (int i = 0; i < 1000; ++i) seen.insert(stream.UniformInt(3, 5));
  EXPECT_EQ(seen, (std::set<int64_t>{3, 4, 5}));
  for (int i = 0; i < 10; ++i) EXPECT_EQ(stream.UniformInt(9, 9), 9);
  EXPECT_GE(stream.UniformInt(INT64_MIN, INT64_MAX),
            INT64_MIN);  // full range is allowed
  Generator gen(5);
  std::set<int64_t> gen_seen;
  for (int i = 0; i < 1000; ++i) gen_seen.insert(gen.UniformInt(-1, 1));
  EXPECT_EQ(gen_seen, (std::set<int64_t>{-1, 0, 1}));
}

TEST(SampleStream, ReproducibleAndUsesAllFourWords) {
  SampleStream a(99, 2, 12345), b(99, 2, 12345);
  std::vector<uint32_t> words;
  for (int i = 0; i < 40; ++i) {
    const uint32_t w = a.NextWord();
    EXPECT_EQ(w, b.NextWord());
    words.push_back(w);
  }
  EXPECT_EQ(a.blocks_used(), 10u);
  // Word k is word k % 4 of block k / 4 at counter (block, epoch, idx lo, idx
  // hi | 2^31).
  for (uint32_t block = 0; block < 10; ++block) {
    const PhiloxCounter out =
        Philox4x32_10({block, 2, 12345, 0x80000000u}, KeyFromSeed(99));
    for (int j = 0; j < 4; ++j) EXPECT_EQ(words[block * 4 + j], out[j]);
  }
}

TEST(SampleStream, DistinctSamplesEpochsAndSeedsDiffer) {
  std::set<std::vector<uint32_t>> prefixes;
  int made = 0;
  for (uint64_t seed : {0ull, 1ull, 1ull << 32}) {
    for (uint32_t epoch : {0u, 1u, 7u}) {
      for (uint64_t index : {0ull, 1ull, 1ull << 32, (1ull << 62) + 5}) {
        SampleStream s(seed, epoch, index);
        std::vector<uint32_t> words(8);
        for (auto& w : words) w = s.NextWord();
        prefixes.insert(words);
        ++made;
      }
    }
  }
  EXPECT_EQ(prefixes.size(), static_cast<size_t>(made));
}

TEST(SampleStream, CountersDisjointFromGenerator) {
  // The generator's counter has word 3 == 0; a stream's always has the top bit
  // set. Check the words too: stream (seed, 0, 0) must not reproduce the
  // generator's offsets 0..3.
  SampleStream s(5, 0, 0);
  const PhiloxCounter gen_block = Philox4x32_10({0, 0, 0, 0}, KeyFromSeed(5));
  const PhiloxCounter stream_block = {s.NextWord(), s.NextWord(), s.NextWord(),
                                      s.NextWord()};
  EXPECT_NE(gen_block, stream_block);
}

TEST(Generator, NextOffsetIsThreadSafe) {
  Generator gen(1);
  constexpr int kThreads = 8, kCalls = 20000;
  std::vector<std::vector<uint64_t>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) got[t].push_back(gen.NextOffset(3));
    });
  }
  for (auto& th : threads) th.join();
  std::set<uint64_t> all;
  for (const auto& v : got) all.insert(v.begin(), v.end());
  ASSERT_EQ(all.size(), static_cast<size_t>(
                            kThreads * kCalls));  // no offset handed out twice
  EXPECT_EQ(*all.rbegin(), 3ull * (kThreads * kCalls - 1));  // and none skipped
  EXPECT_EQ(gen.NextOffset(1), 3ull * kThreads * kCalls);
}

}  // namespace
}  // namespace fusednorm
