// Workers do not allocate per sample: an epoch of 9x the samples makes
// about as many C++ heap allocations as a short one (the difference is what
// buffers growing to a new largest crop cost), for images in memory, a JPEG
// folder and JPEG shards. Counts every operator new of the process.
#include <sys/stat.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <new>
#include <string>
#include <vector>

#include "codecs/encode.h"
#include "data/shards.h"
#include "data/tar.h"
#include "gtest/gtest.h"
#include "pipeline/preprocessor.h"

// Sanitizers bring their own allocator: there the test is skipped.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FUSEDNORM_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FUSEDNORM_SANITIZED 1
#endif

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

#ifndef FUSEDNORM_SANITIZED
void* operator new(size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
#endif

namespace fusednorm {
namespace {

std::string TempDir() {
  char tmpl[] = "/tmp/fusednorm_alloc_XXXXXX";
  return mkdtemp(tmpl);
}

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
  const long before = g_allocations.load();
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
  return g_allocations.load() - before;
}

// Same-size images (so that buffers reach their size early).
std::vector<Image> Images(int n) {
  auto synth = MakeSyntheticDataset(1, 3);
  const Image base = (*DecodeSample(*synth, 0)).image;
  return std::vector<Image>(n, base);
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
#ifdef FUSEDNORM_SANITIZED
  GTEST_SKIP() << "the sanitizer's allocator replaces operator new";
#endif
  ExpectNoPerSampleAllocations(
      [](int n) {
        return std::shared_ptr<const Dataset>(
            *MakeInMemoryDataset(Images(n), std::vector<int64_t>(n, 1)));
      },
      "in memory");
  // A folder of n JPEGs, and a shard of the same files, in dir.
  const std::vector<uint8_t> jpg = *EncodeJpeg(Images(1)[0], 90);
  const auto files = [&](int n) {
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
  };
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

}  // namespace
}  // namespace fusednorm
