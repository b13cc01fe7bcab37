// Datasets: indexed collections of images with labels. A sample is read as
// its dataset stores it -- encoded bytes (a JPEG, a PNG, a .npy; decoded by
// codecs/codec.h) or decoded pixels -- through one method, Read(), into
// storage the caller keeps from sample to sample. Read() is thread-safe;
// every error names the sample (its index, and its file where it has one).
#ifndef FUSEDNORM_DATA_DATASET_H_
#define FUSEDNORM_DATA_DATASET_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/geometry.h"
#include "core/image.h"

namespace fusednorm {

// A sample decoded whole (DecodeSample).
struct Sample {
  Image image;
  int64_t label = -1;
};

// One sample as its dataset stores it: exactly one of `encoded` (a JPEG,
// PNG or .npy's bytes) and `pixels` (a decoded image) is set. Both point
// into the dataset's memory or the reader's SampleBuffer, and stay valid
// until that buffer is read into again.
struct RawSample {
  size_t index = 0;  // in its dataset
  absl::Span<const uint8_t> encoded;
  ImageView pixels;
  int64_t label = -1;
  // Names the sample in errors, e.g. "sample 7 (dir/a.jpg)".
  std::string what;
  bool is_encoded() const { return pixels.pixels.data() == nullptr; }
};

// A reader's storage for Read(), kept from sample to sample: once it has
// grown to the largest sample, reading allocates nothing.
struct SampleBuffer {
  std::vector<uint8_t> bytes;  // a file's bytes
  Image image;                 // generated pixels
};

// Fetching ahead for a reader (Dataset::ReadAhead): stops when destroyed.
class ReadAheadHandle {
 public:
  virtual ~ReadAheadHandle() = default;
  // What names this read-ahead to SetThreadReadAhead: compared, never
  // followed, so it may outlive the handle.
  virtual const void* token() const { return this; }
};

// Called by each thread that reads the samples of the read-ahead `token`
// names, before its first Read (null: none): a sample its own read-ahead
// cancelled (its epoch stopping) fails its read, one that another epoch's
// cancelled is read again.
void SetThreadReadAhead(const void* token);
const void* ThreadReadAhead();

// What reading over a network cost so far (Dataset::network()).
struct NetworkCounters {
  uint64_t requests = 0;  // HTTP requests, retries included
  uint64_t bytes = 0;     // bytes received
  uint64_t retries = 0;
  uint64_t from_cache = 0;  // samples read from a local copy of their shard
  double wait_seconds = 0;  // readers' time waiting for bytes, summed
  // Times the read-ahead stopped at its memory bound (FUSEDNORM_HTTP_AHEAD_MB)
  // until readers made room.
  uint64_t bound_stops = 0;
  // CPU time of the threads that fetch ahead of the readers, summed.
  double fetch_cpu_seconds = 0;
};

class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual std::string name() const = 0;
  virtual size_t size() const = 0;
  // Channels of every image (encoded JPEG and PNG images: 3).
  virtual int channels() const = 0;
  // The size of every image when the dataset knows them all to share it
  // (MNIST, CIFAR-10, images in memory), before any sample is read.
  virtual std::optional<Size2> image_size() const { return std::nullopt; }

  // The largest label among the first `count` samples (count <= size()),
  // -1 when none has one, where the dataset knows its labels before any
  // sample is read (all of this file's and shards: their indexes hold
  // them), else nullopt. Soft targets need num_classes above it.
  virtual std::optional<int64_t> LargestLabel(size_t count) const {
    return std::nullopt;
  }

  // Reads sample `index` (< size()) into *out, using `buffer` where the
  // dataset does not keep the sample in memory.
  virtual absl::Status Read(size_t index, SampleBuffer* buffer,
                            RawSample* out) const = 0;

  // Checks, after `sample` (read by Read) was used, that its bytes were
  // still the dataset's: a shard replaced or truncated while it was read
  // is an error naming the shard. OK for datasets whose memory cannot
  // change under them.
  virtual absl::Status CheckUnchanged(const RawSample& sample) const {
    return absl::OkStatus();
  }

  // A digest of the dataset's index (core/digest.h), the same wherever the
  // same data is opened: its sample count and what tells its samples
  // apart -- the files' names (relative to the folder, or the shards'
  // base names) and sizes, an in-memory dataset's pixels and labels. A
  // resumed run compares it with the one it was saved with. The default
  // digests name() and size(). Thread-safe; may take a while the first
  // time (a folder's files are looked at once).
  virtual uint64_t IndexDigest() const;

  // Samples a reader will Read() next, in order: `next` gives the index of
  // each (false: no more), called from other threads one call at a time.
  // A dataset read over a network fetches them ahead, within a bound on
  // memory, until the handle is destroyed; the bytes Read() gives are the
  // same either way. Datasets in memory or on disk return nullptr. `next`
  // must stay callable while the handle lives.
  virtual std::unique_ptr<ReadAheadHandle> ReadAhead(
      std::function<bool(uint64_t* index)> next) const {
    return nullptr;
  }

  // Zero for datasets not read over a network.
  virtual NetworkCounters network() const { return {}; }
};

// A sample read by Read(), decoded whole into an image of its own.
absl::StatusOr<Image> DecodeRawSample(const RawSample& raw);

// Sample `index` read and decoded whole (a copy of its own): for tools and
// tests; the loader decodes only what each sample needs instead.
absl::StatusOr<Sample> DecodeSample(const Dataset& dataset, size_t index);

// Procedural RGB images of varied sizes (64..320 per side), labels index % 10:
// the dataset used when no data is given. Deterministic in (seed, index).
std::unique_ptr<Dataset> MakeSyntheticDataset(size_t count, uint64_t seed = 0);

// Images held in memory (all with the same channel count).
absl::StatusOr<std::unique_ptr<Dataset>> MakeInMemoryDataset(
    std::vector<Image> images, std::vector<int64_t> labels);

// A folder with one sub-folder per class, its files listed as torchvision's
// ImageFolder lists them (data/image_folder.h says how and what is refused).
// Files are read in Read(); a file that changed while it was read is an
// error.
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

// Whether OpenDataset reads `kind` from files at a path (all but synthetic).
bool DatasetReadsFiles(const std::string& kind);

// Opens `kind` ("synthetic", "folder", "mnist", "cifar10") at `path`: a folder
// for "folder"; for "mnist", a directory holding train-images-idx3-ubyte and
// train-labels-idx1-ubyte (or t10k-*); for "cifar10", a directory of
// data_batch_*.bin (or test_batch.bin). "synthetic" ignores path (1024 images).
absl::StatusOr<std::unique_ptr<Dataset>> OpenDataset(const std::string& kind,
                                                     const std::string& path,
                                                     bool test_split = false);

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_DATASET_H_
