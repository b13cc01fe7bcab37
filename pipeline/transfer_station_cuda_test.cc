// TransferStation with pinning = cuda, through the driver double: every
// slot registered once (portable, its whole pages) when it is mapped, and
// unregistered before it is unmapped; the driver's refusals are statuses
// that leave nothing registered or retained; registered slots are shared
// mappings that a child made by fork() cannot acquire.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "cuda/testing/fake_cuda_control.h"
#include "gtest/gtest.h"
#include "pipeline/transfer_station.h"
#include "testing/expect_error.h"

namespace fusednorm {
namespace {

// The addresses in the log's calls of `call` that succeeded.
std::multiset<std::string> Addresses(const std::string& call) {
  std::multiset<std::string> out;
  for (const std::string& line : FakeCuda::Get().Calls(call)) {
    if (line.size() < 5 || line.compare(line.size() - 5, 5, " -> 0") != 0)
      continue;
    const size_t p = line.find("p=");
    out.insert(line.substr(p + 2, line.find(' ', p) - p - 2));
  }
  return out;
}

TEST(CudaTransferStation, RegistersEverySlotOnceAndUnregistersItAtTheEnd) {
  FakeCuda& fake = FakeCuda::Get();
  fake.ClearLog();
  const FakeCudaCounts before = fake.Counts();
  {
    auto ts = TransferStation::Create(10000, Pinning::kCuda, 2);
    ASSERT_TRUE(ts.ok()) << ts.status();
    EXPECT_EQ(fake.Counts().registered, before.registered + 2);
    std::vector<Slot> lent;
    for (int i = 0; i < 4; ++i) {  // two prepared, two more mapped
      lent.push_back(*(*ts)->Acquire());
      EXPECT_TRUE(fake.IsRegistered(lent.back().data(), 12288))
          << "slot " << i << ": its whole pages";
    }
    EXPECT_EQ(fake.Counts().registered, before.registered + 4);
    lent.clear();
    lent.push_back(*(*ts)->Acquire());  // reused: not registered again
    EXPECT_EQ(Addresses("cuMemHostRegister_v2").size(), 4u);
    for (const std::string& line : fake.Calls("cuMemHostRegister_v2"))
      EXPECT_NE(line.find("bytes=12288 flags=1 -> 0"), std::string::npos)
          << line << ": portable, for every context";
    EXPECT_EQ(fake.Counts().contexts, before.contexts + 1);
  }
  EXPECT_EQ(fake.Counts().registered, before.registered);
  EXPECT_EQ(fake.Counts().contexts, before.contexts);
  EXPECT_EQ(Addresses("cuMemHostUnregister"), Addresses("cuMemHostRegister_v2"))
      << "each registered slot unregistered once";
}

TEST(CudaTransferStation, RefusalsAreStatusesThatLeaveNothingBehind) {
  FakeCuda& fake = FakeCuda::Get();
  const FakeCudaCounts before = fake.Counts();
  fake.Fail("cuMemHostRegister_v2", 2, 2);  // the second slot
  ExpectError(TransferStation::Create(4096, Pinning::kCuda, 3).status(),
              absl::StatusCode::kResourceExhausted,
              "pinned = cuda: registering a transfer slot of 4096 bytes: "
              "cuMemHostRegister_v2: CUDA_ERROR_OUT_OF_MEMORY");
  EXPECT_EQ(fake.Counts().registered, before.registered);
  EXPECT_EQ(fake.Counts().contexts, before.contexts);

  auto ts = TransferStation::Create(4096, Pinning::kCuda, 1);
  ASSERT_TRUE(ts.ok()) << ts.status();
  Slot first = *(*ts)->Acquire();
  fake.Fail("cuMemHostRegister_v2", 1, 2);
  ExpectError((*ts)->Acquire().status(), absl::StatusCode::kResourceExhausted,
              "cuMemHostRegister_v2");
  EXPECT_EQ((*ts)->slots_mapped(), 1u) << "the refused slot is unmapped";
  EXPECT_TRUE((*ts)->Acquire().ok()) << "the next one is registered";

  ExpectError(TransferStation::Create(4096, Pinning::kCuda, 1, 3).status(),
              absl::StatusCode::kInvalidArgument,
              "pinned = cuda: cuda_device = 3: the driver sees 1 CUDA device");
}

// The permissions /proc/self/maps shows for the mapping holding `p`
// ("rw-s" for a shared one, "rw-p" for a private one), or "".
std::string Permissions(const void* p) {
  const auto at = reinterpret_cast<uintptr_t>(p);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    unsigned long start = 0, end = 0;
    char perms[5] = {};
    if (std::sscanf(line.c_str(), "%lx-%lx %4s", &start, &end, perms) == 3 &&
        start <= at && at < end)
      return perms;
  }
  return "";
}

TEST(CudaTransferStation, RegisteredSlotsAreSharedMappingsOthersPrivate) {
  for (Pinning pinning : {Pinning::kCuda, Pinning::kNone}) {
    auto ts = TransferStation::Create(8192, pinning);
    ASSERT_TRUE(ts.ok()) << ts.status();
    Slot slot = *(*ts)->Acquire();
    EXPECT_EQ(Permissions(slot.data()),
              pinning == Pinning::kCuda ? "rw-s" : "rw-p");
  }
}

TEST(CudaTransferStation, AChildMadeByForkCannotAcquireRegisteredSlots) {
  auto cuda = TransferStation::Create(4096, Pinning::kCuda, 2);
  auto none = TransferStation::Create(4096, Pinning::kNone, 1);
  ASSERT_TRUE(cuda.ok() && none.ok());
  Slot held = *(*cuda)->Acquire();  // one lent, one free at the fork
  held.data()[0] = 1;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int failed = 0;
    const absl::Status s = (*cuda)->Acquire().status();
    if (s.code() != absl::StatusCode::kFailedPrecondition ||
        s.message().find("pinned = cuda: the CUDA driver") != 0 ||
        s.message().find("fork()") == std::string::npos)
      failed |= 1;
    if (!(*none)->Acquire().ok()) failed |= 2;  // works as anywhere
    held.data()[0] = 2;                         // shared: the parent sees it
    _exit(failed);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "bit 1: the registered slot was lent";
  EXPECT_EQ(held.data()[0], 2) << "a registered slot's pages are shared";
  EXPECT_TRUE((*cuda)->Acquire().ok()) << "the parent acquires as before";
}

}  // namespace
}  // namespace fusednorm
