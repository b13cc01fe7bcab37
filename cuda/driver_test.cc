// The driver API through the double (cuda/testing/fake_cuda.h): loading,
// missing entry points, errors as statuses naming the call, contexts pushed
// and popped around each call, registration, device memory, streams and
// events with copies that complete late, waits that block rather than spin,
// and a child made by fork() that never reaches the driver.
#include "cuda/driver.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda/context.h"
#include "cuda/device_pool.h"
#include "cuda/testing/fake_cuda_control.h"
#include "gtest/gtest.h"
#include "testing/expect_error.h"

namespace fusednorm {
namespace {

using ::absl::StatusCode;

std::shared_ptr<const CudaContext> Context() {
  absl::StatusOr<std::shared_ptr<const CudaContext>> c = CudaContext::Retain(0);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : nullptr;
}

// Page-aligned host memory of `bytes`, random non-zero bytes.
struct HostPages {
  explicit HostPages(size_t n) : bytes(n) {
    p = static_cast<uint8_t*>(mmap(nullptr, n, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    std::mt19937 rng(n);
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(rng() | 1);
  }
  ~HostPages() { munmap(p, bytes); }
  uint8_t* p;
  size_t bytes;
};

TEST(CudaDriver, LoadsAndInitializesTheLibraryNamed) {
  absl::StatusOr<const CudaDriver*> d = CudaDriver::Get();
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ((*d)->library(), CudaDriverLibrary());
  EXPECT_EQ(*CudaDriver::Get(), *d) << "one driver per process";
  const std::vector<std::string> init = FakeCuda::Get().Calls("cuInit");
  ASSERT_EQ(init.size(), 1u);
  EXPECT_EQ(init[0], "cuInit flags=0 -> 0");
}

TEST(CudaDriver, MissingLibraryOrEntryPointIsNamed) {
  ExpectError(CudaDriver::Load("/nonexistent/libcuda.so.1").status(),
              StatusCode::kFailedPrecondition,
              "the CUDA driver /nonexistent/libcuda.so.1 cannot be loaded");
  const std::string lib = CudaDriverLibrary();
  const std::string partial =
      lib.substr(0, lib.rfind('/') + 1) + "libfake_cuda_without_event_query.so";
  ExpectError(CudaDriver::Load(partial).status(),
              StatusCode::kFailedPrecondition, "no entry point cuEventQuery");
}

TEST(CudaDriver, InitFailureNamesTheCallAndTheDriversError) {
  FakeCuda::Get().Fail("cuInit", 1, 100);
  ExpectError(CudaDriver::Load(CudaDriverLibrary()).status(),
              StatusCode::kFailedPrecondition,
              "cuInit: CUDA_ERROR_NO_DEVICE (100, no CUDA-capable device is "
              "detected)");
}

TEST(CudaDriver, AnInitErrorOfADriverLoadedBeforeNamesFork) {
  ASSERT_TRUE(CudaDriver::Get().ok());  // the library is loaded already
  FakeCuda::Get().Fail("cuInit", 1, 3);
  ExpectError(CudaDriver::Load(CudaDriverLibrary()).status(),
              StatusCode::kFailedPrecondition,
              "cuInit: CUDA_ERROR_NOT_INITIALIZED (3, initialization error); "
              "the driver was loaded before, as in a child made by fork()");
}

TEST(CudaDriver, ResultsBecomeStatusesOfTheirKind) {
  const CudaDriver& d = **CudaDriver::Get();
  EXPECT_TRUE(d.Check(0, "cuMemAlloc_v2").ok());
  ExpectError(d.Check(2, "cuMemAlloc_v2"), StatusCode::kResourceExhausted,
              "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (2, out of memory)");
  ExpectError(d.Check(101, "cuDeviceGet"), StatusCode::kInvalidArgument,
              "CUDA_ERROR_INVALID_DEVICE");
  ExpectError(d.Check(100, "cuInit"), StatusCode::kFailedPrecondition,
              "CUDA_ERROR_NO_DEVICE");
  ExpectError(d.Check(700, "cuEventSynchronize"), StatusCode::kInternal,
              "cuEventSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS");
  ExpectError(d.Check(12345, "cuX"), StatusCode::kInternal,
              "cuX: an unknown error (12345, no description)");
}

TEST(CudaContext, RetainsAndReleasesThePrimaryContext) {
  const long before = FakeCuda::Get().Counts().contexts;
  {
    std::shared_ptr<const CudaContext> c = Context();
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(FakeCuda::Get().Counts().contexts, before + 1);
    EXPECT_EQ(c->device_name(), "fusednorm fake device 0");
  }
  EXPECT_EQ(FakeCuda::Get().Counts().contexts, before);
  ExpectError(CudaContext::Retain(1).status(), StatusCode::kInvalidArgument,
              "cuda_device = 1: the driver sees 1 CUDA device");
  ExpectError(CudaContext::Retain(-1).status(), StatusCode::kInvalidArgument,
              "cuda_device = -1");
}

TEST(CudaContext, RegistersPortableAndPopsTheContextAfterEachCall) {
  std::shared_ptr<const CudaContext> c = Context();
  ASSERT_NE(c, nullptr);
  HostPages host(3 * 4096);
  FakeCuda::Get().ClearLog();
  ASSERT_TRUE(c->RegisterHost(host.p, host.bytes).ok());
  EXPECT_TRUE(FakeCuda::Get().IsRegistered(host.p, host.bytes));
  const std::vector<std::string> calls =
      FakeCuda::Get().Calls("cuMemHostRegister_v2");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_NE(calls[0].find("bytes=12288 flags=1 -> 0"), std::string::npos)
      << calls[0];
  // The context is not left current: a call made without one is refused.
  CuDevicePtr p = 0;
  EXPECT_EQ(c->driver().api().mem_alloc(&p, 16), 201);
  ExpectError(
      c->RegisterHost(host.p + 4096, 4096), StatusCode::kInternal,
      "cuMemHostRegister_v2: CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED");
  ASSERT_TRUE(c->UnregisterHost(host.p).ok());
  EXPECT_FALSE(FakeCuda::Get().IsRegistered(host.p, 1));
  ExpectError(c->UnregisterHost(host.p), StatusCode::kInternal,
              "cuMemHostUnregister: CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED");
}

TEST(DeviceMemory, AllocatesFreesAndNamesTheSizeWhenRefused) {
  std::shared_ptr<const CudaContext> c = Context();
  ASSERT_NE(c, nullptr);
  const long before = FakeCuda::Get().Counts().allocations;
  {
    absl::StatusOr<DeviceMemory> m = DeviceMemory::Allocate(c, 1000);
    ASSERT_TRUE(m.ok()) << m.status();
    DeviceMemory moved = *std::move(m);
    EXPECT_EQ(moved.bytes(), 1000u);
    EXPECT_NE(moved.ptr(), 0u);
    EXPECT_EQ(FakeCuda::Get().Counts().allocations, before + 1);
    std::vector<uint8_t> back(2000);
    ExpectError(moved.CopyToHost(back.data(), 2000), StatusCode::kOutOfRange,
                "2000 bytes from device memory of 1000");
  }
  EXPECT_EQ(FakeCuda::Get().Counts().allocations, before);
  FakeCuda::Get().Fail("cuMemAlloc_v2", 1, 2);
  ExpectError(DeviceMemory::Allocate(c, 1000).status(),
              StatusCode::kResourceExhausted,
              "device memory of 1000 bytes on device 0: cuMemAlloc_v2: "
              "CUDA_ERROR_OUT_OF_MEMORY");
}

// A copy from registered memory completes only when its event does; the
// double sees a source changed before that.
TEST(CudaStream, CopiesFromRegisteredMemoryCompleteWithTheirEvent) {
  std::shared_ptr<const CudaContext> c = Context();
  ASSERT_NE(c, nullptr);
  FakeCuda::Get().SetEventDelay(2);
  HostPages host(8192);
  ASSERT_TRUE(c->RegisterHost(host.p, host.bytes).ok());
  auto stream = CudaStream::Create(c);
  auto event = CudaEvent::Create(c);
  auto dev = DeviceMemory::Allocate(c, host.bytes);
  ASSERT_TRUE(stream.ok() && event.ok() && dev.ok());
  const std::vector<uint8_t> sent(host.p, host.p + host.bytes);
  ASSERT_TRUE((*stream)->CopyToDevice(dev->ptr(), host.p, host.bytes).ok());
  ASSERT_TRUE((*event)->Record(**stream).ok());
  std::vector<uint8_t> back(host.bytes, 0);
  ASSERT_TRUE(dev->CopyToHost(back.data(), back.size()).ok());
  EXPECT_NE(back, sent) << "a queued copy is not done yet";
  EXPECT_FALSE(*(*event)->Done());
  EXPECT_FALSE(*(*event)->Done());
  EXPECT_TRUE(*(*event)->Done()) << "the third query completes it";
  ASSERT_TRUE(dev->CopyToHost(back.data(), back.size()).ok());
  EXPECT_EQ(back, sent);
  const long violations = FakeCuda::Get().Counts().violations;
  ASSERT_TRUE((*stream)->CopyToDevice(dev->ptr(), host.p, host.bytes).ok());
  ASSERT_TRUE((*event)->Record(**stream).ok());
  host.p[100] ^= 0xFF;  // the bug the double is there to catch
  ASSERT_TRUE((*event)->Synchronize().ok());
  EXPECT_EQ(FakeCuda::Get().Counts().violations, violations + 1);
  ASSERT_TRUE(c->UnregisterHost(host.p).ok());
}

TEST(CudaStream, PageableCopiesAreDoneOnReturnAndErrorsNameTheCall) {
  std::shared_ptr<const CudaContext> c = Context();
  ASSERT_NE(c, nullptr);
  std::vector<uint8_t> host(5000, 0x5A);
  auto stream = CudaStream::Create(c);
  auto dev = DeviceMemory::Allocate(c, host.size());
  ASSERT_TRUE(stream.ok() && dev.ok());
  ASSERT_TRUE((*stream)->CopyToDevice(dev->ptr(), host.data(), 5000).ok());
  std::vector<uint8_t> back(5000, 0);
  ASSERT_TRUE(dev->CopyToHost(back.data(), 5000).ok());
  EXPECT_EQ(back, host);
  ExpectError((*stream)->CopyToDevice(dev->ptr(), host.data(), 5001),
              StatusCode::kInvalidArgument,
              "cuMemcpyHtoDAsync_v2: CUDA_ERROR_INVALID_VALUE");
  FakeCuda::Get().Fail("cuEventSynchronize", 1, 700);
  ExpectError((*stream)->Synchronize(), StatusCode::kInternal,
              "cuEventSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS");
  FakeCuda::Get().Fail("cuEventCreate", 1, 2);
  ExpectError(CudaEvent::Create(c).status(), StatusCode::kResourceExhausted,
              "cuEventCreate");
}

double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

TEST(CudaEvent, WaitingForALongCopyBlocksTheThreadInsteadOfSpinning) {
  std::shared_ptr<const CudaContext> c = Context();
  HostPages host(8192);
  ASSERT_TRUE(c->RegisterHost(host.p, host.bytes).ok());
  DeviceMemory device = *DeviceMemory::Allocate(c, host.bytes);
  auto stream = *CudaStream::Create(c);
  auto event = *CudaEvent::Create(c);
  EXPECT_EQ(FakeCuda::Get().Calls("cuEventCreate").back(),
            "cuEventCreate flags=3 -> 0")
      << "CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING";
  FakeCuda::Get().SetCopyMilliseconds(400);
  ASSERT_TRUE(stream->CopyToDevice(device.ptr(), host.p, host.bytes).ok());
  FakeCuda::Get().SetCopyMilliseconds(0);
  ASSERT_TRUE(event->Record(*stream).ok());
  const auto start = std::chrono::steady_clock::now();
  const double cpu = ThreadCpuSeconds();
  ASSERT_TRUE(event->Synchronize().ok());
  const double used = ThreadCpuSeconds() - cpu;
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_GE(waited, 0.3) << "the copy takes 400 ms";
  EXPECT_LT(used, 0.1) << "a thread waiting " << waited << " s used " << used
                       << " s of CPU: it spins";
  std::vector<uint8_t> back(host.bytes);
  ASSERT_TRUE(device.CopyToHost(back.data(), back.size()).ok());
  EXPECT_EQ(std::memcmp(back.data(), host.p, host.bytes), 0);
  ASSERT_TRUE(c->UnregisterHost(host.p).ok());
}

// What a child made by fork() gets from the CUDA path: each check's failure
// as a bit, 0 when all hold.
int ChildChecks(const std::shared_ptr<const CudaContext>& inherited,
                void* registered) {
  const size_t calls = FakeCuda::Get().Log().size();
  int failed = 0;
  const auto names_fork = [](const absl::Status& s) {
    return s.code() == StatusCode::kFailedPrecondition &&
           s.message().find("a child made by fork()") != std::string::npos;
  };
  if (!names_fork(CudaDriver::Get().status())) failed |= 1;
  if (!names_fork(CudaContext::Retain(0).status())) failed |= 2;
  if (!names_fork(inherited->UnregisterHost(registered))) failed |= 4;
  if (!names_fork(CudaStream::Create(inherited).status())) failed |= 8;
  if (inherited->device_name() != "?") failed |= 16;
  if (FakeCuda::Get().Log().size() != calls)
    failed |= 32;  // the driver was called
  return failed;
}

TEST(CudaDriver, AChildMadeByForkGetsAnErrorNamingForkAndNeverCallsIt) {
  std::shared_ptr<const CudaContext> c = Context();
  HostPages host(4096);
  ASSERT_TRUE(c->RegisterHost(host.p, host.bytes).ok());
  const long contexts = FakeCuda::Get().Counts().contexts;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int failed = ChildChecks(c, host.p);
    c.reset();  // releasing the inherited context calls nothing either
    if (FakeCuda::Get().Counts().contexts != contexts) failed |= 64;
    _exit(failed);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "the checks in ChildChecks() whose bits are set failed";
  EXPECT_TRUE(CudaDriver::Get().ok()) << "the parent keeps its driver";
  EXPECT_TRUE(c->UnregisterHost(host.p).ok());
}

TEST(DeviceBufferPool, LendsEachBufferOnceGrowsAndFreesWithTheLastLease) {
  std::shared_ptr<const CudaContext> c = Context();
  ASSERT_NE(c, nullptr);
  const long before = FakeCuda::Get().Counts().allocations;
  DeviceBuffer kept;
  {
    auto pool = DeviceBufferPool::Create(c, 4096);
    ASSERT_TRUE(pool.ok()) << pool.status();
    std::vector<DeviceBuffer> lent;
    for (int i = 0; i < 3; ++i) {
      lent.push_back(*(*pool)->Acquire());
      for (int j = 0; j < i; ++j) EXPECT_NE(lent[j].ptr(), lent[i].ptr());
    }
    EXPECT_EQ((*pool)->allocated(), 3u);
    const CuDevicePtr returned = lent[1].ptr();
    lent.erase(lent.begin() + 1);
    DeviceBuffer again = *(*pool)->Acquire();
    EXPECT_EQ(again.ptr(), returned);
    EXPECT_EQ(again.bytes(), 4096u);
    EXPECT_EQ((*pool)->allocated(), 3u);
    kept = std::move(again);
    FakeCuda::Get().Fail("cuMemAlloc_v2", 1, 2);
    lent.clear();
    lent.push_back(*(*pool)->Acquire());  // a free one: no allocation
    lent.push_back(*(*pool)->Acquire());
    EXPECT_EQ((*pool)->Acquire().status().code(),
              absl::StatusCode::kResourceExhausted);
  }
  EXPECT_EQ(FakeCuda::Get().Counts().allocations, before + 3)
      << "a lease keeps its pool";
  EXPECT_FALSE(DeviceBufferPool::Create(c, 0).ok());
  kept = DeviceBuffer();
  EXPECT_EQ(FakeCuda::Get().Counts().allocations, before);
}

}  // namespace
}  // namespace fusednorm
