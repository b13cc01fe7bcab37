// RunSample with a MemoryBudget: a sample above the free bytes takes its
// decode's bytes (times three: two op buffers as large) before decoding,
// gives them back and frees its buffers after, with the batch's bytes
// unchanged; one below them takes nothing and keeps its buffers; a cancelled
// budget cancels the decode, JPEG and PNG alike, naming the file. And the
// codecs' estimates bound what their decodes hold.
#include <sys/stat.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "codecs/codec.h"
#include "codecs/encode.h"
#include "data/dataset.h"
#include "gtest/gtest.h"
#include "ops/op_table.h"
#include "pipeline/chain.h"
#include "pipeline/memory_budget.h"
#include "pipeline/runner.h"
#include "rng/philox.h"
#include "testing/jpeg_files.h"
#include "testing/temp_dir.h"

namespace fusednorm {
namespace {

// An RGB image of noisy gradients (testing/jpeg_files.h).
Image Noise(int64_t h, int64_t w, uint32_t seed) {
  return Image{
      h, w, 3,
      NoisyGradient(static_cast<int>(h), static_cast<int>(w), 3, seed)};
}

void WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// A folder of a 301x203 JPEG (sample 0) and a 150x97 PNG (sample 1).
std::unique_ptr<Dataset> Folder() {
  const std::string dir = MakeTempDir("fusednorm_budget");
  mkdir((dir + "/c").c_str(), 0755);
  WriteFile(dir + "/c/a.jpg", *EncodeJpeg(Noise(301, 203, 1)));
  WriteFile(dir + "/c/b.png", *EncodePng(Noise(150, 97, 2)));
  absl::StatusOr<std::unique_ptr<Dataset>> d = OpenImageFolder(dir);
  EXPECT_TRUE(d.ok()) << d.status();
  return std::move(*d);
}

// RandomResizedCrop(32) (a window of a JPEG, all of a PNG), or the list
// `text`.
Chain MakeChain(const char* text = "RandomResizedCrop(32)") {
  absl::StatusOr<std::vector<std::unique_ptr<PreprocessOp>>> list =
      MakeTransforms(text, "list", OpContext{});
  EXPECT_TRUE(list.ok()) << list.status();
  ChainOptions options;
  absl::StatusOr<Chain> chain = BuildChain(*list, options);
  EXPECT_TRUE(chain.ok()) << chain.status();
  return std::move(*chain);
}

struct Outcome {
  absl::Status status;
  std::vector<uint8_t> batch;
};

Outcome RunOne(const Chain& chain, const Dataset& data, uint64_t index,
               MemoryBudget* budget, Workspace* ws) {
  Outcome r;
  r.batch.assign(chain.sample_bytes, 0xAB);
  SampleStream stream(7, 0, index);
  StageCounters counters;
  DecodeOptions decode;
  decode.budget = budget;
  r.status = RunSample(chain, data, index, stream, decode,
                       {absl::MakeSpan(r.batch), 0}, &counters, ws)
                 .status();
  return r;
}

TEST(RunnerBudgetTest, ALargeSampleTakesItsBytesAndFreesItsBuffers) {
  const std::unique_ptr<Dataset> data = Folder();
  const Chain chain = MakeChain();
  for (uint64_t index : {0, 1}) {
    Workspace plain;
    const Outcome expected = RunOne(chain, *data, index, nullptr, &plain);
    ASSERT_TRUE(expected.status.ok()) << expected.status;
    EXPECT_GT(plain.decoded.storage.pixels.capacity(), 0u);
    MemoryBudget budget(/*free_bytes=*/0, /*limit=*/1);
    Workspace ws;
    const Outcome run = RunOne(chain, *data, index, &budget, &ws);
    ASSERT_TRUE(run.status.ok()) << run.status;
    EXPECT_EQ(run.batch, expected.batch) << "sample " << index;
    // What it took: three times the decode's bytes, at least the decoded
    // pixels (all of the PNG; the JPEG's window and margins).
    const int64_t whole = index == 0 ? 301 * 203 * 3 : 150 * 97 * 3;
    EXPECT_GE(budget.peak(),
              3 * plain.decoded.view.height * plain.decoded.view.width * 3);
    if (index == 1) EXPECT_EQ(budget.peak(), 3 * whole);
    EXPECT_EQ(ws.budgeted, 0);
    EXPECT_EQ(ws.decoded.storage.pixels.capacity(), 0u);
    EXPECT_EQ(ws.a.pixels.capacity(), 0u);
    EXPECT_EQ(ws.b.pixels.capacity(), 0u);
    // Given back: the whole limit can be taken again at once.
    EXPECT_TRUE(budget.Acquire(1));
  }
}

TEST(RunnerBudgetTest, ASmallSampleTakesNothingAndKeepsItsBuffers) {
  const std::unique_ptr<Dataset> data = Folder();
  const Chain chain = MakeChain();
  for (uint64_t index : {0, 1}) {
    MemoryBudget budget(/*free_bytes=*/int64_t{1} << 30, /*limit=*/1);
    Workspace ws;
    ASSERT_TRUE(RunOne(chain, *data, index, &budget, &ws).status.ok());
    EXPECT_EQ(budget.peak(), 0);
    EXPECT_GT(ws.decoded.storage.pixels.capacity(), 0u);
  }
}

// A file of more than 64 MiB (a JPEG carrying 1,025 comments of 64 KiB) is
// not kept in the worker's read buffer after its sample, budget or not; a
// small one is, for the next read.
TEST(RunnerBudgetTest, ALargeFilesBytesAreNotKept) {
  const std::string dir = MakeTempDir("fusednorm_budget");
  ASSERT_EQ(mkdir((dir + "/c").c_str(), 0755), 0);
  const std::vector<uint8_t> jpeg = *EncodeJpeg(Noise(40, 30, 3));
  std::vector<uint8_t> big = {0xFF, 0xD8};
  for (int i = 0; i < 1025; ++i) {
    big.insert(big.end(), {0xFF, 0xFE, 0xFF, 0xFF});
    big.insert(big.end(), 0xFFFF - 2, static_cast<uint8_t>('c'));
  }
  big.insert(big.end(), jpeg.begin() + 2, jpeg.end());
  WriteFile(dir + "/c/big.jpg", big);
  WriteFile(dir + "/c/small.jpg", jpeg);
  const std::unique_ptr<Dataset> data = *OpenImageFolder(dir);
  const Chain chain = MakeChain("CenterCrop(24)");
  MemoryBudget budget(int64_t{1} << 30, 1);
  for (MemoryBudget* b : {static_cast<MemoryBudget*>(nullptr), &budget}) {
    Workspace ws;
    const Outcome small = RunOne(chain, *data, 1, b, &ws);
    ASSERT_TRUE(small.status.ok()) << small.status;
    EXPECT_GE(ws.read.bytes.capacity(), jpeg.size());
    const Outcome large = RunOne(chain, *data, 0, b, &ws);
    ASSERT_TRUE(large.status.ok()) << large.status;
    EXPECT_EQ(large.batch, small.batch);  // the same pixels
    EXPECT_EQ(ws.read.bytes.capacity(), 0u);
  }
}

TEST(RunnerBudgetTest, ACancelledBudgetCancelsTheDecodeNamingTheFile) {
  const std::unique_ptr<Dataset> data = Folder();
  const Chain chain = MakeChain();
  for (uint64_t index : {0, 1}) {
    MemoryBudget budget(0, int64_t{1} << 40);
    budget.Cancel();
    Workspace ws;
    const Outcome run = RunOne(chain, *data, index, &budget, &ws);
    EXPECT_EQ(run.status.code(), absl::StatusCode::kCancelled) << run.status;
    EXPECT_NE(run.status.message().find(index == 0 ? "a.jpg" : "b.png"),
              std::string::npos)
        << run.status;
    EXPECT_EQ(ws.decoded.storage.pixels.capacity(), 0u);
    EXPECT_EQ(run.batch, std::vector<uint8_t>(chain.sample_bytes, 0xAB));
  }
}

// A file of several scans (progressive) keeps every DCT coefficient of the
// image however small the window decoded: 2 bytes a sample, taken too.
TEST(RunnerBudgetTest, AProgressiveJpegTakesItsCoefficientsToo) {
  const std::string dir = MakeTempDir("fusednorm_budget");
  mkdir((dir + "/c").c_str(), 0755);
  JpegSpec spec;
  spec.height = 300;
  spec.width = 200;
  spec.h_samp = spec.v_samp = 1;  // 4:4:4
  spec.progressive = true;
  WriteFile(dir + "/c/p.jpg",
            EncodeTestJpeg(spec, NoisyGradient(300, 200, 3, 4)));
  const std::unique_ptr<Dataset> data = *OpenImageFolder(dir);
  const Chain chain = MakeChain("RandomResizedCrop(32, scale=(0.01, 0.02))");
  MemoryBudget budget(0, 1);
  Workspace ws;
  ASSERT_TRUE(RunOne(chain, *data, 0, &budget, &ws).status.ok());
  EXPECT_GE(budget.peak(), 300 * 200 * 3 * 2);
  EXPECT_LT(budget.peak(), 300 * 200 * 3 * 2 + 3 * 300 * 200 * 3);
}

// An op may make far more pixels than the decode holds (a tiny, wide
// image resized by its shorter side): the largest output, at 4 bytes a
// pixel, counts twice where it is larger than the decode.
TEST(RunnerBudgetTest, TheLargestOutputCountsWhereItIsLarger) {
  const std::string dir = MakeTempDir("fusednorm_budget");
  mkdir((dir + "/c").c_str(), 0755);
  WriteFile(dir + "/c/w.png", *EncodePng(Noise(2, 300, 5)));
  const std::unique_ptr<Dataset> data = *OpenImageFolder(dir);
  const Chain chain = MakeChain("Resize(64), CenterCrop(8)");
  MemoryBudget budget(0, 1);
  Workspace ws;
  ASSERT_TRUE(RunOne(chain, *data, 0, &budget, &ws).status.ok());
  EXPECT_EQ(budget.peak(), 2 * 300 * 3 + 2 * (4 * 64 * 9600));
}

// A sample whose plan fails is not decoded (nor charged): its error is the
// plan's.
TEST(RunnerBudgetTest, ASampleThatCannotBePlannedIsNotDecoded) {
  const std::unique_ptr<Dataset> data = Folder();
  const Chain chain = MakeChain("RandomCrop(400)");
  for (uint64_t index : {0, 1}) {
    MemoryBudget budget(0, int64_t{1} << 40);
    Workspace ws;
    const Outcome run = RunOne(chain, *data, index, &budget, &ws);
    EXPECT_EQ(run.status.code(), absl::StatusCode::kInvalidArgument)
        << run.status;
    EXPECT_EQ(budget.peak(), 0);
    EXPECT_EQ(ws.decoded.storage.pixels.capacity(), 0u);
  }
}

// Decodes of windows and scales hold no more than the codec's estimate.
TEST(RunnerBudgetTest, TheJpegEstimateBoundsItsDecodes) {
  for (int64_t h : {301, 64, 9}) {
    const std::vector<uint8_t> jpg = *EncodeJpeg(Noise(h, 203, 3));
    const Codec* codec = SniffCodec(jpg);
    ASSERT_NE(codec, nullptr);
    uint32_t x = 12345;
    for (int trial = 0; trial < 200; ++trial) {
      const auto draw = [&](int64_t n) {
        x = x * 1664525u + 1013904223u;
        return static_cast<int64_t>((x >> 8) % n);
      };
      DecodeRequest r;
      r.scale = 1 << draw(4);
      const int64_t top = draw(h), left = draw(203);
      if (trial % 5 != 0)
        r.region =
            CropWindow{top, left, 1 + draw(h - top), 1 + draw(203 - left)};
      DecodedImage d;
      ASSERT_TRUE(Decode(
                      jpg, "x.jpg", [&](const DecodeHeader&) { return r; }, &d)
                      .ok());
      EXPECT_LE(static_cast<int64_t>(d.storage.pixels.size()),
                codec->decoded_bytes(Size2{h, 203}, r))
          << "scale " << r.scale << " trial " << trial;
    }
  }
}

}  // namespace
}  // namespace fusednorm
