// Workers do not allocate per sample: an epoch of 9x the samples makes
// about as many C++ heap allocations as a short one (the difference is what
// buffers growing to a new largest crop cost), for images in memory, a JPEG
// folder and JPEG shards. Counts every operator new of the process.
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codecs/encode.h"
#include "data/shards.h"
#include "data/tar.h"
#include "gtest/gtest.h"
#include "pipeline/preprocessor.h"
#include "pipeline/recipe.h"
#include "testing/allocation_counter.h"
#include "testing/temp_dir.h"

namespace fusednorm {
namespace {

std::string TempDir() { return MakeTempDir("fusednorm_alloc"); }

// Allocations during one epoch of `data` (loader start to end), 2 threads.
long EpochAllocations(std::shared_ptr<const Dataset> data) {
  PreprocessorBuilder b;
  b.dataset(data)
      .normalization(Preset::kImagenet)
      .train_transforms(RandomResizedCrop(48), RandomHorizontalFlip(),
                        RandomErasing(0.5))
      .val_transforms(CenterCrop(48))
      .batch_size(32)
      .threads(2)
      .seed(5);
  absl::StatusOr<Preprocessor> p = b.Commit();
  EXPECT_TRUE(p.ok()) << p.status();
  const long before = Allocations();
  {
    absl::StatusOr<std::unique_ptr<EpochLoader>> loader =
        p->StartEpoch(Split::kTrain, 0);
    EXPECT_TRUE(loader.ok());
    for (;;) {
      absl::StatusOr<BatchRef> batch = (*loader)->Next();
      EXPECT_TRUE(batch.ok()) << batch.status();
      if (!batch.ok() || *batch == nullptr) break;
    }
  }
  return Allocations() - before;
}

// Same-size images (so that buffers reach their size early).
std::vector<Image> Images(int n) {
  auto synth = MakeSyntheticDataset(1, 3);
  const Image base = (*DecodeSample(*synth, 0)).image;
  return std::vector<Image>(n, base);
}

// A folder of n copies of `jpg` (dir/c/*.jpg) and a shard of the same files
// (dir/s.tar), in a new dir.
std::string WriteJpegs(const std::vector<uint8_t>& jpg, int n) {
  const std::string dir = TempDir();
  mkdir((dir + "/c").c_str(), 0755);
  std::string tar;
  for (int i = 0; i < n; ++i) {
    const std::string name = std::to_string(1000 + i) + ".jpg";
    std::ofstream(dir + "/c/" + name, std::ios::binary)
        .write(reinterpret_cast<const char*>(jpg.data()), jpg.size());
    tar += *TarFileHeader(name, jpg.size()) +
           std::string(jpg.begin(), jpg.end()) +
           std::string(TarPadding(jpg.size()), '\0');
  }
  std::ofstream(dir + "/s.tar", std::ios::binary) << tar;
  return dir;
}

void ExpectNoPerSampleAllocations(
    const std::function<std::shared_ptr<const Dataset>(int)>& make,
    const char* what) {
  const long small = EpochAllocations(make(16));
  const long large = EpochAllocations(make(144));
  std::printf("%s: %ld allocations for 16 samples, %ld for 144\n", what, small,
              large);
  // 128 more samples and 4 more batches: fewer extra allocations than
  // samples (one per sample would add at least 128). Each batch makes about
  // ten (its record, its lists, the reference to it; the slot pool grows
  // once), and the workers' buffers grow at different moments, so the
  // difference varies from run to run (35 to 60 seen).
  EXPECT_LT(large - small, 100) << what;
}

TEST(Allocations, NonePerSample) {
  if (!kAllocationsCounted)
    GTEST_SKIP() << "the sanitizer's allocator replaces operator new";
  ExpectNoPerSampleAllocations(
      [](int n) {
        return std::shared_ptr<const Dataset>(
            *MakeInMemoryDataset(Images(n), std::vector<int64_t>(n, 1)));
      },
      "in memory");
  const std::vector<uint8_t> jpg = *EncodeJpeg(Images(1)[0], 90);
  const auto files = [&](int n) { return WriteJpegs(jpg, n); };
  ExpectNoPerSampleAllocations(
      [&](int n) {
        return std::shared_ptr<const Dataset>(*OpenImageFolder(files(n)));
      },
      "JPEG folder");
  ExpectNoPerSampleAllocations(
      [&](int n) {
        return std::shared_ptr<const Dataset>(
            *OpenShards({files(n) + "/s.tar"}));
      },
      "JPEG shards");
}

// One epoch of the recipe `fusednorm run` and the Python Loader build
// (pipeline/recipe.h) over `data`: its allocations, decoded pixels and
// samples.
struct RecipeEpoch {
  long allocations = 0;
  EpochLoader::DecodedPixels pixels;
  long samples = 0, batches = 0;
};

RecipeEpoch RunRecipe(const std::string& data, const LoaderSettings& loader) {
  RecipeOptions o;
  o.data = data;
  o.size = {32, 32};
  o.loader = loader;
  absl::StatusOr<std::shared_ptr<const Dataset>> dataset = OpenRecipeDataset(o);
  RecipeEpoch r;
  EXPECT_TRUE(dataset.ok()) << dataset.status();
  if (!dataset.ok()) return r;
  absl::StatusOr<Preprocessor> p = BuildRecipe(o, *dataset);
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return r;
  const long before = Allocations();
  absl::StatusOr<std::unique_ptr<EpochLoader>> epoch =
      p->StartEpoch(Split::kTrain, 0);
  EXPECT_TRUE(epoch.ok()) << epoch.status();
  if (!epoch.ok()) return r;
  for (;;) {
    absl::StatusOr<BatchRef> batch = (*epoch)->Next();
    EXPECT_TRUE(batch.ok()) << batch.status();
    if (!batch.ok() || *batch == nullptr) break;
    r.samples += static_cast<long>((*batch)->count);
    ++r.batches;
  }
  r.pixels = (*epoch)->decoded_pixels();
  r.allocations = Allocations() - before;
  return r;
}

// Every way a user can narrow or shard the recipe's epoch, for a JPEG
// folder and JPEG shards: an images limit or none, one rank of two or a
// single process, either error policy, in every combination. Each decodes
// only the crops' windows (a RandomResizedCrop's window is 8-100% of the
// image: about half on average) and allocates nothing per sample: the
// longer epoch's extra allocations are those of its extra batches (about
// ten each: the batch's record and lists, the reference to it) and of
// buffers growing, far fewer than one per extra sample.
TEST(Allocations, EveryRecipePathDecodesWindowsWithoutAllocating) {
  if (!kAllocationsCounted)
    GTEST_SKIP() << "the sanitizer's allocator replaces operator new";
  Image big;
  ASSERT_TRUE(AllocateImage(256, 320, 3, &big).ok());
  for (size_t i = 0; i < big.pixels.size(); ++i) {
    big.pixels[i] = static_cast<uint8_t>((i * 7) ^ (i / 961));
  }
  const std::vector<uint8_t> jpg = *EncodeJpeg(big, 90);
  const std::string small_dir = WriteJpegs(jpg, 16);
  const std::string large_dir = WriteJpegs(jpg, 208);
  for (const char* kind : {"", "/s.tar"}) {
    for (const bool limit : {false, true}) {
      for (const bool sharded : {false, true}) {
        for (const ErrorPolicy policy :
             {ErrorPolicy::kFail, ErrorPolicy::kSkip}) {
          const std::string what =
              absl::StrCat(*kind ? kind : "folder", limit ? " images=N-1" : "",
                           sharded ? " rank 1 of 2" : "",
                           policy == ErrorPolicy::kSkip ? " skip" : " fail");
          const auto settings = [&](size_t n) {
            LoaderSettings l = RecipeOptions::DefaultRecipeLoader();
            l.batch_size = 32;
            l.threads = 2;
            l.samples = limit ? n - 1 : 0;
            l.rank = sharded ? 1 : 0;
            l.world = sharded ? 2 : 1;
            l.policy = policy;
            return l;
          };
          const RecipeEpoch small = RunRecipe(small_dir + kind, settings(16));
          const RecipeEpoch large = RunRecipe(large_dir + kind, settings(208));
          const long samples = large.samples - small.samples;
          const long batches = large.batches - small.batches;
          EXPECT_GE(samples, 96) << what;
          EXPECT_LT(large.allocations - small.allocations,
                    samples / 2 + 12 * batches)
              << what << ": " << samples << " more samples, " << batches
              << " more batches";
          EXPECT_GT(large.pixels.whole, 0) << what;
          EXPECT_LT(large.pixels.decoded, 0.8 * large.pixels.whole) << what;
        }
      }
    }
  }
}

}  // namespace
}  // namespace fusednorm
