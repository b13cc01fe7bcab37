// ReadAheadLinks: an epoch's read-ahead goes on into exactly the next
// epoch's first samples, in the order its workers take them, and the next
// epoch's read-ahead begins after those; for every combination of a batch
// transform (samples taken last first), ranks and an epoch shorter than
// the linked samples. A dataset that records what each read-ahead asks
// for stands in for one read over a network.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "gtest/gtest.h"
#include "ops/batch_ops.h"
#include "ops/transforms.h"
#include "pipeline/epoch_loader.h"
#include "pipeline/preprocessor.h"
#include "testing/expect_error.h"

namespace fusednorm {
namespace {

using ::absl::StatusCode;

// Synthetic samples; each ReadAhead's whole order is drawn at once into
// `asked` (the loader calls ReadAhead before its workers start).
class RecordsReadAhead : public Dataset {
 public:
  explicit RecordsReadAhead(size_t n) : inner_(MakeSyntheticDataset(n)) {}
  std::string name() const override { return "records-read-ahead"; }
  size_t size() const override { return inner_->size(); }
  int channels() const override { return inner_->channels(); }
  absl::Status Read(size_t index, SampleBuffer* buffer,
                    RawSample* out) const override {
    return inner_->Read(index, buffer, out);
  }
  std::unique_ptr<ReadAheadHandle> ReadAhead(
      std::function<bool(uint64_t*)> next) const override {
    std::vector<uint64_t> order;
    for (uint64_t index; next(&index);) order.push_back(index);
    std::lock_guard<std::mutex> lock(mu_);
    asked_ = std::move(order);
    return std::make_unique<ReadAheadHandle>();
  }
  // What the last ReadAhead asked for.
  std::vector<uint64_t> asked() const {
    std::lock_guard<std::mutex> lock(mu_);
    return asked_;
  }

 private:
  std::unique_ptr<Dataset> inner_;
  mutable std::mutex mu_;
  mutable std::vector<uint64_t> asked_;
};

struct Case {
  bool mix;
  int world;
  size_t samples;
};

std::string Name(const Case& c) {
  return std::string(c.mix ? "MixUp" : "no batch op") + ", world " +
         std::to_string(c.world) + ", " + std::to_string(c.samples) +
         " samples";
}

// The samples epoch `epoch` asks its read-ahead for, with `links`.
std::vector<uint64_t> Asked(const Preprocessor& p, const RecordsReadAhead& d,
                            uint32_t epoch, ReadAheadLinks links) {
  auto loader = p.StartEpoch(Split::kTrain, epoch, 0, links);
  EXPECT_TRUE(loader.ok()) << loader.status();
  return d.asked();
}

std::vector<uint64_t> Slice(const std::vector<uint64_t>& v, size_t from,
                            size_t to) {
  return {v.begin() + from, v.begin() + to};
}

TEST(ReadAheadLinksTest, AnEpochReadsAheadIntoTheNextOnesFirstSamples) {
  const size_t batch = 4;
  for (bool mix : {false, true}) {
    for (int world : {1, 2}) {
      // 30: a short last batch; 6: fewer than the linked samples.
      for (size_t samples : {30, 6}) {
        const Case c{mix, world, samples};
        auto d = std::make_shared<RecordsReadAhead>(samples);
        PreprocessorBuilder b;
        b.dataset(d)
            .train_transforms(RandomResizedCrop(24), RandomHorizontalFlip())
            .val_transforms(Resize(28), CenterCrop(24))
            .batch_size(batch)
            .threads(2)
            .seed(3)
            .shard(world - 1, world);
        if (mix) b.batch_transform(MixUp(0.4, 10));
        absl::StatusOr<Preprocessor> p = b.Commit();
        ASSERT_TRUE(p.ok()) << p.status();
        const std::vector<uint64_t> whole0 = Asked(*p, *d, 0, {});
        const std::vector<uint64_t> whole1 = Asked(*p, *d, 1, {});
        ASSERT_NE(whole0, whole1) << Name(c);  // shuffled per epoch
        const size_t k = ReadAheadLinks::LinkedTasks(batch, whole1.size());
        ASSERT_EQ(k, std::min<size_t>(whole1.size(), 2 * batch));

        std::vector<uint64_t> expected = whole0;
        expected.insert(expected.end(), whole1.begin(), whole1.begin() + k);
        EXPECT_EQ(Asked(*p, *d, 0, {false, true}), expected) << Name(c);
        EXPECT_EQ(Asked(*p, *d, 1, {true, false}),
                  Slice(whole1, k, whole1.size()))
            << Name(c);
        // Both links: after the previous epoch's, into the next one's.
        const std::vector<uint64_t> whole2 = Asked(*p, *d, 2, {});
        expected = Slice(whole1, k, whole1.size());
        expected.insert(
            expected.end(), whole2.begin(),
            whole2.begin() + ReadAheadLinks::LinkedTasks(batch, whole2.size()));
        EXPECT_EQ(Asked(*p, *d, 1, {true, true}), expected) << Name(c);
      }
    }
  }
}

TEST(ReadAheadLinksTest, AResumedEpochHasNoPreviousReadingAhead) {
  auto d = std::make_shared<RecordsReadAhead>(30);
  absl::StatusOr<Preprocessor> p =
      PreprocessorBuilder()
          .dataset(d)
          .train_transforms(RandomResizedCrop(24))
          .val_transforms(Resize(28), CenterCrop(24))
          .batch_size(4)
          .Commit();
  ASSERT_TRUE(p.ok()) << p.status();
  ExpectError(p->StartEpoch(Split::kTrain, 1, 2, {true, false}).status(),
              StatusCode::kInvalidArgument,
              "an epoch resumed at batch 2 has no previous epoch");
  // Resumed, it may still read ahead into the next epoch.
  EXPECT_TRUE(p->StartEpoch(Split::kTrain, 1, 2, {false, true}).ok());
}

}  // namespace
}  // namespace fusednorm
