// Resume states: made, written and read back; an epoch resumed from one
// yields the uninterrupted epoch's remaining batches byte for byte, for
// other thread counts; states of other runs, edited or truncated states
// and positions the epoch does not have are refused, naming why.
#include "pipeline/resume_state.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "data/dataset.h"
#include "gtest/gtest.h"
#include "ops/batch_ops.h"
#include "ops/transforms.h"
#include "testing/expect_error.h"

namespace fusednorm {
namespace {

using ::absl::StatusCode;

struct RunSpec {
  size_t samples = 37;
  uint64_t data_seed = 0;
  uint64_t seed = 5;
  size_t batch = 4;
  int threads = 1;
  double erase = 0.5;
  int repeats = 1;
  int world = 1;
  bool mix = true;
  bool shuffle = true;
  ResizeFilter filter = ResizeFilter::kPil;
};

Preprocessor Make(const RunSpec& r) {
  PreprocessorBuilder b;
  b.dataset(std::shared_ptr<const Dataset>(
                MakeSyntheticDataset(r.samples, r.data_seed)))
      .train_transforms(
          RandomResizedCrop(24, 0.08, 1.0, 3.0 / 4.0, 4.0 / 3.0, r.filter),
          RandomHorizontalFlip(), RandomErasing(r.erase))
      .val_transforms(Resize(28), CenterCrop(24))
      .batch_size(r.batch)
      .threads(r.threads)
      .seed(r.seed)
      .repeated_augmentations(r.repeats)
      .shuffle(r.shuffle)
      .shard(0, r.world);
  if (r.mix) b.batch_transform(MixUp(0.4, 10));
  absl::StatusOr<Preprocessor> p = b.Commit();
  EXPECT_TRUE(p.ok()) << p.status();
  return *std::move(p);
}

// The batches' bytes from `start` on, and the resume state after each.
struct Tail {
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<std::string> states;
};

Tail Batches(const Preprocessor& p, uint32_t epoch, uint64_t start) {
  Tail t;
  auto loader = p.StartEpoch(Split::kTrain, epoch, start);
  EXPECT_TRUE(loader.ok()) << loader.status();
  if (!loader.ok()) return t;
  for (;;) {
    absl::StatusOr<BatchRef> b = (*loader)->Next();
    EXPECT_TRUE(b.ok()) << b.status();
    if (!b.ok() || *b == nullptr) break;
    const Batch& batch = **b;
    std::vector<uint8_t> bytes(batch.data,
                               batch.data + batch.count * batch.sample_bytes);
    const auto* t8 = reinterpret_cast<const uint8_t*>(batch.targets.data());
    bytes.insert(bytes.end(), t8, t8 + batch.targets.size() * sizeof(float));
    t.bytes.push_back(std::move(bytes));
    t.states.push_back(ResumeStateJson(
        MakeResumeState(p, Split::kTrain, (*loader)->resume_position())));
  }
  return t;
}

TEST(ResumeStateTest, ResumedEpochsAreTheRestOfTheWholeOnes) {
  const Preprocessor whole = Make({});
  const Tail all = Batches(whole, 2, 0);
  ASSERT_EQ(all.bytes.size(), 10u);
  for (const int threads : {1, 3}) {
    RunSpec r;
    r.threads = threads;
    const Preprocessor p = Make(r);
    for (size_t stop = 0; stop < all.bytes.size(); ++stop) {
      SCOPED_TRACE(testing::Message()
                   << "threads " << threads << " stop " << stop);
      const std::string& text = all.states[stop];
      EXPECT_LT(text.size(), 1024u);
      absl::StatusOr<ResumeState> s = ParseResumeState(text, "state");
      ASSERT_TRUE(s.ok()) << s.status();
      ASSERT_TRUE(CheckResumeState(*s, p, Split::kTrain).ok());
      if (stop + 1 == all.bytes.size()) {  // the epoch is over
        EXPECT_EQ(s->epoch, 3u);
        EXPECT_EQ(s->batches, 0u);
        continue;
      }
      EXPECT_EQ(s->epoch, 2u);
      EXPECT_EQ(s->batches, stop + 1);
      EXPECT_EQ(s->samples_handed, (stop + 1) * 4);
      const Tail rest = Batches(p, s->epoch, s->batches);
      ASSERT_EQ(rest.bytes.size(), all.bytes.size() - stop - 1);
      for (size_t j = 0; j < rest.bytes.size(); ++j) {
        EXPECT_EQ(rest.bytes[j], all.bytes[stop + 1 + j]) << "batch " << j;
        EXPECT_EQ(rest.states[j], all.states[stop + 1 + j]);
      }
    }
  }
}

TEST(ResumeStateTest, RunsThatDifferAreRefusedNamingTheDifference) {
  const Preprocessor p = Make({});
  const ResumeState s = MakeResumeState(p, Split::kTrain, {1, 3});
  struct Other {
    RunSpec run;
    std::string needle;
  };
  std::vector<Other> others(8);
  others[0].run.samples = 38;
  others[0].needle = "the epoch's samples = 37 in the state, 38 here";
  others[1].run.data_seed = 1;
  others[1].needle = "the dataset's index digest";
  others[2].run.seed = 6;
  others[2].needle = "seed = 5 in the state, 6 here";
  others[3].run.batch = 5;
  others[3].needle = "batch_size = 4 in the state, 5 here";
  others[4].run.erase = 0.25;
  others[4].needle = "its transforms differ from this run's at character";
  others[5].run.mix = false;
  others[5].needle = "its transforms differ from this run's at character";
  others[6].run.shuffle = false;
  others[6].needle = "shuffle = 1 in the state, 0 here";
  // Not a torchvision argument, but it changes the pixels.
  others[7].run.filter = ResizeFilter::kTensor;
  others[7].needle = "its transforms differ from this run's at character";
  for (const Other& o : others) {
    ExpectError(CheckResumeState(s, Make(o.run), Split::kTrain),
                StatusCode::kInvalidArgument, o.needle);
  }
  ExpectError(CheckResumeState(s, p, Split::kVal), StatusCode::kInvalidArgument,
              "split = train in the state, val here");
  // The world size and thread count may change...
  RunSpec wide;
  wide.world = 3;
  wide.threads = 2;
  EXPECT_TRUE(CheckResumeState(s, Make(wide), Split::kTrain).ok());
}

// The state keeps the transforms' text, so a change is shown where it is;
// a version 2 state, saved without it by older builds, still reads, checks
// and resumes, and names the digests.
TEST(ResumeStateTest, TransformsAreShownWhereTheyDiffer) {
  const Preprocessor p = Make({});
  const ResumeState s = MakeResumeState(p, Split::kTrain, {1, 3});
  EXPECT_EQ(s.transforms, p.PixelRecipe(Split::kTrain));
  RunSpec other;
  other.erase = 0.25;
  const absl::Status differs = CheckResumeState(s, Make(other), Split::kTrain);
  ExpectError(differs, StatusCode::kInvalidArgument,
              "its transforms differ from this run's at character ");
  const std::string m(differs.message());
  const size_t saved = m.find("erase=1 p=0.5 "), here = m.find("p=0.25 ");
  const size_t between = m.find(" in the state, ");
  EXPECT_TRUE(saved < between && between < here && here != std::string::npos)
      << m;
  const absl::StatusOr<ResumeState> read =
      ParseResumeState(ResumeStateJson(s), "state");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->transforms, s.transforms);
  EXPECT_NE(ResumeStateJson(s).find("\"version\": 3, "), std::string::npos);
  ResumeState old = s;
  old.version = 2;
  old.transforms.clear();
  const std::string old_json = ResumeStateJson(old);
  EXPECT_NE(old_json.find("\"version\": 2, "), std::string::npos);
  EXPECT_EQ(old_json.find("transforms"), std::string::npos);
  old.transforms = s.transforms;  // version 2 had no such key
  ExpectError(ParseResumeState(ResumeStateJson(old), "state").status(),
              StatusCode::kInvalidArgument, "unknown key \"transforms\"");
  const absl::StatusOr<ResumeState> old_read =
      ParseResumeState(old_json, "state");
  ASSERT_TRUE(old_read.ok()) << old_read.status();
  EXPECT_TRUE(CheckResumeState(*old_read, p, Split::kTrain).ok());
  ExpectError(CheckResumeState(*old_read, Make(other), Split::kTrain),
              StatusCode::kInvalidArgument, "the transforms' digest = ");
}

TEST(ResumeStateTest, RepeatsKeepTheirWorldSize) {
  RunSpec r;
  r.samples = 600;
  r.repeats = 2;
  r.world = 2;
  r.mix = false;
  const ResumeState s = MakeResumeState(Make(r), Split::kTrain, {0, 4});
  EXPECT_TRUE(CheckResumeState(s, Make(r), Split::kTrain).ok());
  r.world = 3;
  ExpectError(CheckResumeState(s, Make(r), Split::kTrain),
              StatusCode::kInvalidArgument,
              "saved with world_size = 2 and repeated_augmentations = 2");
  r.repeats = 1;
  ExpectError(CheckResumeState(s, Make(r), Split::kTrain),
              StatusCode::kInvalidArgument,
              "repeated_augmentations = 2 in the state, 1 here");
}

TEST(ResumeStateTest, PositionsTheEpochDoesNotHaveAreRefused) {
  const Preprocessor p = Make({});  // 37 samples: 10 batches
  EXPECT_TRUE(CheckResumeState(MakeResumeState(p, Split::kTrain, {0, 9}), p,
                               Split::kTrain)
                  .ok());
  ExpectError(CheckResumeState(MakeResumeState(p, Split::kTrain, {0, 10}), p,
                               Split::kTrain),
              StatusCode::kInvalidArgument,
              "the resume state (epoch 0): resuming after 10 batches: the "
              "epoch has 10 batches");
  ExpectError(p.StartEpoch(Split::kTrain, 0, 10).status(),
              StatusCode::kInvalidArgument, "after 10 batches");
}

// Sample 9 cannot be read: with kFail the batch that holds it is an error.
class FailsAtNine : public Dataset {
 public:
  std::string name() const override { return "fails-at-nine"; }
  size_t size() const override { return 20; }
  int channels() const override { return 3; }
  absl::Status Read(size_t index, SampleBuffer* buffer,
                    RawSample* out) const override {
    if (index == 9) return absl::DataLossError("sample 9: unreadable");
    return inner_->Read(index, buffer, out);
  }

 private:
  std::unique_ptr<Dataset> inner_ = MakeSyntheticDataset(20);
};

TEST(ResumeStateTest, ABatchThatFailedWasNotHandedOut) {
  absl::StatusOr<Preprocessor> p =
      PreprocessorBuilder()
          .dataset(std::make_shared<FailsAtNine>())
          .train_transforms(RandomResizedCrop(24))
          .val_transforms(Resize(28), CenterCrop(24))
          .batch_size(4)
          .threads(2)
          .Commit();
  ASSERT_TRUE(p.ok()) << p.status();
  auto loader = p->StartEpoch(Split::kVal, 0);  // in index order
  ASSERT_TRUE(loader.ok());
  for (int j = 0; j < 2; ++j) ASSERT_TRUE((*loader)->Next().ok());
  EXPECT_EQ((*loader)->resume_position().batches, 2u);
  ExpectError((*loader)->Next().status(), StatusCode::kDataLoss, "sample 9");
  const EpochLoader::Position after = (*loader)->resume_position();
  EXPECT_EQ(after.epoch, 0u);
  EXPECT_EQ(after.batches, 2u);
}

TEST(ResumeStateTest, EditedOrTruncatedStatesAreRefused) {
  const Preprocessor p = Make({});
  const std::string text =
      ResumeStateJson(MakeResumeState(p, Split::kTrain, {1, 3}));
  for (size_t n = 0; n < text.size(); ++n) {
    EXPECT_FALSE(ParseResumeState(text.substr(0, n), "s.json").ok()) << n;
  }
  // Each number and string changed by one character.
  const std::map<std::string, std::string> edits = {
      {"\"epoch\": 1", "\"epoch\": 2"},
      {"\"batches\": 3", "\"batches\": 2"},
      {"\"seed\": 5", "\"seed\": 4"},
      {"\"samples\": 37", "\"samples\": 36"},
      {"\"batch_size\": 4", "\"batch_size\": 5"},
      {"\"split\": \"train\"", "\"split\": \"trail\""},
      {"erase=1 p=0.5 ", "erase=1 p=0.6 "}};
  for (const auto& [from, to] : edits) {
    std::string edited = text;
    const size_t at = edited.find(from);
    ASSERT_NE(at, std::string::npos) << from << " in " << text;
    edited.replace(at, from.size(), to);
    ExpectError(ParseResumeState(edited, "s.json").status(),
                StatusCode::kInvalidArgument, "s.json: its check (");
  }
  std::string extra = text;
  extra.insert(1, "\"extra\": 1, ");
  ExpectError(ParseResumeState(extra, "s.json").status(),
              StatusCode::kInvalidArgument, "unknown key \"extra\"");
  std::string future = text;
  future.replace(future.find("\"version\": 3"), 12, "\"version\": 4");
  ExpectError(ParseResumeState(future, "s.json").status(),
              StatusCode::kInvalidArgument, "version 4 is not a resume state");
  // Checked, but no world size: refused by name.
  for (uint64_t world : {uint64_t{0}, uint64_t{1} << 31, uint64_t{1} << 63}) {
    ResumeState forged = MakeResumeState(p, Split::kTrain, {1, 3});
    forged.world_size = world;
    ExpectError(
        ParseResumeState(ResumeStateJson(forged), "s.json").status(),
        StatusCode::kInvalidArgument,
        absl::StrCat("s.json: world_size = ", world, " is not a world size"));
  }
  // A field of the other type: the error shows the value given.
  std::string typed = text;
  typed.replace(typed.find("\"version\": 3"), 12, "\"version\": \"3\"");
  ExpectError(ParseResumeState(typed, "s.json").status(),
              StatusCode::kInvalidArgument,
              "s.json: \"version\" must be a number, not \"3\"");
  ExpectError(ParseResumeState("{\"format\": 7}", "s.json").status(),
              StatusCode::kInvalidArgument,
              "s.json: \"format\" must be a string, not 7");
  ExpectError(ParseResumeState("{\"format\": \"fusednorm-resume-state\", "
                               "\"version\": 2}",
                               "s.json")
                  .status(),
              StatusCode::kInvalidArgument, "the key \"epoch\" is missing");
}

}  // namespace
}  // namespace fusednorm
