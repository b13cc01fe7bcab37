// The datasets (dataset.h): synthetic, in memory, image folders, MNIST idx
// files and CIFAR-10 batches.
#include "data/dataset.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "codecs/codec.h"
#include "core/digest.h"
#include "core/status.h"
#include "data/image_folder.h"
#include "data/read_file.h"
#include "rng/philox.h"

namespace fusednorm {
namespace {

absl::Status CheckIndex(size_t index, size_t size) {
  if (index < size) return absl::OkStatus();
  return absl::OutOfRangeError(absl::StrCat("sample ", index, " >= ", size));
}

class Synthetic : public Dataset {
 public:
  Synthetic(size_t count, uint64_t seed) : count_(count), seed_(seed) {}
  std::string name() const override {
    return absl::StrCat("synthetic(", count_, ")");
  }
  size_t size() const override { return count_; }
  int channels() const override { return 3; }
  // Labels index % 10.
  std::optional<int64_t> LargestLabel(size_t count) const override {
    return static_cast<int64_t>(std::min<size_t>(count, 10)) - 1;
  }
  uint64_t IndexDigest() const override {
    return Digest().Text("synthetic").Number(count_).Number(seed_).value();
  }
  absl::Status Read(size_t index, SampleBuffer* buffer,
                    RawSample* out) const override {
    FUSEDNORM_RETURN_IF_ERROR(CheckIndex(index, count_));
    Draw(index, &buffer->image);
    *out = RawSample();
    out->index = index;
    out->pixels = buffer->image.view();
    out->label = static_cast<int64_t>(index % 10);
    absl::StrAppend(&out->what, "sample ", index);
    return absl::OkStatus();
  }

 private:
  // Sample `index`'s picture: size and pattern from a stream of their own
  // (never the sample's).
  void Draw(size_t index, Image* image) const {
    SampleStream s(seed_ ^ 0x5e17e71cull, 0, index);
    const int64_t h = s.UniformInt(64, 320), w = s.UniformInt(64, 320);
    const float fx = 0.02f + 0.2f * s.Uniform(),
                fy = 0.02f + 0.2f * s.Uniform();
    const int tint = static_cast<int>(s.UniformInt(0, 2));
    image->height = h;
    image->width = w;
    image->channels = 3;
    image->pixels.resize(static_cast<size_t>(h * w * 3));
    uint8_t* p = image->pixels.data();
    uint32_t noise = static_cast<uint32_t>(index * 2654435761u + 1);
    for (int64_t y = 0; y < h; ++y) {
      for (int64_t x = 0; x < w; ++x, p += 3) {
        noise = noise * 1664525u + 1013904223u;
        const int wave =
            static_cast<int>(127.5f + 127.5f * std::sin(fx * x + fy * y));
        const int checker = (((x / 16) + (y / 16)) & 1) ? 40 : 0;
        p[0] = static_cast<uint8_t>((wave + (tint == 0 ? checker : 0)) & 0xff);
        p[1] = static_cast<uint8_t>((x * 255 / w + (tint == 1 ? checker : 0)) &
                                    0xff);
        p[2] = static_cast<uint8_t>(
            (y * 255 / h + (noise >> 28) + (tint == 2 ? checker : 0)) & 0xff);
      }
    }
  }

  size_t count_;
  uint64_t seed_;
};

// Images held in memory, read in place: Images of any sizes, or packed one
// after another when they share a size (MNIST's and CIFAR-10's), with no
// allocation per image, whose bookkeeping would outweigh a tiny image's
// pixels many times.
class InMemory : public Dataset {
 public:
  InMemory(std::vector<Image> images, std::vector<int64_t> labels,
           std::string name)
      : images_(std::move(images)),
        labels_(std::move(labels)),
        name_(std::move(name)) {
    if (!images_.empty()) channels_ = images_[0].channels;
    for (const Image& im : images_) {
      if (im.height != images_[0].height || im.width != images_[0].width)
        return;
    }
    if (!images_.empty())
      image_size_ = Size2{images_[0].height, images_[0].width};
  }
  // labels.size() images of `size` x `channels`, packed in `pixels`.
  InMemory(std::vector<uint8_t> pixels, Size2 size, int channels,
           std::vector<int64_t> labels, std::string name)
      : packed_(std::move(pixels)),
        labels_(std::move(labels)),
        name_(std::move(name)),
        channels_(channels),
        image_size_(size) {}
  std::string name() const override { return name_; }
  size_t size() const override { return labels_.size(); }
  int channels() const override { return channels_; }
  std::optional<Size2> image_size() const override { return image_size_; }
  std::optional<int64_t> LargestLabel(size_t count) const override {
    int64_t largest = -1;
    for (size_t i = 0; i < count && i < labels_.size(); ++i)
      largest = std::max(largest, labels_[i]);
    return largest;
  }
  // The pixels and labels, digested on first use.
  uint64_t IndexDigest() const override {
    std::call_once(digest_once_, [&] {
      Digest d;
      d.Text("in-memory").Number(size());
      for (size_t i = 0; i < size(); ++i) {
        const ImageView im = At(i);
        d.Number(static_cast<uint64_t>(im.height))
            .Number(static_cast<uint64_t>(im.width))
            .Number(static_cast<uint64_t>(labels_[i]))
            .Bytes(im.pixels.data(), im.pixels.size());
      }
      digest_ = d.value();
    });
    return digest_;
  }
  absl::Status Read(size_t index, SampleBuffer*,
                    RawSample* out) const override {
    FUSEDNORM_RETURN_IF_ERROR(CheckIndex(index, size()));
    *out = RawSample();
    out->index = index;
    out->pixels = At(index);
    out->label = labels_[index];
    absl::StrAppend(&out->what, "sample ", index);
    return absl::OkStatus();
  }

 private:
  ImageView At(size_t i) const {
    if (packed_.empty()) return images_[i].view();
    const int64_t row = image_size_->width * channels_;
    const size_t bytes = static_cast<size_t>(image_size_->height * row);
    return {absl::MakeConstSpan(packed_).subspan(i * bytes, bytes),
            image_size_->height, image_size_->width, channels_, row};
  }

  std::vector<Image> images_;    // or
  std::vector<uint8_t> packed_;  // size() images of image_size_
  std::vector<int64_t> labels_;
  std::string name_;
  int channels_ = 3;
  std::optional<Size2> image_size_;  // when every image has it
  mutable std::once_flag digest_once_;
  mutable uint64_t digest_ = 0;
};

class Folder : public Dataset {
 public:
  Folder(std::string root, std::vector<FolderFile> files)
      : root_(std::move(root)), files_(std::move(files)) {}
  std::string name() const override {
    return absl::StrCat("folder(", root_, ")");
  }
  size_t size() const override { return files_.size(); }
  int channels() const override { return 3; }
  std::optional<int64_t> LargestLabel(size_t count) const override {
    int64_t largest = -1;
    for (size_t i = 0; i < count && i < files_.size(); ++i)
      largest = std::max(largest, files_[i].label);
    return largest;
  }
  // The files' paths below the root, labels and sizes (a file that cannot
  // be looked at counts as size 2^64 - 1), on first use.
  uint64_t IndexDigest() const override {
    std::call_once(digest_once_, [&] {
      Digest d;
      d.Text("folder").Number(files_.size());
      for (const auto& [path, label] : files_) {
        struct stat st;
        const uint64_t size = stat(path.c_str(), &st) == 0
                                  ? static_cast<uint64_t>(st.st_size)
                                  : ~uint64_t{0};
        d.Text(absl::string_view(path).substr(root_.size()))
            .Number(static_cast<uint64_t>(label))
            .Number(size);
      }
      digest_ = d.value();
    });
    return digest_;
  }
  absl::Status Read(size_t index, SampleBuffer* buffer,
                    RawSample* out) const override {
    FUSEDNORM_RETURN_IF_ERROR(CheckIndex(index, files_.size()));
    const std::string& path = files_[index].path;
    *out = RawSample();
    out->index = index;
    absl::StrAppend(&out->what, "sample ", index, " (", path, ")");
    FUSEDNORM_RETURN_IF_ERROR(
        PrefixStatus(ReadFileInto(path, &buffer->bytes, kMaxImageFileBytes),
                     "sample " + std::to_string(index) + ": "));
    out->encoded = buffer->bytes;
    out->label = files_[index].label;
    return absl::OkStatus();
  }

 private:
  std::string root_;
  std::vector<FolderFile> files_;
  mutable std::once_flag digest_once_;
  mutable uint64_t digest_ = 0;
};

uint32_t BigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) |
         (uint32_t{p[2]} << 8) | p[3];
}

}  // namespace

uint64_t Dataset::IndexDigest() const {
  return Digest().Text(name()).Number(size()).value();
}

absl::StatusOr<Image> DecodeRawSample(const RawSample& raw) {
  if (raw.is_encoded()) return DecodeWhole(raw.encoded, raw.what);
  const ImageView& v = raw.pixels;
  Image image;
  FUSEDNORM_RETURN_IF_ERROR(ShapeImage(v.height, v.width, v.channels, &image));
  for (int64_t y = 0; y < v.height; ++y) {
    std::copy_n(v.pixels.begin() + y * v.row_stride, v.width * v.channels,
                image.pixels.begin() + y * v.width * v.channels);
  }
  return image;
}

absl::StatusOr<Sample> DecodeSample(const Dataset& dataset, size_t index) {
  SampleBuffer buffer;
  RawSample raw;
  FUSEDNORM_RETURN_IF_ERROR(dataset.Read(index, &buffer, &raw));
  absl::StatusOr<Image> image = DecodeRawSample(raw);
  // A source that changed under the read explains any decoding error.
  FUSEDNORM_RETURN_IF_ERROR(dataset.CheckUnchanged(raw));
  if (!image.ok()) return image.status();
  return Sample{*std::move(image), raw.label};
}

std::unique_ptr<Dataset> MakeSyntheticDataset(size_t count, uint64_t seed) {
  return std::make_unique<Synthetic>(count, seed);
}

absl::StatusOr<std::unique_ptr<Dataset>> MakeInMemoryDataset(
    std::vector<Image> images, std::vector<int64_t> labels) {
  if (labels.size() != images.size()) {
    return absl::InvalidArgumentError(absl::StrCat("labels has ", labels.size(),
                                                   " entries but images has ",
                                                   images.size()));
  }
  for (size_t i = 0; i < images.size(); ++i) {
    const Image& im = images[i];
    if (im.channels != images[0].channels || im.height < 1 || im.width < 1 ||
        im.pixels.size() !=
            static_cast<size_t>(im.height * im.width * im.channels)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "image ", i, " (", im.height, "x", im.width, "x", im.channels, ", ",
          im.pixels.size(),
          " bytes) is empty, inconsistent or has another channel count"));
    }
  }
  return std::unique_ptr<Dataset>(
      new InMemory(std::move(images), std::move(labels), "in-memory"));
}

absl::StatusOr<std::unique_ptr<Dataset>> OpenImageFolder(
    const std::string& root) {
  FUSEDNORM_ASSIGN_OR_RETURN(std::vector<FolderFile> files,
                             ListImageFolder(root));
  return std::unique_ptr<Dataset>(new Folder(root, std::move(files)));
}

namespace {

// InvalidArgument naming `path` unless `bytes` starts with an idx header of
// `header` bytes and `magic`: what the file is instead (empty, too short, or
// the magic it has).
absl::Status CheckIdxHeader(const std::vector<uint8_t>& bytes, size_t header,
                            uint32_t magic, const std::string& path,
                            const char* what) {
  if (bytes.empty())
    return InvalidArgumentCat(path, ": the file is empty, not ", what);
  if (bytes.size() < header) {
    return InvalidArgumentCat(path, ": ", bytes.size(), " bytes, shorter than ",
                              what, "'s ", header, "-byte header");
  }
  const uint32_t found = BigEndian32(bytes.data());
  if (found >> 16 == 0x1f8b) {  // as the files are published
    return InvalidArgumentCat(path, ": a gzip file, not ", what,
                              " (gunzip it first)");
  }
  if (found != magic) {
    return InvalidArgumentCat(path, ": not ", what, " (magic ",
                              absl::StrFormat("0x%x", found), ", not ",
                              absl::StrFormat("0x%x", magic), ")");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Dataset>> OpenMnist(
    const std::string& images_path, const std::string& labels_path) {
  FUSEDNORM_ASSIGN_OR_RETURN(const std::vector<uint8_t> im,
                             ReadFileBytes(images_path, kMaxDatasetFileBytes));
  FUSEDNORM_ASSIGN_OR_RETURN(const std::vector<uint8_t> lb,
                             ReadFileBytes(labels_path, kMaxDatasetFileBytes));
  FUSEDNORM_RETURN_IF_ERROR(
      CheckIdxHeader(im, 16, 0x803, images_path, "an idx3 image file"));
  FUSEDNORM_RETURN_IF_ERROR(
      CheckIdxHeader(lb, 8, 0x801, labels_path, "an idx1 label file"));
  const uint64_t n = BigEndian32(im.data() + 4),
                 rows = BigEndian32(im.data() + 8),
                 cols = BigEndian32(im.data() + 12);
  if (rows < 1 || cols < 1 || rows > 4096 || cols > 4096) {
    return absl::InvalidArgumentError(absl::StrCat(
        images_path, ": image size ", rows, "x", cols, " is not supported"));
  }
  if (im.size() != 16 + n * rows * cols) {
    return absl::InvalidArgumentError(absl::StrCat(
        images_path, ": has ", im.size(), " bytes but ", n, " images of ", rows,
        "x", cols, " need ", 16 + n * rows * cols));
  }
  if (BigEndian32(lb.data() + 4) != n || lb.size() != 8 + n) {
    return absl::InvalidArgumentError(
        absl::StrCat(labels_path, ": does not hold exactly ", n, " labels"));
  }
  std::vector<int64_t> labels(lb.begin() + 8, lb.end());
  auto ds = std::unique_ptr<Dataset>(new InMemory(
      std::vector<uint8_t>(im.begin() + 16, im.end()),
      Size2{static_cast<int64_t>(rows), static_cast<int64_t>(cols)}, 1,
      std::move(labels), absl::StrCat("mnist(", images_path, ")")));
  return ds;
}

absl::StatusOr<std::unique_ptr<Dataset>> OpenCifar10(
    const std::vector<std::string>& paths) {
  constexpr size_t kRecord = 1 + 3072;
  std::vector<uint8_t> pixels;  // HWC, one image after another
  std::vector<int64_t> labels;
  for (const std::string& path : paths) {
    FUSEDNORM_ASSIGN_OR_RETURN(const std::vector<uint8_t> bytes,
                               ReadFileBytes(path, kMaxDatasetFileBytes));
    if (bytes.empty() || bytes.size() % kRecord != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": ", bytes.size(),
          " bytes is not a whole number of 3073-byte CIFAR-10 records"));
    }
    for (size_t r = 0; r < bytes.size() / kRecord; ++r) {
      const uint8_t* rec = bytes.data() + r * kRecord;
      if (rec[0] > 9) {
        return absl::InvalidArgumentError(absl::StrCat(path, ": record ", r,
                                                       " has label ", rec[0],
                                                       " (CIFAR-10 has 0..9)"));
      }
      const size_t at = pixels.size();
      pixels.resize(at + 3072);
      for (int p = 0; p < 1024; ++p) {
        for (int c = 0; c < 3; ++c)
          pixels[at + p * 3 + c] = rec[1 + c * 1024 + p];
      }
      labels.push_back(rec[0]);
    }
  }
  if (labels.empty())
    return absl::InvalidArgumentError("no CIFAR-10 batch files given");
  return std::unique_ptr<Dataset>(new InMemory(
      std::move(pixels), Size2{32, 32}, 3, std::move(labels), "cifar10"));
}

const std::vector<std::string>& DatasetKinds() {
  static const auto* kinds =
      new std::vector<std::string>{"synthetic", "folder", "mnist", "cifar10"};
  return *kinds;
}

absl::Status CheckDatasetKind(const std::string& kind) {
  for (const std::string& known : DatasetKinds()) {
    if (kind == known) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("dataset kind \"", kind, "\" is not one of ",
                   absl::StrJoin(DatasetKinds(), ", ")));
}

namespace {
thread_local const void* thread_read_ahead = nullptr;
}  // namespace

void SetThreadReadAhead(const void* token) { thread_read_ahead = token; }
const void* ThreadReadAhead() { return thread_read_ahead; }

bool DatasetReadsFiles(const std::string& kind) { return kind != "synthetic"; }

absl::StatusOr<std::unique_ptr<Dataset>> OpenDataset(const std::string& kind,
                                                     const std::string& path,
                                                     bool test_split) {
  FUSEDNORM_RETURN_IF_ERROR(CheckDatasetKind(kind));
  if (!DatasetReadsFiles(kind)) return MakeSyntheticDataset(1024);
  if (kind == "folder") return OpenImageFolder(path);
  if (kind == "mnist") {
    const std::string prefix = test_split ? "t10k" : "train";
    return OpenMnist(absl::StrCat(path, "/", prefix, "-images-idx3-ubyte"),
                     absl::StrCat(path, "/", prefix, "-labels-idx1-ubyte"));
  }
  std::vector<std::string> files;  // cifar10
  if (test_split) {
    files.push_back(absl::StrCat(path, "/test_batch.bin"));
  } else {
    for (int i = 1; i <= 5; ++i)
      files.push_back(absl::StrCat(path, "/data_batch_", i, ".bin"));
  }
  return OpenCifar10(files);
}

}  // namespace fusednorm
