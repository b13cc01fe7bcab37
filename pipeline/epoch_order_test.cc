// EpochOrder's resumed epochs: on the same layout the batches left are the
// uninterrupted run's; on another world size every batch not yet handed out
// comes exactly once (the padding and drop_last rules applied to what is
// left), each with the same samples and streams, every rank as many.
#include "pipeline/epoch_order.h"

#include <map>
#include <set>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace fusednorm {
namespace {

LoaderSettings Settings(size_t batch, int rank, int world, bool drop_last,
                        int repeats = 1) {
  LoaderSettings s;
  s.batch_size = batch;
  s.seed = 11;
  s.rank = rank;
  s.world = world;
  s.drop_last = drop_last;
  s.repeats = repeats;
  return s;
}

// A batch's samples: (index, stream) at each position.
using Samples = std::vector<std::pair<uint64_t, uint64_t>>;

Samples BatchOf(const EpochOrder& o, size_t j) {
  Samples out;
  for (size_t pos = 0; pos < o.BatchSamples(j); ++pos) {
    const EpochOrder::Sample s = o.At(j, pos);
    out.emplace_back(s.index, s.stream);
  }
  return out;
}

// Every real batch of the uninterrupted single-process epoch by number.
std::map<uint64_t, Samples> WholeEpoch(size_t n, size_t batch) {
  const EpochOrder o(Settings(batch, 0, 1, false), 3, n);
  std::map<uint64_t, Samples> out;
  for (size_t j = 0; j < o.batches(); ++j)
    out[o.BatchNumber(j)] = BatchOf(o, j);
  return out;
}

struct Case {
  size_t n, batch;
  int world, new_world;
  bool drop_last;
  size_t steps;  // batches every rank handed out before the stop
};

void CheckResume(const Case& c) {
  SCOPED_TRACE(testing::Message()
               << "n " << c.n << " batch " << c.batch << " world " << c.world
               << " -> " << c.new_world << " drop_last " << c.drop_last
               << " steps " << c.steps);
  const std::map<uint64_t, Samples> whole = WholeEpoch(c.n, c.batch);
  std::map<uint64_t, int> seen;  // real batches handed out, by number
  uint64_t start = 0;
  for (int r = 0; r < c.world; ++r) {
    const EpochOrder o(Settings(c.batch, r, c.world, c.drop_last), 3, c.n);
    ASSERT_LT(c.steps, o.batches());
    for (size_t j = 0; j < c.steps; ++j) {
      if (!o.Padding(j)) ++seen[o.BatchNumber(j)];
    }
    start = o.BatchesBefore(c.steps);
  }
  const LoaderSettings any = Settings(c.batch, 0, c.new_world, c.drop_last);
  ASSERT_TRUE(EpochOrder::CheckStart(any, c.n, start).ok());
  size_t batches = 0;
  for (int r = 0; r < c.new_world; ++r) {
    const EpochOrder o(Settings(c.batch, r, c.new_world, c.drop_last), 3, c.n,
                       start);
    if (r == 0) batches = o.batches();
    EXPECT_EQ(o.batches(), batches) << "rank " << r;
    for (size_t j = 0; j < o.batches(); ++j) {
      const uint64_t b = o.BatchNumber(j);
      if (o.Padding(j)) {
        EXPECT_GE(b, whole.size());
        continue;
      }
      ++seen[b];
      EXPECT_EQ(BatchOf(o, j), whole.at(b)) << "batch " << b;
    }
  }
  // Each batch once; without drop_last all of them, with it all but the
  // last incomplete round of what was left.
  const uint64_t rest = whole.size() - start;
  const uint64_t kept =
      c.drop_last ? start + rest / c.new_world * c.new_world : whole.size();
  for (uint64_t b = 0; b < whole.size(); ++b) {
    const int expected = b < kept ? 1 : 0;
    EXPECT_EQ(seen[b], expected) << "batch " << b;
  }
}

TEST(EpochOrderTest, ResumedEpochsDeliverEveryBatchLeftOnce) {
  for (const size_t n : {23, 24, 61}) {
    for (const size_t batch : {1, 5}) {
      for (const int world : {1, 2, 3, 4}) {
        for (const int new_world : {1, 2, 3, 4}) {
          for (const bool drop_last : {false, true}) {
            const size_t local = EpochOrder::LocalBatches(
                Settings(batch, 0, world, drop_last), n);
            for (size_t steps = 0; steps < local; ++steps)
              CheckResume({n, batch, world, new_world, drop_last, steps});
          }
        }
      }
    }
  }
}

// On the same layout a resumed rank's batches are the rest of its own.
TEST(EpochOrderTest, SameLayoutResumesWithTheSameBatches) {
  for (const int repeats : {1, 3}) {
    for (const int world : {1, 2, 3}) {
      for (const bool drop_last : {false, true}) {
        for (int r = 0; r < world; ++r) {
          const LoaderSettings s = Settings(7, r, world, drop_last, repeats);
          const EpochOrder whole(s, 5, 600);
          for (size_t steps = 0; steps < whole.batches(); steps += 9) {
            const uint64_t start = whole.BatchesBefore(steps);
            ASSERT_TRUE(EpochOrder::CheckStart(s, 600, start).ok());
            const EpochOrder rest(s, 5, 600, start);
            ASSERT_EQ(rest.batches(), whole.batches() - steps);
            EXPECT_EQ(rest.samples() + steps * 7, whole.samples());
            for (size_t j = 0; j < rest.batches(); ++j) {
              EXPECT_EQ(rest.BatchNumber(j), whole.BatchNumber(steps + j));
              EXPECT_EQ(rest.Padding(j), whole.Padding(steps + j));
              EXPECT_EQ(BatchOf(rest, j), BatchOf(whole, steps + j));
              EXPECT_EQ(rest.BatchesBefore(j), whole.BatchesBefore(steps + j));
            }
          }
        }
      }
    }
  }
}

TEST(EpochOrderTest, StartsWithoutABatchLeftAreRefused) {
  const LoaderSettings s = Settings(5, 0, 2, false);
  EXPECT_TRUE(EpochOrder::CheckStart(s, 23, 0).ok());
  EXPECT_TRUE(EpochOrder::CheckStart(s, 23, 4).ok());
  const absl::Status past = EpochOrder::CheckStart(s, 23, 5);
  EXPECT_EQ(past.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(past.message().find("after 5 batches: the epoch has 5 batches"),
            absl::string_view::npos)
      << past;
  // With repeats the lists depend on the world size: whole steps only.
  const LoaderSettings r = Settings(5, 0, 2, false, 2);
  EXPECT_TRUE(EpochOrder::CheckStart(r, 600, 4).ok());
  const absl::Status odd = EpochOrder::CheckStart(r, 600, 3);
  EXPECT_NE(odd.message().find("must be a multiple of 2"),
            absl::string_view::npos)
      << odd;
  EXPECT_FALSE(EpochOrder::CheckStart(r, 600, 2 * 52).ok());
}

// The order is the same whole or in parts, and without shuffling it is
// the identity.
TEST(EpochOrderTest, ShuffledOrderIsAPermutationAndUnshuffledIsIdentity) {
  LoaderSettings s = Settings(4, 0, 1, false);
  std::set<uint64_t> indices;
  const EpochOrder o(s, 1, 1001);
  for (size_t j = 0; j < o.batches(); ++j) {
    for (size_t p = 0; p < o.BatchSamples(j); ++p)
      indices.insert(o.At(j, p).index);
  }
  EXPECT_EQ(indices.size(), 1001u);
  EXPECT_EQ(*indices.rbegin(), 1000u);
  s.shuffle = false;
  const EpochOrder plain(s, 1, 1001);
  for (size_t j = 0; j < plain.batches(); ++j) {
    for (size_t p = 0; p < plain.BatchSamples(j); ++p)
      EXPECT_EQ(plain.At(j, p).index, j * 4 + p);
  }
}

}  // namespace
}  // namespace fusednorm
