// Datasets: indexed collections of decoded uint8 HWC images with labels. Get()
// is thread-safe; every error names the sample (its index, and its file where
// it has one).
#ifndef FUSEDNORM_DATA_DATASET_H_
#define FUSEDNORM_DATA_DATASET_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "ops/transforms.h"

namespace fusednorm {

struct Sample {
  Image image;
  int64_t label = -1;
};

// A sample's image as the dataset stores it, for copying without decoding
// or decoding only a part: the encoded bytes (in `owned`, or in the
// dataset's own memory), their format ("jpg", "png", "npy"), and the name
// errors give them (e.g. "sample 7 (dir/a.jpg)").
struct EncodedSample {
  absl::Span<const uint8_t> bytes;
  std::vector<uint8_t> owned;
  std::string format;
  int64_t label = -1;
  std::string what;
};

class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual std::string name() const = 0;
  virtual size_t size() const = 0;
  // Channels of every image.
  virtual int channels() const = 0;
  // Decodes sample `index` (< size()).
  virtual absl::StatusOr<Sample> Get(size_t index) const = 0;

  // The same into `out`, reusing its storage; `scratch` holds the encoded
  // bytes where the dataset reads files. A worker that keeps both stops
  // allocating once they fit its largest sample. The default calls Get().
  virtual absl::Status GetInto(size_t index, Sample* out,
                               EncodedSample* scratch) const;

  // Whether GetEncodedInto gives samples (folders and shards do).
  virtual bool stores_encoded() const { return false; }
  // Sample `index` as stored, into `out` (reusing out->owned), where the
  // dataset keeps images encoded (folders, shards); Unimplemented elsewhere.
  virtual absl::Status GetEncodedInto(size_t index, EncodedSample* out) const {
    return absl::UnimplementedError(
        absl::StrCat(name(), " does not store encoded images"));
  }
  absl::StatusOr<EncodedSample> GetEncoded(size_t index) const;
};

// Procedural RGB images of varied sizes (64..320 per side), labels index % 10:
// the dataset used when no data is given. Deterministic in (seed, index).
std::unique_ptr<Dataset> MakeSyntheticDataset(size_t count, uint64_t seed = 0);

// Images held in memory (all with the same channel count).
absl::StatusOr<std::unique_ptr<Dataset>> MakeInMemoryDataset(
    std::vector<Image> images, std::vector<int64_t> labels);

// A folder with one sub-folder per class (sorted names are labels 0, 1, ...),
// each holding .jpg/.jpeg/.png files (sorted). Files are read and decoded in
// Get().
absl::StatusOr<std::unique_ptr<Dataset>> OpenImageFolder(
    const std::string& root);

// MNIST idx files (images: magic 0x803, labels: magic 0x801), loaded at open.
absl::StatusOr<std::unique_ptr<Dataset>> OpenMnist(
    const std::string& images_path, const std::string& labels_path);

// CIFAR-10 binary batches (records of 1 label byte + 3072 planar RGB bytes), at
// open.
absl::StatusOr<std::unique_ptr<Dataset>> OpenCifar10(
    const std::vector<std::string>& paths);

// The kinds OpenDataset knows: synthetic, folder, mnist, cifar10.
const std::vector<std::string>& DatasetKinds();

// Returns OK if `kind` is one OpenDataset knows, else InvalidArgument listing
// the kinds.
absl::Status CheckDatasetKind(const std::string& kind);

// Opens `kind` ("synthetic", "folder", "mnist", "cifar10") at `path`: a folder
// for "folder"; for "mnist", a directory holding train-images-idx3-ubyte and
// train-labels-idx1-ubyte (or t10k-*); for "cifar10", a directory of
// data_batch_*.bin (or test_batch.bin). "synthetic" ignores path (1024 images).
absl::StatusOr<std::unique_ptr<Dataset>> OpenDataset(const std::string& kind,
                                                     const std::string& path,
                                                     bool test_split = false);

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_DATASET_H_
