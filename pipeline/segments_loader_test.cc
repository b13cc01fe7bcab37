// The loader on restart-marked JPEGs (what `fusednorm pack` writes): crops
// decoded from restart segments give the same batches, byte for byte, as
// decoding whole images, from a folder and from shards, for 1 and 3 worker
// threads, over two epochs, for RandomResizedCrop's windows and
// RandomCrop's (some reaching into padding).
#include <sys/stat.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "codecs/encode.h"
#include "codecs/jpeg_segments.h"
#include "codecs/jpeg_transcode.h"
#include "data/shards.h"
#include "data/tar.h"
#include "gtest/gtest.h"
#include "ops/op_table.h"
#include "pipeline/preprocessor.h"
#include "testing/temp_dir.h"

namespace fusednorm {
namespace {

std::string TempDir() { return MakeTempDir("fusednorm_segments"); }

void WriteFile(const std::string& path, const std::string& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  std::fclose(f);
}

// Every batch's bytes of two epochs of `list`, by (epoch, global index).
std::map<uint64_t, std::vector<uint8_t>> Epochs(
    std::shared_ptr<const Dataset> data, bool crop, int threads,
    const std::string& list) {
  auto ops = MakeTransforms(list, "train_transforms", OpContext());
  EXPECT_TRUE(ops.ok()) << ops.status();
  PreprocessorBuilder b;
  b.dataset(std::move(data))
      .normalization(Preset::kImagenet)
      .train_transforms(std::move(*ops))
      .val_transforms(CenterCrop(40))
      .batch_size(5)
      .threads(threads)
      .crop_decode(crop)
      .seed(21);
  absl::StatusOr<Preprocessor> p = b.Commit();
  EXPECT_TRUE(p.ok()) << p.status();
  std::map<uint64_t, std::vector<uint8_t>> out;
  if (!p.ok()) return out;
  for (uint32_t epoch : {0u, 1u}) {
    absl::StatusOr<std::unique_ptr<EpochLoader>> loader =
        p->StartEpoch(Split::kTrain, epoch);
    EXPECT_TRUE(loader.ok()) << loader.status();
    if (!loader.ok()) return out;
    for (;;) {
      absl::StatusOr<BatchRef> batch = (*loader)->Next();
      EXPECT_TRUE(batch.ok()) << batch.status();
      if (!batch.ok() || *batch == nullptr) break;
      out[epoch * 100 + (*batch)->global_index].assign(
          (*batch)->data,
          (*batch)->data + (*batch)->count * (*batch)->sample_bytes);
    }
  }
  return out;
}

TEST(SegmentsLoader, CropsFromSegmentsGiveTheWholeDecodesBatches) {
  const std::string dir = TempDir();
  mkdir((dir + "/a").c_str(), 0755);
  auto synth = MakeSyntheticDataset(20, 5);
  std::string tar;
  for (int i = 0; i < 20; ++i) {
    const std::vector<uint8_t> jpg =
        *EncodeJpeg((*DecodeSample(*synth, i)).image, 85);
    const std::vector<uint8_t> marked = *AddRestartMarkers(
        jpg, "jpg", i % 2 ? RestartSpacing{true, 0} : RestartSpacing{false, 1});
    ASSERT_TRUE(ReadRestartLayout(marked).has_value());
    const std::string bytes(marked.begin(), marked.end());
    const std::string name = std::to_string(100 + i) + ".jpg";
    WriteFile(dir + "/a/" + name, bytes);
    tar += *TarFileHeader(name, bytes.size()) + bytes +
           std::string(TarPadding(bytes.size()), '\0');
  }
  WriteFile(dir + "/s.tar", tar);
  const std::vector<std::shared_ptr<const Dataset>> sources = {
      std::shared_ptr<const Dataset>(*OpenImageFolder(dir)),
      std::shared_ptr<const Dataset>(*OpenShards({dir + "/s.tar"}))};
  // RandomCrop's windows: inside the image (a region decode) and reaching
  // into its reflected or constant padding (the whole image).
  const char* lists[] = {
      "RandomResizedCrop(40), RandomHorizontalFlip(), RandomErasing(0.5)",
      "RandomCrop(40, padding=6, fill=(1, 2, 3)), RandomHorizontalFlip()",
      "RandomCrop((200, 150), padding=(4, 8), pad_if_needed=True, "
      "padding_mode='reflect'), Resize((40, 40))"};
  for (const auto& data : sources) {
    for (const char* list : lists) {
      SCOPED_TRACE(data->name() + ": " + list);
      const auto whole = Epochs(data, false, 2, list);
      ASSERT_EQ(whole.size(), 8u);
      for (int threads : {1, 3}) {
        EXPECT_TRUE(Epochs(data, true, threads, list) == whole)
            << threads << " threads: the batches differ";
      }
    }
  }
}

}  // namespace
}  // namespace fusednorm
