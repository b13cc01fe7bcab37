// EpochPermutation: a bijection for every size, and as uniform as a
// Fisher-Yates shuffle by the statistics the loader's order needs (where
// each sample lands, which samples end up next to each other), with
// chi-square thresholds that a Fisher-Yates shuffle passes and two
// classic bad shuffles fail.
#include "pipeline/epoch_permutation.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "rng/philox.h"

namespace fusednorm {
namespace {

using Shuffle = std::function<std::vector<uint64_t>(uint32_t epoch, size_t n)>;

std::vector<uint64_t> Feistel(uint32_t epoch, size_t n) {
  const EpochPermutation p(7, epoch, n);
  std::vector<uint64_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = p(i);
  return order;
}

std::vector<uint64_t> FisherYates(uint32_t epoch, size_t n) {
  std::vector<uint64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  SampleStream r(7, epoch, 12345);
  for (size_t i = n - 1; i > 0; --i)
    std::swap(order[i], order[r.UniformInt(0, static_cast<int64_t>(i))]);
  return order;
}

// Swaps each place with any place: positions come out biased.
std::vector<uint64_t> NaiveSwaps(uint32_t epoch, size_t n) {
  std::vector<uint64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  SampleStream r(7, epoch, 12345);
  for (size_t i = 0; i < n; ++i)
    std::swap(order[i], order[r.UniformInt(0, static_cast<int64_t>(n) - 1)]);
  return order;
}

// A random rotation: positions uniform, neighbours never.
std::vector<uint64_t> Rotation(uint32_t epoch, size_t n) {
  SampleStream r(7, epoch, 12345);
  const uint64_t k = r.UniformInt(0, static_cast<int64_t>(n) - 1);
  std::vector<uint64_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = (i + k) % n;
  return order;
}

// Chi-square over `counts` against a uniform expectation.
double ChiSquare(const std::vector<double>& counts, double expected) {
  double x = 0;
  for (const double c : counts) x += (c - expected) * (c - expected) / expected;
  return x;
}

// The chi-square value that `df` degrees of freedom exceed with
// probability 1e-4 (Wilson-Hilferty).
double Threshold(double df) {
  const double z = 3.719, a = 2.0 / (9.0 * df);
  return df * std::pow(1 - a + z * std::sqrt(a), 3);
}

// Where each sample lands: counts[index * n + position] over `epochs`.
bool PositionsUniform(const Shuffle& shuffle, size_t n, uint32_t epochs) {
  std::vector<double> counts(n * n);
  for (uint32_t e = 0; e < epochs; ++e) {
    const std::vector<uint64_t> order = shuffle(e, n);
    for (size_t p = 0; p < n; ++p) counts[order[p] * n + p] += 1;
  }
  const double x = ChiSquare(counts, double(epochs) / n);
  return x < Threshold(double(n - 1) * (n - 1));
}

// Which sample follows which: counts[a * n + b] of b right after a.
bool NeighboursUniform(const Shuffle& shuffle, size_t n, uint32_t epochs) {
  std::vector<double> counts;
  for (uint32_t e = 0; e < epochs; ++e) {
    const std::vector<uint64_t> order = shuffle(e, n);
    counts.resize(n * n);
    for (size_t p = 0; p + 1 < n; ++p) counts[order[p] * n + order[p + 1]] += 1;
  }
  std::vector<double> off_diagonal;
  for (size_t a = 0; a < n; ++a) {
    for (size_t b = 0; b < n; ++b) {
      if (a != b) off_diagonal.push_back(counts[a * n + b]);
    }
  }
  const double x = ChiSquare(off_diagonal, double(epochs) / n);
  return x < Threshold(double(n) * (n - 1) - 1);
}

TEST(EpochPermutationTest, IsABijectionForEverySize) {
  for (const size_t n : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 100, 255, 256, 257,
                         1000, 4097, 65537}) {
    for (uint32_t epoch : {0u, 1u, 99u}) {
      const EpochPermutation p(3, epoch, n);
      std::vector<bool> seen(n);
      for (size_t i = 0; i < n; ++i) {
        const uint64_t v = p(i);
        ASSERT_LT(v, n) << "n " << n;
        ASSERT_FALSE(seen[v]) << "n " << n << " value " << v;
        seen[v] = true;
      }
    }
  }
}

TEST(EpochPermutationTest, HugeSizesStayInRangeAndDistinct) {
  for (const uint64_t n : {uint64_t{1000000007}, uint64_t{1} << 40,
                           (uint64_t{1} << 40) + 1, ~uint64_t{0}}) {
    const EpochPermutation p(3, 0, n);
    std::vector<uint64_t> values;
    for (uint64_t i = 0; i < 2000; ++i) {
      values.push_back(p(i));
      values.push_back(p(n - 1 - i));
    }
    for (const uint64_t v : values) ASSERT_LT(v, n);
    std::sort(values.begin(), values.end());
    EXPECT_EQ(std::adjacent_find(values.begin(), values.end()), values.end());
  }
}

TEST(EpochPermutationTest, DependsOnSeedAndEpoch) {
  const size_t n = 1000;
  std::vector<uint64_t> a(n), b(n), c(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = EpochPermutation(1, 0, n)(i);
    b[i] = EpochPermutation(2, 0, n)(i);
    c[i] = EpochPermutation(1, 1, n)(i);
  }
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
  size_t fixed = 0;
  for (size_t i = 0; i < n; ++i) fixed += a[i] == i;
  EXPECT_LT(fixed, 10u);  // about 1 expected
}

TEST(EpochPermutationTest, ThresholdsPassFisherYatesAndFailBadShuffles) {
  for (const uint32_t epochs : {4000u, 20000u}) {
    for (const size_t n : {3, 5, 10}) {
      EXPECT_TRUE(PositionsUniform(FisherYates, n, epochs)) << n;
      EXPECT_TRUE(NeighboursUniform(FisherYates, n, epochs)) << n;
      EXPECT_FALSE(PositionsUniform(NaiveSwaps, n, epochs)) << n;
      EXPECT_FALSE(NeighboursUniform(Rotation, n, epochs)) << n;
    }
  }
}

// An epoch of n < 1024 samples costs about 1024 network passes, so only a
// few sizes run the 20000 epochs that tell the orders of a network over
// fewer bits from uniform ones (8 rounds over 3 bits fail at n = 5 and 6).
TEST(EpochPermutationTest, AsUniformAsFisherYatesOnSmallEpochs) {
  for (const size_t n : {2, 3, 5, 6, 10, 17, 64}) {
    const uint32_t epochs = n <= 10 ? 20000 : 4000;
    EXPECT_TRUE(PositionsUniform(Feistel, n, epochs)) << "positions, n " << n;
    EXPECT_TRUE(NeighboursUniform(Feistel, n, epochs)) << "neighbours, n " << n;
  }
}

// On a large epoch: the samples at a few positions, and at two adjacent
// ones, in 50 (and 10 x 10) bins of the index range.
TEST(EpochPermutationTest, AsUniformAsFisherYatesOnALargeEpoch) {
  const uint64_t n = 1000003;
  const uint32_t epochs = 4000;
  for (const uint64_t p : {uint64_t{0}, uint64_t{1}, n / 2, n - 1}) {
    std::vector<double> bins(50);
    for (uint32_t e = 0; e < epochs; ++e)
      bins[EpochPermutation(7, e, n)(p) * 50 / n] += 1;
    EXPECT_LT(ChiSquare(bins, epochs / 50.0), Threshold(49)) << p;
  }
  std::vector<double> pairs(100);
  for (uint32_t e = 0; e < epochs; ++e) {
    const EpochPermutation perm(7, e, n);
    pairs[perm(12345) * 10 / n * 10 + perm(12346) * 10 / n] += 1;
  }
  EXPECT_LT(ChiSquare(pairs, epochs / 100.0), Threshold(99));
}

}  // namespace
}  // namespace fusednorm
