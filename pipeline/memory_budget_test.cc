// MemoryBudget: small samples never take from it, large ones wait while
// they do not fit, one larger than the limit runs alone, and a cancel wakes
// every waiter.
#include "pipeline/memory_budget.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace fusednorm {
namespace {

using std::chrono::milliseconds;

TEST(MemoryBudgetTest, OnlySamplesAboveTheFreeBytesTakeFromIt) {
  const MemoryBudget budget(100, 1000);
  EXPECT_FALSE(budget.Needs(0));
  EXPECT_FALSE(budget.Needs(100));
  EXPECT_TRUE(budget.Needs(101));
}

TEST(MemoryBudgetTest, WaitsUntilTheBytesFitUnderTheLimit) {
  MemoryBudget budget(0, 1000);
  ASSERT_TRUE(budget.Acquire(600));
  std::atomic<bool> took{false};
  std::thread waiter([&] {
    EXPECT_TRUE(budget.Acquire(500));
    took = true;
  });
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_FALSE(took) << "600 + 500 bytes passed the limit of 1000";
  budget.Release(600);
  waiter.join();
  EXPECT_TRUE(took);
  EXPECT_EQ(budget.peak(), 600);
  budget.Release(500);
}

TEST(MemoryBudgetTest, ASampleLargerThanTheLimitRunsAlone) {
  MemoryBudget budget(0, 1000);
  ASSERT_TRUE(budget.Acquire(5000));  // nothing else held: it goes
  std::atomic<bool> took{false};
  std::thread waiter([&] {
    EXPECT_TRUE(budget.Acquire(1));
    took = true;
  });
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_FALSE(took);
  budget.Release(5000);
  waiter.join();
  budget.Release(1);
  EXPECT_EQ(budget.peak(), 5000);
}

TEST(MemoryBudgetTest, ThreadsNeverHoldMoreThanTheLimitTogether) {
  MemoryBudget budget(0, 1000);
  std::atomic<int64_t> held{0}, most{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      const int64_t bytes = 300 + 50 * t;
      for (int i = 0; i < 50; ++i) {
        ASSERT_TRUE(budget.Acquire(bytes));
        const int64_t now = held += bytes;
        int64_t m = most;
        while (now > m && !most.compare_exchange_weak(m, now)) {
        }
        std::this_thread::yield();
        held -= bytes;
        budget.Release(bytes);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_LE(most, 1000);
  EXPECT_LE(budget.peak(), 1000);
  EXPECT_GT(budget.peak(), 0);
}

TEST(MemoryBudgetTest, CancelWakesWaitersAndRefusesLaterCalls) {
  MemoryBudget budget(0, 1000);
  ASSERT_TRUE(budget.Acquire(1000));
  std::atomic<int> refused{0};
  std::vector<std::thread> waiters;
  for (int i = 0; i < 3; ++i) {
    waiters.emplace_back([&] {
      if (!budget.Acquire(10)) ++refused;
    });
  }
  std::this_thread::sleep_for(milliseconds(50));
  budget.Cancel();
  for (std::thread& t : waiters) t.join();
  EXPECT_EQ(refused, 3);
  EXPECT_FALSE(budget.Acquire(1));
  budget.Release(1000);
}

}  // namespace
}  // namespace fusednorm
