// TransferStation: page-aligned slots, lent and returned, never lent twice,
// alive while a lease is; pinning is either done or a clear error.
#include "pipeline/transfer_station.h"

#include <unistd.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "core/memory.h"
#include "gtest/gtest.h"

namespace fusednorm {
namespace {

TEST(TransferStation, PageAlignedWritableSlots) {
  auto ts = TransferStation::Create(10000, Pinning::kNone, 3);
  ASSERT_TRUE(ts.ok()) << ts.status();
  EXPECT_EQ((*ts)->slots_mapped(), 3u);
  std::vector<Slot> lent;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<Slot> s = (*ts)->Acquire();
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(s->data()) % sysconf(_SC_PAGESIZE),
              0u);
    EXPECT_EQ(s->bytes(), 10000u);
    std::memset(s->data(), i + 1, s->bytes());
    lent.push_back(*std::move(s));
  }
  EXPECT_EQ((*ts)->slots_mapped(), 3u) << "the prepared slots are used first";
}

TEST(TransferStation, ALentSlotIsNeverLentAgain) {
  auto ts = TransferStation::Create(100, Pinning::kNone);
  ASSERT_TRUE(ts.ok());
  std::vector<Slot> lent;
  std::set<uint8_t*> seen;
  for (int i = 0; i < 5; ++i) {
    lent.push_back(*(*ts)->Acquire());
    EXPECT_TRUE(seen.insert(lent.back().data()).second)
        << "slot " << i << " was already lent";
  }
  EXPECT_EQ((*ts)->slots_mapped(), 5u) << "the pool grows while all are lent";
  uint8_t* returned = lent[2].data();
  lent.erase(lent.begin() + 2);  // destroying the lease returns the slot
  Slot again = *(*ts)->Acquire();
  EXPECT_EQ(again.data(), returned);
  EXPECT_EQ((*ts)->slots_mapped(), 5u);
}

TEST(TransferStation, ALeaseKeepsItsStationAlive) {
  Slot kept;
  {
    auto ts = TransferStation::Create(4096, Pinning::kNone);
    ASSERT_TRUE(ts.ok());
    kept = *(*ts)->Acquire();
  }  // the caller's reference is gone; the lease still holds the station
  std::memset(kept.data(), 7, kept.bytes());
  EXPECT_EQ(kept.data()[4095], 7);
  Slot moved = std::move(kept);
  EXPECT_FALSE(kept);
  EXPECT_EQ(moved.data()[0], 7);
}

// While an epoch uses the pool it keeps every slot; once none does, it keeps
// `keep` and unmaps the rest, the free ones at once and the lent ones as
// they come back.
TEST(TransferStation, IdlePoolsKeepOnlyWhatEpochsNeed) {
  auto ts = TransferStation::Create(100, Pinning::kNone, 2);
  ASSERT_TRUE(ts.ok());
  (*ts)->BeginUse();
  std::vector<Slot> lent;
  for (int i = 0; i < 6; ++i) lent.push_back(*(*ts)->Acquire());
  lent.resize(3);  // three come back while the epoch runs: all kept
  EXPECT_EQ((*ts)->slots_mapped(), 6u);
  (*ts)->BeginUse();  // a second epoch
  (*ts)->EndUse(3);
  EXPECT_EQ((*ts)->slots_mapped(), 6u) << "an epoch still uses the pool";
  (*ts)->EndUse(3);
  EXPECT_EQ((*ts)->slots_mapped(), 3u) << "the free ones beyond 3 unmapped";
  lent.clear();  // a consumer lets go of the whole epoch
  EXPECT_EQ((*ts)->slots_mapped(), 3u);
  (*ts)->BeginUse();
  for (int i = 0; i < 5; ++i) lent.push_back(*(*ts)->Acquire());
  EXPECT_EQ((*ts)->slots_mapped(), 5u) << "the next epoch grows it again";
  lent.pop_back();
  (*ts)->EndUse(3);  // one free slot to unmap, four still lent
  EXPECT_EQ((*ts)->slots_mapped(), 4u);
  lent.pop_back();  // comes back beyond 3: unmapped
  EXPECT_EQ((*ts)->slots_mapped(), 3u);
  lent.clear();  // the three kept
  EXPECT_EQ((*ts)->slots_mapped(), 3u);
  EXPECT_NE((*ts)->Acquire()->data(), nullptr);
  EXPECT_EQ((*ts)->slots_mapped(), 3u) << "a kept slot is lent again";
}

TEST(TransferStation, BadSizesAndPinning) {
  EXPECT_EQ(TransferStation::Create(0, Pinning::kNone).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      TransferStation::Create(size_t{1} << 40, Pinning::kNone).status().code(),
      absl::StatusCode::kInvalidArgument);
  // Pinned: either locked, or a clear error (never silently unpinned).
  auto pinned = TransferStation::Create(4096, Pinning::kMlock, 1);
  if (pinned.ok()) {
    EXPECT_EQ((*pinned)->pinning(), Pinning::kMlock);
  } else {
    EXPECT_EQ(pinned.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(std::string(pinned.status().message()).find("mlock"),
              std::string::npos)
        << pinned.status();
  }
}

// A slot larger than the memory left is an error before it is mapped: with
// MAP_POPULATE the kernel would kill the process instead.
TEST(TransferStation, ASlotPastTheMemoryLeftIsRefused) {
  const uint64_t left = AvailableMemoryBytes();
  const uint64_t slot = left + (uint64_t{1} << 30);
  if (left == 0 || slot >= (uint64_t{1} << 40)) {
    GTEST_SKIP() << "the memory left is unknown or near 1 TiB";
  }
  auto station =
      TransferStation::Create(static_cast<size_t>(slot), Pinning::kNone, 1);
  ASSERT_EQ(station.status().code(), absl::StatusCode::kResourceExhausted)
      << station.status();
  EXPECT_NE(std::string(station.status().message()).find("memory left"),
            std::string::npos)
      << station.status();
}

}  // namespace
}  // namespace fusednorm
