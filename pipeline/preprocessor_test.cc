// The pipeline: Commit's rules, byte-identical epochs for any thread count,
// shards, backpressure, errors reaching the consumer, shutdown, datasets.
#include "pipeline/preprocessor.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "codecs/encode.h"
#include "codecs/npy.h"
#include "data/shards.h"
#include "data/tar.h"
#include "gtest/gtest.h"
#include "testing/expect_error.h"
#include "testing/temp_dir.h"

namespace fusednorm {
namespace {

using ::absl::StatusCode;

// Every batch of an epoch: global batch number -> its bytes, labels and
// indices.
struct EpochResult {
  std::map<uint64_t, std::vector<uint8_t>> bytes;
  std::map<uint64_t, std::vector<int64_t>> labels;
  std::map<uint64_t, std::vector<uint64_t>> indices;
  std::set<uint64_t> padding;  // batches that pad a rank's share
};

EpochResult RunEpoch(const Preprocessor& p, Split split, uint32_t epoch) {
  EpochResult r;
  absl::StatusOr<std::unique_ptr<EpochLoader>> loader =
      p.StartEpoch(split, epoch);
  EXPECT_TRUE(loader.ok()) << loader.status();
  if (!loader.ok()) return r;
  for (;;) {
    absl::StatusOr<BatchRef> b = (*loader)->Next();
    EXPECT_TRUE(b.ok()) << b.status();
    if (!b.ok() || *b == nullptr) break;
    const Batch& batch = **b;
    r.bytes[batch.global_index].assign(
        batch.data, batch.data + batch.count * batch.sample_bytes);
    r.labels[batch.global_index] = batch.labels;
    r.indices[batch.global_index] = batch.sample_indices;
    if (batch.padding) r.padding.insert(batch.global_index);
  }
  return r;
}

PreprocessorBuilder SeedExample(std::shared_ptr<const Dataset> data) {
  PreprocessorBuilder b;
  b.dataset(std::move(data))
      .normalization(Preset::kImagenet)
      .train_transforms(RandomResizedCrop(48), RandomHorizontalFlip(),
                        RandomErasing(0.5))
      .val_transforms(Resize(56), CenterCrop(48))
      .batch_size(8)
      .seed(77);
  return b;
}

TEST(PreprocessorCommit, Rules) {
  auto data = std::shared_ptr<const Dataset>(MakeSyntheticDataset(20));
  {
    PreprocessorBuilder b;
    // A list's Normalize must say what the normalization says.
    b.dataset(data).train_transforms(
        RandomResizedCrop(32), Normalize({0.5, 0.5, 0.5}, {0.25, 0.25, 0.25}));
    ExpectError(b.Commit().status(), StatusCode::kInvalidArgument,
                "train_transforms position 1 (Normalize(mean=(0.5");
  }
  {
    // ... and no op but a flip may follow it (it works on the tensor).
    PreprocessorBuilder b;
    b.dataset(data).train_transforms(Normalize(), RandomResizedCrop(32));
    ExpectError(b.Commit().status(), StatusCode::kInvalidArgument,
                "train_transforms position 1 (RandomResizedCrop(size=(32, 32)"
                ", scale=(0.08, 1.0), ratio=(0.75, 1.3333333333333333), "
                "interpolation=bilinear, antialias=True)): after Normalize "
                "(position 0)");
  }
  {
    PreprocessorBuilder b;
    b.dataset(data)
        .train_transforms(CenterCrop(32), Normalize(), RandomHorizontalFlip())
        .val_transforms(CenterCrop(32));
    const absl::Status s = b.Commit().status();
    EXPECT_TRUE(s.ok()) << s;
  }
  {
    PreprocessorBuilder b;
    b.dataset(data)
        .train_transforms(CenterCrop(32))
        .val_transforms(CenterCrop(32), RandomErasing());
    ExpectError(b.Commit().status(), StatusCode::kInvalidArgument,
                "RandomErasing is for training only");
  }
  {
    // A flip the ops after it commute with (colour ops) is the fused op's;
    // before a crop it stays a real op, where it is.
    PreprocessorBuilder b;
    b.dataset(data)
        .train_transforms(RandomResizedCrop(32), RandomHorizontalFlip(0.25),
                          ColorJitter(FactorRange{0.5, 1.5}, {}, {}, {}),
                          RandomErasing(0.75))
        .val_transforms(RandomHorizontalFlip(), CenterCrop(32));
    absl::StatusOr<Preprocessor> p = b.Commit();
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(p->fused(Split::kTrain).flip_p(), 0.25);
    EXPECT_EQ(p->fused(Split::kTrain).erase().p, 0.75);
    EXPECT_EQ(p->fused(Split::kVal).flip_p(), 0.0);
    EXPECT_FALSE(p->fused(Split::kVal).erase().enabled);
    EXPECT_NE(p->Describe(Split::kVal)
                  .find("RandomHorizontalFlip(p=0.5) -> "
                        "CenterCrop"),
              std::string::npos)
        << p->Describe(Split::kVal);
    EXPECT_NE(
        p->Describe(Split::kTrain).find("RandomResizedCrop(size=(32, 32)"),
        std::string::npos);
    EXPECT_NE(p->Describe(Split::kTrain).find("-> FusedNormalization("),
              std::string::npos);
    ExpectError(b.Commit().status(), StatusCode::kFailedPrecondition,
                "already");
  }
  {
    PreprocessorBuilder b;
    b.dataset(data).train_transforms(Resize(40)).val_transforms(CenterCrop(8));
    ExpectError(b.Commit().status(), StatusCode::kInvalidArgument,
                "no transform fixes");
  }
  {
    PreprocessorBuilder b;
    b.dataset(data)
        .train_transforms(CenterCrop(8))
        .val_transforms(CenterCrop(8))
        .batch_size(0);
    ExpectError(b.Commit().status(), StatusCode::kInvalidArgument,
                "batch_size = 0");
  }
  {
    PreprocessorBuilder b;
    b.dataset(data)
        .train_transforms(CenterCrop(8))
        .val_transforms(CenterCrop(8))
        .shard(3, 3);
    ExpectError(b.Commit().status(), StatusCode::kInvalidArgument, "rank = 3");
  }
  {
    PreprocessorBuilder b;  // MNIST normalization on RGB images
    b.dataset(data)
        .normalization(Preset::kMnist)
        .train_transforms(CenterCrop(8))
        .val_transforms(CenterCrop(8));
    ExpectError(b.Commit().status(), StatusCode::kInvalidArgument,
                "1 channels");
  }
}

// Record-only ops are recognised by what they fuse, real ops check themselves,
// and the sample size comes from the last real op or sample_size.
TEST(PreprocessorCommit, RecordOnlyOpsAndSizes) {
  auto data = std::shared_ptr<const Dataset>(MakeSyntheticDataset(20));
  {
    // Two flips: the first a real op, the last the fused op's.
    PreprocessorBuilder b;
    b.dataset(data)
        .train_transforms(RandomHorizontalFlip(), CenterCrop(8),
                          RandomHorizontalFlip(0.1))
        .val_transforms(CenterCrop(8));
    absl::StatusOr<Preprocessor> p = b.Commit();
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(p->fused(Split::kTrain).flip_p(), 0.1);
    EXPECT_EQ(p->Describe(Split::kTrain)
                  .find("RandomHorizontalFlip(p=0.5) -> "
                        "CenterCrop"),
              0u)
        << p->Describe(Split::kTrain);
  }
  {
    PreprocessorBuilder b;
    b.dataset(data).train_transforms(CenterCrop(8), RandomErasing(),
                                     RandomErasing(0.2));
    ExpectError(b.Commit().status(), StatusCode::kInvalidArgument,
                "RandomErasing appears twice");
  }
  {
    PreprocessorBuilder b;  // erasing works on the normalized tensor
    b.dataset(data).train_transforms(RandomErasing(), CenterCrop(8));
    ExpectError(b.Commit().status(), StatusCode::kInvalidArgument,
                "train_transforms position 1 (CenterCrop(size=(8, 8))): after "
                "RandomErasing (position 0)");
  }
  {
    PreprocessorBuilder b;  // only flips may follow ToTensor
    b.dataset(data).train_transforms(CenterCrop(8), ToTensor(),
                                     RandomHorizontalFlip(), Grayscale(3));
    ExpectError(b.Commit().status(), StatusCode::kInvalidArgument,
                "train_transforms position 3 (Grayscale(num_output_channels=3)"
                "): after ToTensor (position 1)");
  }
  {
    PreprocessorBuilder b;  // a real op's parameters are checked at Commit
    b.dataset(data).train_transforms(RandomResizedCrop(8, 0.5, 0.25));
    ExpectError(b.Commit().status(), StatusCode::kInvalidArgument,
                "train_transforms position 0 (RandomResizedCrop(size=(8, 8)");
  }
  {
    PreprocessorBuilder b;  // a shorter-side Resize after a crop: 12x12
    b.dataset(data)
        .train_transforms(CenterCrop(8), Resize(12))
        .val_transforms(CenterCrop(8));
    absl::StatusOr<Preprocessor> p = b.Commit();
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(p->sample_size(Split::kTrain).height, 12);
    EXPECT_EQ(p->sample_size(Split::kTrain).width, 12);
  }
  {
    PreprocessorBuilder b;  // on images of many sizes, with nothing before
    b.dataset(data).train_transforms(Resize(12)).val_transforms(CenterCrop(8));
    ExpectError(b.Commit().status(), StatusCode::kInvalidArgument,
                "train_transforms: no transform fixes");
  }
  {
    PreprocessorBuilder b;
    b.dataset(data)
        .train_transforms(CenterCrop(8))
        .val_transforms(CenterCrop(8))
        .sample_size(8, 9);
    ExpectError(b.Commit().status(), StatusCode::kInvalidArgument,
                "train_transforms end in 8x8 but sample_size is 8x9");
  }
}

// A list that makes the tensor itself has Normalize after that, and a
// RandomErasing before it only to 0 (torchvision v2 erases the PIL image
// then); the earlier offender is named. A float conversion after the
// first (ToDtype after ToTensor) may follow both.
TEST(PreprocessorCommit, TensorOpsFollowTheListsOwnConversion) {
  auto data = std::shared_ptr<const Dataset>(MakeSyntheticDataset(20));
  const auto refused = [&](std::vector<std::unique_ptr<PreprocessOp>> list,
                           const std::string& message) {
    PreprocessorBuilder b;
    b.dataset(data).train_transforms(std::move(list));
    b.val_transforms(CenterCrop(8));
    ExpectError(b.Commit().status(), StatusCode::kInvalidArgument, message);
  };
  const auto list = [](auto... ops) {
    std::vector<std::unique_ptr<PreprocessOp>> l;
    (l.push_back(ops.Clone()), ...);
    return l;
  };
  const RandomErasing nonzero(0.5, 0.02, 0.33, 0.3, 3.3, {0.5});
  refused(list(CenterCrop(8), nonzero, ToTensor()),
          "train_transforms position 2 (ToTensor()): after RandomErasing "
          "(position 1) with value = (0.5): torchvision v1 fails on a PIL "
          "image there, v2 writes the value into its uint8 pixels: put "
          "RandomErasing after the conversion, or erase to 0");
  refused(list(CenterCrop(8), Normalize(), ToTensor()),
          "train_transforms position 2 (ToTensor()): after Normalize "
          "(position 1); torchvision normalizes the float tensor, not a PIL "
          "image: put Normalize after the conversion to float");
  refused(list(CenterCrop(8), nonzero, Normalize(), ToTensor()),
          "after RandomErasing (position 1)");
  refused(list(CenterCrop(8), Normalize(), nonzero, ToTensor()),
          "after Normalize (position 1)");
  refused(list(CenterCrop(8), RandomErasing(), Normalize(), ToTensor()),
          "after Normalize (position 2)");
  const auto accepted = [&](std::vector<std::unique_ptr<PreprocessOp>> l) {
    PreprocessorBuilder b;
    b.dataset(data).train_transforms(std::move(l));
    b.val_transforms(CenterCrop(8));
    const absl::Status status = b.Commit().status();
    EXPECT_TRUE(status.ok()) << status;
  };
  accepted(list(CenterCrop(8), ToTensor(), Normalize(), RandomErasing(),
                ToTensor("ToDtype")));
  accepted(list(CenterCrop(8), RandomErasing(), ToTensor(), Normalize()));
  accepted(list(CenterCrop(8), nonzero, Normalize()));
}

TEST(PreprocessorCommit, CallerTransformsAreCopiedNotChanged) {
  const RandomResizedCrop crop(40);
  const RandomErasing erase(0.3);
  const std::string before = crop.name() + erase.name();
  auto data = std::shared_ptr<const Dataset>(MakeSyntheticDataset(4));
  for (int i = 0; i < 2; ++i) {  // the same objects serve two builders
    PreprocessorBuilder b;
    b.dataset(data)
        .train_transforms(crop, erase)
        .val_transforms(CenterCrop(40));
    ASSERT_TRUE(b.Commit().ok());
  }
  EXPECT_EQ(crop.name() + erase.name(), before);
}

TEST(Preprocessor, ByteIdenticalAcrossThreadCountsAndOrdered) {
  auto data = std::shared_ptr<const Dataset>(MakeSyntheticDataset(45, 3));
  EpochResult reference;
  for (int threads : {1, 2, 8}) {
    PreprocessorBuilder b = SeedExample(data);
    b.threads(threads);
    absl::StatusOr<Preprocessor> p = b.Commit();
    ASSERT_TRUE(p.ok()) << p.status();
    const EpochResult r = RunEpoch(*p, Split::kTrain, 2);
    ASSERT_EQ(r.bytes.size(), 6u);  // 45 samples in batches of 8
    if (threads == 1) {
      reference = r;
      // Every sample exactly once, labels from the dataset, batches 0..5 in
      // order.
      std::set<uint64_t> seen;
      for (const auto& [g, idx] : r.indices) {
        for (size_t k = 0; k < idx.size(); ++k) {
          seen.insert(idx[k]);
          EXPECT_EQ(r.labels.at(g)[k], static_cast<int64_t>(idx[k] % 10));
        }
      }
      EXPECT_EQ(seen.size(), 45u);
      continue;
    }
    EXPECT_EQ(r.bytes, reference.bytes) << threads << " threads";
    EXPECT_EQ(r.indices, reference.indices);
  }
  // Another epoch shuffles and augments differently.
  absl::StatusOr<Preprocessor> p = SeedExample(data).Commit();
  EXPECT_NE(RunEpoch(*p, Split::kTrain, 3).indices, reference.indices);
  // Val is not shuffled: indices in order.
  const EpochResult val = RunEpoch(*p, Split::kVal, 0);
  EXPECT_EQ(val.indices.at(0), (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

// What a child made by fork() in the middle of an epoch gets from it: each
// failed check as a bit, 0 when all hold.
int ChildOfAForkMidEpoch(std::unique_ptr<EpochLoader> epoch) {
  int failed = 0;
  if (!epoch->WaitReady(absl::Seconds(5))) failed |= 1;  // would hang
  const absl::Status s = epoch->Next().status();
  if (s.code() != absl::StatusCode::kFailedPrecondition ||
      s.message().find("a child made by fork(): its workers are not here") ==
          std::string::npos)
    failed |= 2;
  epoch->Cancel();
  epoch.reset();  // no join of threads that are not here
  return failed;
}

TEST(Preprocessor, AnEpochInAChildMadeByForkIsAnErrorNotAHang) {
  auto data = std::shared_ptr<const Dataset>(MakeSyntheticDataset(45, 3));
  absl::StatusOr<Preprocessor> p = SeedExample(data).Commit();
  ASSERT_TRUE(p.ok()) << p.status();
  const EpochResult reference = RunEpoch(*p, Split::kTrain, 2);
  auto epoch = p->StartEpoch(Split::kTrain, 2);
  ASSERT_TRUE(epoch.ok()) << epoch.status();
  absl::StatusOr<BatchRef> first = (*epoch)->Next();
  ASSERT_TRUE(first.ok() && *first != nullptr);
  // clang 14's AddressSanitizer does not lock its allocator around fork():
  // a child forked while a worker is inside malloc waits for that lock
  // forever. Under it, the fork waits until the workers have filled the
  // slots they may fill and stopped allocating.
  const char* sanitizer = std::getenv("FUSEDNORM_SANITIZER");
  if (sanitizer != nullptr && std::string(sanitizer) == "address")
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(ChildOfAForkMidEpoch(*std::move(epoch)));
  int status = 0;
  for (int i = 0; i < 1000 && waitpid(child, &status, WNOHANG) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (waitpid(child, &status, WNOHANG) == 0) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    FAIL() << "the child hung on the inherited epoch";
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "bits of ChildOfAForkMidEpoch's checks";
  // The parent's epoch goes on, byte for byte.
  std::vector<std::vector<uint8_t>> rest;
  for (absl::StatusOr<BatchRef> b; (b = (*epoch)->Next()).ok() && *b;)
    rest.emplace_back((*b)->data,
                      (*b)->data + (*b)->count * (*b)->sample_bytes);
  ASSERT_EQ(rest.size() + 1, reference.bytes.size());
  for (size_t i = 0; i < rest.size(); ++i)
    EXPECT_EQ(rest[i], reference.bytes.at(i + 1)) << "batch " << i + 1;
}

// 37 samples in batches of 8: global batches 0..4, the last of 5 samples.
// Sharded over 2 or 3 ranks, every rank gets as many batches: the real
// ones partition the single-process epoch; a rank a batch short gets a
// padding batch (global number 5) that repeats the epoch's samples from its
// start, or, with drop_last, the last incomplete round goes to no rank.
TEST(Preprocessor, ShardsPartitionTheSingleProcessEpoch) {
  auto data = std::shared_ptr<const Dataset>(MakeSyntheticDataset(37, 5));
  absl::StatusOr<Preprocessor> single = SeedExample(data).threads(3).Commit();
  ASSERT_TRUE(single.ok());
  const EpochResult all = RunEpoch(*single, Split::kTrain, 1);
  ASSERT_EQ(all.bytes.size(), 5u);
  const size_t sample = single->sample_bytes(Split::kTrain);
  for (bool drop_last : {false, true}) {
    for (int world : {2, 3}) {
      EpochResult merged;
      for (int rank = 0; rank < world; ++rank) {
        LoaderSettings l;
        l.batch_size = 8;
        l.threads = 2;
        l.seed = 77;
        l.rank = rank;
        l.world = world;
        l.drop_last = drop_last;
        absl::StatusOr<Preprocessor> p = SeedExample(data).loader(l).Commit();
        ASSERT_TRUE(p.ok());
        EXPECT_EQ(p->batches_per_epoch(Split::kTrain),
                  drop_last ? 5u / world : (5u + world - 1) / world);
        const EpochResult r = RunEpoch(*p, Split::kTrain, 1);
        EXPECT_EQ(r.bytes.size(), p->batches_per_epoch(Split::kTrain)) << rank;
        for (const auto& [g, bytes] : r.bytes) {
          EXPECT_EQ(g % world, static_cast<uint64_t>(rank));
          EXPECT_EQ(r.padding.count(g) == 1, g >= 5) << g;
          if (g < 5) {
            EXPECT_TRUE(merged.bytes.emplace(g, bytes).second) << g;
            continue;
          }
          // Padding: epoch positions 40..47 wrap to 3..10.
          std::vector<uint8_t> want(all.bytes.at(0).begin() + 3 * sample,
                                    all.bytes.at(0).end());
          want.insert(want.end(), all.bytes.at(1).begin(),
                      all.bytes.at(1).begin() + 3 * sample);
          EXPECT_EQ(bytes, want) << "padding batch " << g;
        }
      }
      std::map<uint64_t, std::vector<uint8_t>> expected = all.bytes;
      if (drop_last) {
        for (uint64_t g = 5 / world * world; g < 5; ++g) expected.erase(g);
      }
      EXPECT_EQ(merged.bytes, expected)
          << "world size " << world << (drop_last ? ", drop_last" : "");
    }
  }
}

TEST(Preprocessor, BackpressureKeepsAtMostSlotsInFlight) {
  auto data = std::shared_ptr<const Dataset>(MakeSyntheticDataset(64, 1));
  absl::StatusOr<Preprocessor> p =
      SeedExample(data).threads(4).slots(2).batch_size(4).Commit();
  ASSERT_TRUE(p.ok());
  auto loader = p->StartEpoch(Split::kTrain, 0);
  ASSERT_TRUE(loader.ok());
  int batches = 0;
  for (;;) {
    absl::StatusOr<BatchRef> b = (*loader)->Next();
    ASSERT_TRUE(b.ok());
    if (*b == nullptr) break;
    ++batches;
    std::this_thread::sleep_for(
        std::chrono::milliseconds(5));  // a slow consumer
  }
  EXPECT_EQ(batches, 16);
  EXPECT_LE((*loader)->max_in_flight(), 2u);
  EXPECT_GE((*loader)->max_in_flight(), 1u);
}

// An in-memory set where sample `bad` has another size, and no crop evens it
// out.
std::shared_ptr<const Dataset> OneOddSample(size_t bad) {
  std::vector<Image> images;
  std::vector<int64_t> labels;
  for (size_t i = 0; i < 12; ++i) {
    const int64_t h = i == bad ? 9 : 8;
    Image img{h, 8, 3,
              std::vector<uint8_t>(h * 8 * 3, static_cast<uint8_t>(i + 1))};
    images.push_back(img);
    labels.push_back(static_cast<int64_t>(i));
  }
  return std::shared_ptr<const Dataset>(*MakeInMemoryDataset(images, labels));
}

TEST(Preprocessor, SampleErrorsReachTheConsumer) {
  {
    PreprocessorBuilder b;
    b.dataset(OneOddSample(6))
        .sample_size(8, 8)
        .batch_size(4)
        .threads(3)
        .shuffle(false);
    absl::StatusOr<Preprocessor> p = b.Commit();
    ASSERT_TRUE(p.ok()) << p.status();
    auto loader = p->StartEpoch(Split::kTrain, 0);
    ASSERT_TRUE(loader.ok());
    ASSERT_TRUE((*loader)->Next().ok());  // batch 0: samples 0..3
    ExpectError(
        (*loader)->Next().status(), StatusCode::kInvalidArgument,
        "sample 6: after the transforms it is 9x8 but the batch holds 8x8");
  }
  {
    PreprocessorBuilder b;
    b.dataset(OneOddSample(5))
        .sample_size(8, 8)
        .batch_size(4)
        .threads(2)
        .shuffle(false)
        .error_policy(ErrorPolicy::kSkip);
    absl::StatusOr<Preprocessor> p = b.Commit();
    ASSERT_TRUE(p.ok());
    const EpochResult r = RunEpoch(*p, Split::kTrain, 0);
    ASSERT_EQ(r.bytes.size(), 3u);
    auto loader = p->StartEpoch(Split::kTrain, 0);
    ASSERT_TRUE((*loader)->Next().ok());
    const BatchRef b1 = *(*loader)->Next();
    ASSERT_NE(b1, nullptr);
    EXPECT_EQ(b1->skipped, 1u);
    EXPECT_FALSE(b1->valid[1]);
    EXPECT_TRUE(b1->valid[0]);
    EXPECT_NE(b1->errors[1].find("sample 5"), std::string::npos);
    for (size_t k = 0; k < b1->sample_bytes; ++k) {
      ASSERT_EQ(b1->data[b1->sample_bytes + k], 0)
          << "a skipped sample is zero-filled";
    }
  }
}

TEST(Preprocessor, ShutdownMidEpochAndCancel) {
  auto data = std::shared_ptr<const Dataset>(MakeSyntheticDataset(400, 1));
  absl::StatusOr<Preprocessor> p = SeedExample(data).threads(4).Commit();
  ASSERT_TRUE(p.ok());
  {
    auto loader = p->StartEpoch(Split::kTrain, 0);
    ASSERT_TRUE(loader.ok());
    ASSERT_TRUE((*loader)->Next().ok());
  }  // destroyed with batches in flight: must not hang or leak
  auto loader = p->StartEpoch(Split::kTrain, 0);
  ASSERT_TRUE(loader.ok());
  (*loader)->Cancel();
  EXPECT_EQ((*loader)->Next().status().code(), StatusCode::kCancelled);
}

// ---- datasets from files ----

std::string TempDir() { return MakeTempDir("fusednorm_test"); }

void WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::vector<uint8_t> BigEndian(uint32_t v) {
  return {static_cast<uint8_t>(v >> 24), static_cast<uint8_t>(v >> 16),
          static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v)};
}

TEST(Datasets, Mnist) {
  const std::string dir = TempDir();
  std::vector<uint8_t> im = BigEndian(0x803), lb = BigEndian(0x801);
  for (uint32_t v : {3u, 4u, 5u}) {
    const auto b = BigEndian(v);
    im.insert(im.end(), b.begin(), b.end());
  }
  for (int i = 0; i < 3 * 4 * 5; ++i) im.push_back(static_cast<uint8_t>(i));
  const auto n = BigEndian(3);
  lb.insert(lb.end(), n.begin(), n.end());
  lb.insert(lb.end(), {7, 1, 4});
  WriteFile(dir + "/train-images-idx3-ubyte", im);
  WriteFile(dir + "/train-labels-idx1-ubyte", lb);
  auto ds = OpenDataset("mnist", dir);
  ASSERT_TRUE(ds.ok()) << ds.status();
  ASSERT_EQ((*ds)->size(), 3u);
  EXPECT_EQ((*ds)->channels(), 1);
  const Sample s = *DecodeSample(**ds, 2);
  EXPECT_EQ(s.label, 4);
  EXPECT_EQ(s.image.height, 4);
  EXPECT_EQ(s.image.width, 5);
  EXPECT_EQ(s.image.pixels[0], 40);
  // Packed one after another: every image's own pixels, and the digest of
  // the same images held one by one (a resume state's stays valid).
  std::vector<Image> one_by_one;
  for (size_t i = 0; i < 3; ++i) {
    const std::vector<uint8_t> want(im.begin() + 16 + i * 20,
                                    im.begin() + 16 + (i + 1) * 20);
    EXPECT_EQ(DecodeSample(**ds, i)->image.pixels, want) << i;
    one_by_one.push_back(Image{4, 5, 1, want});
  }
  EXPECT_EQ((*ds)->image_size()->width, 5);
  EXPECT_EQ((*ds)->IndexDigest(),
            (*MakeInMemoryDataset(one_by_one, {7, 1, 4}))->IndexDigest());
  // Truncated and wrong-magic files are errors naming the file.
  std::vector<uint8_t> cut(im.begin(), im.end() - 1);
  WriteFile(dir + "/train-images-idx3-ubyte", cut);
  ExpectError(OpenDataset("mnist", dir).status(), StatusCode::kInvalidArgument,
              "train-images-idx3-ubyte: has 75 bytes");
  im[3] = 0x01;
  WriteFile(dir + "/train-images-idx3-ubyte", im);
  ExpectError(OpenDataset("mnist", dir).status(), StatusCode::kInvalidArgument,
              "train-images-idx3-ubyte: not an idx3 image file (magic 0x801, "
              "not 0x803)");
  WriteFile(dir + "/train-images-idx3-ubyte", {});
  ExpectError(OpenDataset("mnist", dir).status(), StatusCode::kInvalidArgument,
              "train-images-idx3-ubyte: the file is empty, not an idx3 image "
              "file");
  WriteFile(dir + "/train-images-idx3-ubyte",
            {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0});
  ExpectError(OpenDataset("mnist", dir).status(), StatusCode::kInvalidArgument,
              "train-images-idx3-ubyte: a gzip file, not an idx3 image file "
              "(gunzip it first)");
  WriteFile(dir + "/train-images-idx3-ubyte", {0, 0, 8, 3});
  ExpectError(OpenDataset("mnist", dir).status(), StatusCode::kInvalidArgument,
              "train-images-idx3-ubyte: 4 bytes, shorter than an idx3 image "
              "file's 16-byte header");
}

TEST(Datasets, Cifar10) {
  const std::string dir = TempDir();
  std::vector<uint8_t> bytes;
  for (int r = 0; r < 2; ++r) {
    bytes.push_back(static_cast<uint8_t>(r + 3));
    for (int i = 0; i < 3072; ++i)
      bytes.push_back(static_cast<uint8_t>(i / 1024 * 100 + r));
  }
  WriteFile(dir + "/test_batch.bin", bytes);
  auto ds = OpenDataset("cifar10", dir, /*test_split=*/true);
  ASSERT_TRUE(ds.ok()) << ds.status();
  const Sample s = *DecodeSample(**ds, 1);
  EXPECT_EQ(s.label, 4);
  EXPECT_EQ(s.image.pixels[0], 1);    // R plane
  EXPECT_EQ(s.image.pixels[1], 101);  // G plane, interleaved into HWC
  EXPECT_EQ(s.image.pixels[2], 201);
  EXPECT_EQ(s.image.pixels[3071], 201);
  EXPECT_EQ(DecodeSample(**ds, 0)->image.pixels[3071], 200);
  EXPECT_EQ(DecodeSample(**ds, 0)->label, 3);
  bytes.pop_back();
  WriteFile(dir + "/test_batch.bin", bytes);
  ExpectError(OpenDataset("cifar10", dir, true).status(),
              StatusCode::kInvalidArgument, "not a whole number of 3073-byte");
  bytes.push_back(0);
  bytes[0] = 12;
  WriteFile(dir + "/test_batch.bin", bytes);
  ExpectError(OpenDataset("cifar10", dir, true).status(),
              StatusCode::kInvalidArgument, "label 12");
}

TEST(Datasets, ImageFolderJpegPngAndCorruptFiles) {
  const std::string dir = TempDir();
  mkdir((dir + "/cat").c_str(), 0755);
  mkdir((dir + "/dog").c_str(), 0755);
  auto synth = MakeSyntheticDataset(4, 9);
  std::vector<Image> originals;
  for (int i = 0; i < 4; ++i)
    originals.push_back((*DecodeSample(*synth, i)).image);
  WriteFile(dir + "/cat/a.jpg", *EncodeJpeg(originals[0], 95));
  WriteFile(dir + "/cat/b.png", *EncodePng(originals[1]));
  WriteFile(dir + "/dog/c.jpeg", *EncodeJpeg(originals[2], 95));
  WriteFile(dir + "/dog/d.PNG", *EncodePng(originals[3]));
  WriteFile(dir + "/dog/notes.txt", {1, 2, 3});
  auto ds = OpenImageFolder(dir);
  ASSERT_TRUE(ds.ok()) << ds.status();
  ASSERT_EQ((*ds)->size(), 4u);
  const Sample png = *DecodeSample(**ds, 1);
  EXPECT_EQ(png.label, 0);
  EXPECT_EQ(png.image.pixels, originals[1].pixels);  // PNG is lossless
  const Sample jpg = *DecodeSample(**ds, 2);
  EXPECT_EQ(jpg.label, 1);
  ASSERT_EQ(jpg.image.pixels.size(), originals[2].pixels.size());
  double err = 0;
  for (size_t i = 0; i < jpg.image.pixels.size(); ++i) {
    err += std::abs(jpg.image.pixels[i] - originals[2].pixels[i]);
  }
  EXPECT_LT(err / jpg.image.pixels.size(), 6.0);  // JPEG at quality 95: close
  // Truncated JPEG and PNG, and a file that is neither: errors naming the file.
  std::vector<uint8_t> j = *EncodeJpeg(originals[0]);
  j.resize(j.size() / 2);
  WriteFile(dir + "/cat/a.jpg", j);
  ExpectError(DecodeSample(**ds, 0).status(), StatusCode::kInvalidArgument,
              "cat/a.jpg");
  std::vector<uint8_t> p = *EncodePng(originals[1]);
  p.resize(p.size() / 2);
  WriteFile(dir + "/cat/b.png", p);
  ExpectError(DecodeSample(**ds, 1).status(), StatusCode::kInvalidArgument,
              "corrupt or truncated PNG");
  WriteFile(dir + "/dog/c.jpeg", {0x00, 0x01, 0x02, 0x03});
  ExpectError(DecodeSample(**ds, 2).status(), StatusCode::kInvalidArgument,
              "neither a JPEG, a PNG nor a .npy");
  // The seed's example over the (now partly broken) folder, skipping the broken
  // files.
  PreprocessorBuilder b =
      SeedExample(std::shared_ptr<const Dataset>(std::move(*ds)));
  b.error_policy(ErrorPolicy::kSkip).batch_size(2);
  absl::StatusOr<Preprocessor> pre = b.Commit();
  ASSERT_TRUE(pre.ok()) << pre.status();
  auto loader = pre->StartEpoch(Split::kVal, 0);
  size_t skipped = 0;
  for (;;) {
    absl::StatusOr<BatchRef> batch = (*loader)->Next();
    ASSERT_TRUE(batch.ok()) << batch.status();
    if (*batch == nullptr) break;
    skipped += (*batch)->skipped;
  }
  EXPECT_EQ(skipped, 3u);
}

TEST(Preprocessor, SeedExampleOnAJpegFolderIsThreadCountIndependent) {
  const std::string dir = TempDir();
  mkdir((dir + "/a").c_str(), 0755);
  mkdir((dir + "/b").c_str(), 0755);
  auto synth = MakeSyntheticDataset(10, 4);
  for (int i = 0; i < 10; ++i) {
    WriteFile(dir + (i % 2 ? "/a/" : "/b/") + std::to_string(i) + ".jpg",
              *EncodeJpeg((*DecodeSample(*synth, i)).image));
  }
  auto folder = std::shared_ptr<const Dataset>(*OpenImageFolder(dir));
  EpochResult one, many;
  for (int threads : {1, 5}) {
    absl::StatusOr<Preprocessor> p =
        SeedExample(folder).threads(threads).Commit();
    ASSERT_TRUE(p.ok());
    (threads == 1 ? one : many) = RunEpoch(*p, Split::kTrain, 0);
  }
  EXPECT_EQ(one.bytes.size(), 2u);
  EXPECT_EQ(one.bytes, many.bytes);
}

}  // namespace
}  // namespace fusednorm

namespace fusednorm {
namespace {

// Decoding only RandomResizedCrop's window gives the same batches as decoding
// whole images, from a folder and from shards of the same JPEGs; reading raw
// .npy samples in place gives the same as copying them.
TEST(Preprocessor, CropDecodeGivesTheSameBatches) {
  const std::string dir = TempDir();
  mkdir((dir + "/a").c_str(), 0755);
  auto synth = MakeSyntheticDataset(24, 11);
  std::string tar, raw;
  for (int i = 0; i < 24; ++i) {
    const Image image = (*DecodeSample(*synth, i)).image;
    const std::vector<uint8_t> jpg = *EncodeJpeg(image, 70 + i);
    const std::string npy =
        NpyHeader("|u1", {image.height, image.width, 3}) +
        std::string(image.pixels.begin(), image.pixels.end());
    raw += *TarFileHeader(std::to_string(i) + ".npy", npy.size()) + npy +
           std::string(TarPadding(npy.size()), '\0');
    WriteFile(dir + "/a/" + std::to_string(100 + i) + ".jpg", jpg);
    const std::string name = std::to_string(100 + i) + ".jpg";
    tar += *TarFileHeader(name, jpg.size()) +
           std::string(jpg.begin(), jpg.end()) +
           std::string(TarPadding(jpg.size()), '\0');
  }
  WriteFile(dir + "/s.tar", std::vector<uint8_t>(tar.begin(), tar.end()));
  WriteFile(dir + "/raw.tar", std::vector<uint8_t>(raw.begin(), raw.end()));
  const std::vector<std::shared_ptr<const Dataset>> sources = {
      std::shared_ptr<const Dataset>(*OpenImageFolder(dir)),
      std::shared_ptr<const Dataset>(*OpenShards({dir + "/s.tar"})),
      std::shared_ptr<const Dataset>(*OpenShards({dir + "/raw.tar"}))};
  for (const auto& data : sources) {
    SCOPED_TRACE(data->name());
    EpochResult whole, windows;
    for (bool crop : {false, true}) {
      absl::StatusOr<Preprocessor> p =
          SeedExample(data).threads(2).batch_size(5).crop_decode(crop).Commit();
      ASSERT_TRUE(p.ok()) << p.status();
      for (uint32_t epoch : {0u, 1u}) {
        const EpochResult r = RunEpoch(*p, Split::kTrain, epoch);
        EpochResult& into = crop ? windows : whole;
        for (const auto& [g, b] : r.bytes) into.bytes[epoch * 100 + g] = b;
      }
    }
    ASSERT_EQ(whole.bytes.size(), 10u);
    EXPECT_TRUE(whole.bytes == windows.bytes) << "the batches differ";
  }
}

}  // namespace
}  // namespace fusednorm

namespace fusednorm {
namespace {

// Reduced-size decoding is deterministic for any thread count, changes the
// batches where crops are at least twice the output, and nothing elsewhere.
TEST(Preprocessor, DecodeScaleIsDeterministicAndOnlyWhereCropsAllow) {
  const std::string dir = TempDir();
  mkdir((dir + "/a").c_str(), 0755);
  auto synth = MakeSyntheticDataset(20, 12);
  for (int i = 0; i < 20; ++i) {
    WriteFile(dir + "/a/" + std::to_string(100 + i) + ".jpg",
              *EncodeJpeg((*DecodeSample(*synth, i)).image, 90));
  }
  auto folder = std::shared_ptr<const Dataset>(*OpenImageFolder(dir));
  const auto epoch = [&](int64_t size, bool scale, int threads) {
    PreprocessorBuilder b;
    b.dataset(folder)
        .normalization(Preset::kImagenet)
        .train_transforms(RandomResizedCrop(size))
        .val_transforms(CenterCrop(size))
        .batch_size(5)
        .threads(threads)
        .decode_scale(scale)
        .seed(3);
    absl::StatusOr<Preprocessor> p = b.Commit();
    EXPECT_TRUE(p.ok()) << p.status();
    return RunEpoch(*p, Split::kTrain, 0).bytes;
  };
  const auto scaled = epoch(24, true, 1);
  EXPECT_TRUE(scaled == epoch(24, true, 2));
  EXPECT_FALSE(scaled == epoch(24, false, 1)) << "no crop was scaled";
  // Crops of at most 320 pixels never reach twice 224: nothing changes.
  EXPECT_TRUE(epoch(224, true, 2) == epoch(224, false, 2));
}

}  // namespace
}  // namespace fusednorm
