// `fusednorm pack`: writes a dataset (an image folder, shards, or a built-in
// dataset) as WebDataset shards any tar reader can open. Each sample is a
// key (its index, 9 digits) with an image member and a .cls label member.
//
//   --encoding jpeg  the stored JPEG/PNG bytes, or, for an image resized to
//                    --max-side (or a dataset that stores decoded images), a
//                    JPEG at --quality; every JPEG rewritten losslessly with
//                    restart markers (--jpeg-restart, jpeg_transcode.h) unless
//                    --jpeg-restart=keep;
//   --encoding raw   a uint8 (H, W, C) .npy: nothing to decode at load time.
//
// A new shard starts when the next sample would take the current one past
// --shard-bytes. Each shard is written to NAME.tmp and renamed when complete.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ops/resize.h"
#include "pipeline/codecs.h"
#include "pipeline/jpeg_transcode.h"
#include "pipeline/npy.h"
#include "pipeline/recipe.h"
#include "pipeline/tar.h"
#include "tools/atomic_file.h"
#include "tools/commands.h"
#include "tools/options.h"
#include "tools/progress.h"
#include "util/status_macros.h"

namespace fusednorm {
namespace {

// One sample's members: (extension, bytes).
using Members = std::vector<std::pair<std::string, std::vector<uint8_t>>>;

std::vector<uint8_t> Bytes(const EncodedSample& e) {
  return std::vector<uint8_t>(e.bytes.begin(), e.bytes.end());
}

// How many JPEGs got restart markers, and how many were kept as they are.
struct RestartCounts {
  size_t added = 0, kept = 0;
};

// `jpeg` with the restart markers `o` asks for: as it is with
// --jpeg-restart=keep, or, with a warning on `err`, where it cannot be
// rewritten losslessly (loading then treats it as it would have).
std::vector<uint8_t> WithRestarts(std::vector<uint8_t> jpeg,
                                  const std::string& what, const PackOptions& o,
                                  FILE* err, RestartCounts* counts) {
  if (!o.jpeg_restart) return jpeg;
  absl::StatusOr<std::vector<uint8_t>> out =
      AddRestartMarkers(jpeg, what, *o.jpeg_restart);
  if (!out.ok()) {
    ++counts->kept;
    std::fprintf(err, "warning: kept as it is: %s\n",
                 std::string(out.status().message()).c_str());
    return jpeg;
  }
  ++counts->added;
  return *std::move(out);
}

// The stored image member: its bytes, a JPEG's with restart markers.
Members Stored(const EncodedSample& e, const PackOptions& o, FILE* err,
               RestartCounts* counts) {
  if (e.format != "jpg") return Members{{e.format, Bytes(e)}};
  return Members{{e.format, WithRestarts(Bytes(e), e.what, o, err, counts)}};
}

// The image scaled so that its longer side is at most `max_side` (Pillow's
// filter), or nullopt when it already fits.
absl::StatusOr<std::optional<Image>> Shrunk(const Image& image,
                                            int64_t max_side) {
  const int64_t longer = std::max(image.height, image.width);
  if (max_side <= 0 || longer <= max_side) return std::nullopt;
  const double s = static_cast<double>(max_side) / longer;
  const Size2 size{std::max<int64_t>(1, std::lround(image.height * s)),
                   std::max<int64_t>(1, std::lround(image.width * s))};
  Image out;
  FUSEDNORM_RETURN_IF_ERROR(ResizeBox(image.view(),
                                      {0, 0, image.height, image.width}, size,
                                      ResizeFilter::kPil, &out));
  return out;
}

// The image member of sample `index` and its label.
absl::StatusOr<Members> EncodeSample(const Dataset& data, size_t index,
                                     const PackOptions& o, int64_t* label,
                                     FILE* err, RestartCounts* counts) {
  absl::StatusOr<EncodedSample> stored = data.GetEncoded(index);
  const bool copyable = stored.ok() && stored->format != "npy" && !o.raw;
  if (copyable && o.max_side <= 0) {
    *label = stored->label;
    return Stored(*stored, o, err, counts);
  }
  FUSEDNORM_ASSIGN_OR_RETURN(Sample sample, data.Get(index));
  *label = sample.label;
  FUSEDNORM_ASSIGN_OR_RETURN(std::optional<Image> shrunk,
                             Shrunk(sample.image, o.max_side));
  if (!shrunk && copyable) return Stored(*stored, o, err, counts);
  const Image& image = shrunk ? *shrunk : sample.image;
  if (o.raw) {
    const std::string header =
        NpyHeader("|u1", {image.height, image.width, image.channels});
    std::vector<uint8_t> npy(header.begin(), header.end());
    npy.insert(npy.end(), image.pixels.begin(), image.pixels.end());
    return Members{{"npy", std::move(npy)}};
  }
  if (image.channels != 3) {
    return InvalidArgumentCat("sample ", index, " has ", image.channels,
                              " channels: --encoding=jpeg needs 3; use raw");
  }
  FUSEDNORM_ASSIGN_OR_RETURN(std::vector<uint8_t> jpeg,
                             EncodeJpeg(image, o.quality));
  return Members{
      {"jpg", WithRestarts(std::move(jpeg), absl::StrCat("sample ", index), o,
                           err, counts)}};
}

// The shards being written: the current one, and the paths of those done.
class ShardWriter {
 public:
  explicit ShardWriter(const PackOptions& o) : o_(o) {}

  absl::Status Add(size_t index, Members members) {
    uint64_t bytes = 0;
    for (const auto& m : members) {
      bytes += kTarBlock + m.second.size() + TarPadding(m.second.size());
    }
    if (file_ &&
        file_->bytes_written() + bytes + 2 * kTarBlock > o_.shard_bytes) {
      FUSEDNORM_RETURN_IF_ERROR(Close());
    }
    if (!file_) {
      paths_.push_back(o_.ShardPath(paths_.size()));
      FUSEDNORM_ASSIGN_OR_RETURN(AtomicFile f,
                                 AtomicFile::Create(paths_.back()));
      file_ = std::make_unique<AtomicFile>(std::move(f));
    }
    const std::string key = absl::StrFormat("%09d", index);
    for (const auto& [ext, body] : members) {
      FUSEDNORM_ASSIGN_OR_RETURN(const std::string header,
                                 TarFileHeader(key + "." + ext, body.size()));
      FUSEDNORM_RETURN_IF_ERROR(Put(header));
      FUSEDNORM_RETURN_IF_ERROR(file_->Write(body));
      FUSEDNORM_RETURN_IF_ERROR(Put(std::string(TarPadding(body.size()), 0)));
    }
    return absl::OkStatus();
  }

  // Ends the current shard (two zero blocks) and renames it into place.
  absl::Status Close() {
    if (!file_) return absl::OkStatus();
    FUSEDNORM_RETURN_IF_ERROR(Put(std::string(2 * kTarBlock, '\0')));
    total_ += file_->bytes_written();
    const absl::Status s = file_->Commit();
    file_.reset();
    return s;
  }

  const std::vector<std::string>& paths() const { return paths_; }
  uint64_t total_bytes() const { return total_; }

 private:
  absl::Status Put(const std::string& s) {
    return file_->Write({reinterpret_cast<const uint8_t*>(s.data()), s.size()});
  }

  const PackOptions& o_;
  std::unique_ptr<AtomicFile> file_;
  std::vector<std::string> paths_;
  uint64_t total_ = 0;  // bytes of the closed shards
};

}  // namespace

absl::Status PackCommand(FILE* out, FILE* err) {
  FUSEDNORM_ASSIGN_OR_RETURN(const PackOptions o, PackOptionsFromFlags());
  FUSEDNORM_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> data,
                             OpenRecipeDataset(o.source));
  if (data->size() == 0)
    return InvalidArgumentCat(data->name(), " has no samples to pack");
  Progress progress(err, data->size());
  ShardWriter shards(o);
  RestartCounts restarts;
  for (size_t i = 0; i < data->size(); ++i) {
    int64_t label = -1;
    FUSEDNORM_ASSIGN_OR_RETURN(
        Members members, EncodeSample(*data, i, o, &label, err, &restarts));
    const std::string cls = absl::StrCat(label);
    members.emplace_back("cls", std::vector<uint8_t>(cls.begin(), cls.end()));
    FUSEDNORM_RETURN_IF_ERROR(shards.Add(i, std::move(members)));
    progress.Batch(1);
  }
  FUSEDNORM_RETURN_IF_ERROR(shards.Close());
  progress.Finish();
  std::fprintf(out, "packed %zu samples of %s into %zu shards (%llu bytes): %s",
               data->size(), data->name().c_str(), shards.paths().size(),
               static_cast<unsigned long long>(shards.total_bytes()),
               shards.paths().front().c_str());
  if (shards.paths().size() > 1)
    std::fprintf(out, " .. %s", shards.paths().back().c_str());
  std::fprintf(out, "\n");
  if (restarts.added + restarts.kept > 0) {
    std::fprintf(out, "%zu JPEGs given restart markers, %zu kept as they are\n",
                 restarts.added, restarts.kept);
  }
  return absl::OkStatus();
}

}  // namespace fusednorm
