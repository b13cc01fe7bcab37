// DeviceCopier through the driver double (cuda/testing/fake_cuda.h), whose
// copies from registered slots run only when their events complete and
// count a source changed before that as a violation: every batch copied
// once, in order, byte for byte; no slot refilled while its copy is queued;
// shutdown in the middle of an epoch; the driver's and the loader's errors.
#include "pipeline/device_copier.h"

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cuda/testing/fake_cuda_control.h"
#include "gtest/gtest.h"
#include "pipeline/preprocessor.h"
#include "testing/expect_error.h"

namespace fusednorm {
namespace {

using ::absl::StatusCode;

// The synthetic images, but sample `broken` cannot be read.
class BrokenDataset : public Dataset {
 public:
  BrokenDataset(size_t size, size_t broken)
      : inner_(MakeSyntheticDataset(size)), broken_(broken) {}
  std::string name() const override { return "broken"; }
  size_t size() const override { return inner_->size(); }
  int channels() const override { return inner_->channels(); }
  absl::Status Read(size_t index, SampleBuffer* buffer,
                    RawSample* out) const override {
    if (index == broken_)
      return absl::DataLossError(absl::StrCat("sample ", index, ": broken"));
    return inner_->Read(index, buffer, out);
  }

 private:
  std::unique_ptr<Dataset> inner_;
  size_t broken_;
};

constexpr size_t kSamples = 38;  // 10 batches of 4, the last one short

Preprocessor Make(Pinning pinning, size_t broken = SIZE_MAX) {
  PreprocessorBuilder b;
  b.dataset(std::make_shared<BrokenDataset>(kSamples, broken))
      .normalization(Preset::kImagenet)
      .train_transforms(RandomResizedCrop(24), RandomHorizontalFlip(),
                        RandomErasing(0.5))
      .val_transforms(CenterCrop(24))
      .batch_size(4)
      .threads(3)
      .slots(2)
      .seed(5)
      .shuffle(false)
      .pinning(pinning);
  absl::StatusOr<Preprocessor> p = b.Commit();
  EXPECT_TRUE(p.ok()) << p.status();
  return *std::move(p);
}

// Each batch's bytes, from the loader alone.
std::map<uint64_t, std::vector<uint8_t>> Reference(const Preprocessor& p,
                                                   uint32_t epoch = 0) {
  std::map<uint64_t, std::vector<uint8_t>> out;
  auto loader = p.StartEpoch(Split::kTrain, epoch);
  EXPECT_TRUE(loader.ok()) << loader.status();
  for (;;) {
    absl::StatusOr<BatchRef> b = (*loader)->Next();
    if (!b.ok() || *b == nullptr) break;
    out[(*b)->global_index].assign(
        (*b)->data, (*b)->data + (*b)->count * (*b)->sample_bytes);
  }
  return out;
}

std::unique_ptr<DeviceCopier> StartCopier(const Preprocessor& p,
                                          size_t ahead = 3) {
  absl::StatusOr<std::unique_ptr<EpochLoader>> loader =
      p.StartEpoch(Split::kTrain, 0);
  EXPECT_TRUE(loader.ok()) << loader.status();
  if (!loader.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<DeviceCopier>> c =
      DeviceCopier::Start(*std::move(loader), {0, ahead});
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *std::move(c) : nullptr;
}

// What the device holds for the batch.
std::vector<uint8_t> DeviceBytes(const DeviceBatch& d) {
  std::vector<uint8_t> out(d.batch->count * d.batch->sample_bytes, 0);
  EXPECT_TRUE(d.buffer.memory()->CopyToHost(out.data(), out.size()).ok());
  return out;
}

// The sources of the copies the double saw, in order.
std::vector<std::string> CopySources() {
  std::vector<std::string> out;
  for (const std::string& line :
       FakeCuda::Get().Calls("cuMemcpyHtoDAsync_v2")) {
    const size_t p = line.find("src=");
    out.push_back(line.substr(p + 4, line.find(' ', p) - p - 4));
  }
  return out;
}

std::string Address(const void* p) {
  char s[32];
  std::snprintf(s, sizeof(s), "%p", p);
  return s;
}

// Drains the copier: the batches in order, each checked against `ref` on
// the device; returns the slots' addresses in that order.
std::vector<std::string> Drain(
    DeviceCopier& copier, const std::map<uint64_t, std::vector<uint8_t>>& ref,
    std::chrono::milliseconds pause = std::chrono::milliseconds(0)) {
  std::vector<std::string> slots;
  for (uint64_t expect = 0;; ++expect) {
    std::this_thread::sleep_for(pause);  // the workers run ahead meanwhile
    absl::StatusOr<DeviceBatch> d = copier.Next();
    EXPECT_TRUE(d.ok()) << d.status();
    if (!d.ok() || d->batch == nullptr) {
      EXPECT_EQ(expect, ref.size());
      break;
    }
    EXPECT_EQ(d->batch->global_index, expect) << "in order";
    EXPECT_EQ(DeviceBytes(*d), ref.at(expect)) << "batch " << expect;
    slots.push_back(Address(d->batch->data));
  }
  return slots;
}

TEST(DeviceCopier, EveryBatchIsCopiedOnceInOrderByteForByte) {
  FakeCuda& fake = FakeCuda::Get();
  fake.SetEventDelay(2);
  const FakeCudaCounts start = fake.Counts();
  {
    const Preprocessor p = Make(Pinning::kCuda);
    const auto ref = Reference(p);
    ASSERT_EQ(ref.size(), 10u);
    const FakeCudaCounts before = fake.Counts();
    fake.ClearLog();
    std::vector<std::string> slots;
    {
      std::unique_ptr<DeviceCopier> copier = StartCopier(p);
      ASSERT_NE(copier, nullptr);
      slots = Drain(*copier, ref);
      const DeviceCopier::Stats s = copier->stats();
      EXPECT_EQ(s.copies, 10u);
      EXPECT_EQ(s.bytes, 38u * 24 * 24 * 3 * 4);
      EXPECT_LE(s.buffers, 4u) << "ahead + the one handed out";
    }
    EXPECT_EQ(CopySources(), slots) << "one copy per batch, in order";
    for (const std::string& line : fake.Calls("cuMemcpyHtoDAsync_v2"))
      EXPECT_NE(line.find("registered=1 -> 0"), std::string::npos) << line;
    const FakeCudaCounts after = fake.Counts();
    EXPECT_EQ(after.violations, before.violations);
    EXPECT_EQ(after.copies_done - before.copies_done, 10);
    // The Preprocessor keeps its slots registered for its next epochs (the
    // copier's epoch may have needed one more).
    EXPECT_GE(after.registered, before.registered);
    EXPECT_EQ(after.allocations, before.allocations);
    EXPECT_EQ(after.streams, before.streams);
    EXPECT_EQ(after.events, before.events);
  }
  const FakeCudaCounts end = fake.Counts();
  EXPECT_EQ(end.registered, start.registered) << "unregistered with it";
  EXPECT_EQ(end.contexts, start.contexts);
  EXPECT_EQ(end.violations, start.violations);
}

// A consumer whose work on a buffer is queued on a stream of its own hands
// the buffer back with ReleaseAfter(that stream) at once: the copy that
// reuses the buffer waits for that work on the device. The consumer's
// stream runs only at the end here, so a copy that did not wait would have
// overwritten every buffer before the reads of it ran.
TEST(DeviceCopier, ABufferReleasedAfterAStreamIsRewrittenOnlyAfterItsWork) {
  FakeCuda& fake = FakeCuda::Get();
  fake.SetEventDelay(2);
  const Preprocessor p = Make(Pinning::kCuda);
  const auto ref = Reference(p);
  auto context = CudaContext::Retain(0);
  ASSERT_TRUE(context.ok()) << context.status();
  auto consumer = CudaStream::Create(*context);
  ASSERT_TRUE(consumer.ok()) << consumer.status();
  std::unique_ptr<DeviceCopier> copier = StartCopier(p, /*ahead=*/1);
  ASSERT_NE(copier, nullptr);
  std::vector<std::vector<uint8_t>> seen;
  for (;;) {
    absl::StatusOr<DeviceBatch> d = copier->Next();
    ASSERT_TRUE(d.ok()) << d.status();
    if (d->batch == nullptr) break;
    seen.emplace_back(d->batch->count * d->batch->sample_bytes);
    ASSERT_TRUE(fake.QueueRead((*consumer)->handle(), d->buffer.ptr(),
                               seen.back().size(), seen.back().data()));
    ASSERT_TRUE(d->buffer.ReleaseAfter((*consumer)->handle()).ok());
    EXPECT_FALSE(d->buffer) << "the lease is handed back";
  }
  ASSERT_TRUE((*consumer)->Synchronize().ok());
  ASSERT_EQ(seen.size(), ref.size());
  for (size_t i = 0; i < seen.size(); ++i)
    EXPECT_EQ(seen[i], ref.at(i)) << "batch " << i << ": its buffer was "
                                  << "rewritten before the consumer's read";
  EXPECT_LE(copier->stats().buffers, 3u) << "the buffers are reused";
  EXPECT_FALSE(fake.Calls("cuStreamWaitEvent").empty());
}

// One copier, restarted for each epoch, keeps the context it retained, its
// stream and its device buffers; a restart mid-epoch cancels the rest.
TEST(DeviceCopier, RestartGoesOnWithTheSameContextStreamAndBuffers) {
  FakeCuda& fake = FakeCuda::Get();
  fake.SetEventDelay(2);
  const Preprocessor p = Make(Pinning::kCuda);
  std::vector<std::map<uint64_t, std::vector<uint8_t>>> refs;
  for (uint32_t e = 0; e < 4; ++e) refs.push_back(Reference(p, e));
  ASSERT_NE(refs[0], refs[1]) << "epochs must differ for the test to see";
  const auto epoch = [&](uint32_t e) {
    return *p.StartEpoch(Split::kTrain, e);
  };
  std::unique_ptr<DeviceCopier> copier = StartCopier(p);
  ASSERT_NE(copier, nullptr);
  fake.ClearLog();
  Drain(*copier, refs[0]);
  for (uint32_t e = 1; e < 3; ++e) {
    ASSERT_TRUE(copier->Restart(epoch(e)).ok());
    Drain(*copier, refs[e]);
    EXPECT_EQ(copier->stats().copies, 10u) << "epoch " << e << "'s alone";
  }
  ASSERT_TRUE(copier->Restart(epoch(9)).ok());
  ASSERT_TRUE(copier->Next().ok());  // then given up mid-epoch
  ASSERT_TRUE(copier->Restart(epoch(3)).ok());
  Drain(*copier, refs[3]);
  for (const char* call : {"cuStreamCreate", "cuDevicePrimaryCtxRetain",
                           "cuDevicePrimaryCtxRelease_v2"})
    EXPECT_TRUE(fake.Calls(call).empty()) << call << " between epochs";
  EXPECT_LE(fake.Calls("cuMemAlloc_v2").size(), 4u)
      << "ahead + 1 buffers at most, for all four epochs";
  EXPECT_TRUE(fake.Calls("cuMemFree_v2").empty());
  ExpectError(copier->Restart(nullptr), StatusCode::kInvalidArgument,
              "no loader");
}

// The Preprocessor keeps its slots from epoch to epoch: later epochs
// register no slot again (the pool may still grow by one where a consumer
// holds a batch while both slots fill) and unregister none.
TEST(DeviceCopier, LaterEpochsRegisterNoSlotAgain) {
  FakeCuda& fake = FakeCuda::Get();
  const Preprocessor p = Make(Pinning::kCuda);
  fake.ClearLog();
  for (int epoch = 0; epoch < 4; ++epoch) Reference(p);
  const std::vector<std::string> registered =
      fake.Calls("cuMemHostRegister_v2");
  std::set<std::string> addresses;
  for (const std::string& line : registered) {
    addresses.insert(line.substr(0, line.find(" bytes=")));
  }
  EXPECT_EQ(addresses.size(), registered.size()) << "a slot registered twice";
  EXPECT_GE(registered.size(), 2u);
  EXPECT_LE(registered.size(), 4u);
  EXPECT_TRUE(fake.Calls("cuMemHostUnregister").empty());
}

// Copies complete only when the consumer waits for them, and the consumer
// is slow: a slot let go before its copy completed would be refilled by the
// workers first.
TEST(DeviceCopier, NoSlotIsRefilledBeforeItsCopyCompleted) {
  FakeCuda& fake = FakeCuda::Get();
  fake.SetEventDelay(1 << 30);
  const Preprocessor p = Make(Pinning::kCuda);
  const auto ref = Reference(p);
  const long violations = fake.Counts().violations;
  {
    std::unique_ptr<DeviceCopier> copier = StartCopier(p, 4);
    ASSERT_NE(copier, nullptr);
    Drain(*copier, ref, std::chrono::milliseconds(15));
  }
  EXPECT_EQ(fake.Counts().violations, violations);
  fake.SetEventDelay(2);
}

TEST(DeviceCopier, UnregisteredSlotsAreCopiedByTheDriversStagingToo) {
  FakeCuda& fake = FakeCuda::Get();
  const Preprocessor p = Make(Pinning::kNone);
  const auto ref = Reference(p);
  fake.ClearLog();
  std::unique_ptr<DeviceCopier> copier = StartCopier(p);
  ASSERT_NE(copier, nullptr);
  Drain(*copier, ref);
  for (const std::string& line : fake.Calls("cuMemcpyHtoDAsync_v2"))
    EXPECT_NE(line.find("registered=0 -> 0"), std::string::npos) << line;
}

TEST(DeviceCopier, ShutdownMidEpochWaitsForTheCopiesAndFreesEverything) {
  FakeCuda& fake = FakeCuda::Get();
  fake.SetEventDelay(1 << 30);  // queued copies stay queued
  const FakeCudaCounts before = fake.Counts();
  {
    const Preprocessor p = Make(Pinning::kCuda);
    const auto ref = Reference(p);
    DeviceBatch kept;
    {
      std::unique_ptr<DeviceCopier> copier = StartCopier(p, 4);
      ASSERT_NE(copier, nullptr);
      kept = *copier->Next();
      ASSERT_NE(kept.batch, nullptr);
      while (copier->stats().copies < 4)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }  // three copies still queued: the destructor waits for them
    EXPECT_EQ(fake.Counts().pending_at_destroy, before.pending_at_destroy);
    EXPECT_EQ(fake.Counts().violations, before.violations);
    EXPECT_EQ(DeviceBytes(kept), ref.at(0)) << "a kept batch stays valid";
    EXPECT_GT(fake.Counts().registered, before.registered);
    kept = DeviceBatch();
    const FakeCudaCounts after = fake.Counts();
    EXPECT_EQ(after.allocations, before.allocations);
    EXPECT_EQ(after.streams, before.streams);
    EXPECT_EQ(after.events, before.events);
  }  // the Preprocessor, and with it its slots
  const FakeCudaCounts after = fake.Counts();
  EXPECT_EQ(after.registered, before.registered);
  EXPECT_EQ(after.contexts, before.contexts);
  fake.SetEventDelay(2);
}

TEST(DeviceCopier, CancelStopsTheEpoch) {
  const Preprocessor p = Make(Pinning::kCuda);
  std::unique_ptr<DeviceCopier> copier = StartCopier(p);
  ASSERT_NE(copier, nullptr);
  ASSERT_TRUE(copier->Next().ok());
  std::thread canceller([&] { copier->Cancel(); });
  canceller.join();
  ExpectError(copier->Next().status(), StatusCode::kCancelled, "cancelled");
  EXPECT_TRUE(copier->WaitReady(absl::Milliseconds(1)));
}

// Batches until the first error, all kept (so every copy needs a buffer of
// its own); returns the error.
absl::Status FirstError(DeviceCopier& copier, size_t* good) {
  std::vector<DeviceBatch> kept;
  for (;;) {
    absl::StatusOr<DeviceBatch> d = copier.Next();
    *good = kept.size();
    if (!d.ok()) return d.status();
    if (d->batch == nullptr) return absl::OkStatus();
    kept.push_back(*std::move(d));
  }
}

TEST(DeviceCopier, DriverErrorsAreStatusesAfterTheBatchesBeforeThem) {
  FakeCuda& fake = FakeCuda::Get();
  const Preprocessor p = Make(Pinning::kCuda);
  const long violations = fake.Counts().violations;
  const struct {
    const char* call;
    int nth;
    int code;
    StatusCode status;
    size_t good;
  } cases[] = {
      {"cuMemcpyHtoDAsync_v2", 3, 700, StatusCode::kInternal, 2},
      {"cuEventRecord", 2, 700, StatusCode::kInternal, 1},
      {"cuEventSynchronize", 1, 700, StatusCode::kInternal, 0},
      {"cuMemAlloc_v2", 2, 2, StatusCode::kResourceExhausted, 1},
  };
  for (const auto& c : cases) {
    fake.SetEventDelay(1 << 30);  // every batch waits in Next()
    fake.Fail(c.call, c.nth, c.code);
    std::unique_ptr<DeviceCopier> copier = StartCopier(p, 1);
    ASSERT_NE(copier, nullptr);
    size_t good = 0;
    const absl::Status st = FirstError(*copier, &good);
    ExpectError(st, c.status, c.call);
    EXPECT_EQ(good, c.good) << c.call;
    EXPECT_EQ(copier->Next().status(), st) << "the error stays";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(fake.Counts().violations, violations);
  fake.SetEventDelay(2);
}

TEST(DeviceCopier, LoaderErrorsAndBadOptions) {
  const Preprocessor p = Make(Pinning::kCuda, /*broken=*/21);  // batch 5
  std::unique_ptr<DeviceCopier> copier = StartCopier(p);
  ASSERT_NE(copier, nullptr);
  size_t good = 0;
  ExpectError(FirstError(*copier, &good), StatusCode::kDataLoss,
              "sample 21: broken");
  EXPECT_EQ(good, 5u);
  auto loader = p.StartEpoch(Split::kTrain, 0);
  ASSERT_TRUE(loader.ok());
  std::shared_ptr<EpochLoader> shared = *std::move(loader);
  ExpectError(DeviceCopier::Start(shared, {0, 0}).status(),
              StatusCode::kInvalidArgument, "ahead = 0 must be in 1..64");
  ExpectError(DeviceCopier::Start(shared, {5, 2}).status(),
              StatusCode::kInvalidArgument,
              "device copies: cuda_device = 5: the driver sees 1 CUDA device");
}

}  // namespace
}  // namespace fusednorm
