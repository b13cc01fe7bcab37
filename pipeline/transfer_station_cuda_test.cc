// TransferStation with pinning = cuda, through the driver double: every
// slot registered once (portable, its whole pages) when it is mapped, and
// unregistered before it is unmapped; the driver's refusals are statuses
// that leave nothing registered or retained.
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

}  // namespace
}  // namespace fusednorm
