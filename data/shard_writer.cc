// PackDataset (shard_writer.h): each sample's members, then shards of them.
#include "data/shard_writer.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "codecs/codec.h"
#include "codecs/encode.h"
#include "codecs/npy.h"
#include "core/status.h"
#include "data/atomic_file.h"
#include "data/shard_index.h"
#include "data/tar.h"
#include "ops/resize.h"

namespace fusednorm {
namespace {

// One sample's members: (extension, bytes).
using Members = std::vector<std::pair<std::string, std::vector<uint8_t>>>;

// The member extension of bytes a codec knows ("jpg", "png", "npy").
std::string Extension(const Codec& codec) {
  return codec.name == std::string("jpeg") ? "jpg" : codec.name;
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

// A JPEG member with the restart markers `o` asks for: as it is where it
// cannot be rewritten losslessly (a warning says so; loading treats it as
// before).
std::vector<uint8_t> WithRestarts(std::vector<uint8_t> jpeg,
                                  const std::string& what, const PackOptions& o,
                                  PackReport* report) {
  if (!o.jpeg_restart) return jpeg;
  absl::StatusOr<std::vector<uint8_t>> out =
      AddRestartMarkers(jpeg, what, *o.jpeg_restart);
  if (!out.ok()) {
    ++report->restarts_kept;
    report->warnings.push_back(
        absl::StrCat("kept as it is: ", out.status().message()));
    return jpeg;
  }
  ++report->restarts_added;
  return *std::move(out);
}

// `image` as the member the encoding asks for.
absl::StatusOr<Members> Encoded(const Image& image, size_t index,
                                const PackOptions& o, PackReport* report) {
  if (o.raw) {
    const std::string header =
        NpyHeader("|u1", {image.height, image.width, image.channels});
    std::vector<uint8_t> npy(header.begin(), header.end());
    npy.insert(npy.end(), image.pixels.begin(), image.pixels.end());
    return Members{{"npy", std::move(npy)}};
  }
  if (image.channels != 3) {
    return InvalidArgumentCat("sample ", index, " has ", image.channels,
                              " channels: the jpeg encoding needs 3; use raw");
  }
  FUSEDNORM_ASSIGN_OR_RETURN(std::vector<uint8_t> jpeg,
                             EncodeJpeg(image, o.quality));
  return Members{
      {"jpg", WithRestarts(std::move(jpeg), absl::StrCat("sample ", index), o,
                           report)}};
}

// The stored bytes as a member (a JPEG's with restart markers).
Members Stored(const RawSample& raw, const Codec& codec, const PackOptions& o,
               PackReport* report) {
  std::vector<uint8_t> bytes(raw.encoded.begin(), raw.encoded.end());
  const std::string ext = Extension(codec);
  if (ext == "jpg") bytes = WithRestarts(std::move(bytes), raw.what, o, report);
  return Members{{ext, std::move(bytes)}};
}

// The image member of sample `index` and its label: the stored bytes when
// they may be kept, else the decoded image, shrunk and encoded.
absl::StatusOr<Members> SampleMembers(const Dataset& data, size_t index,
                                      const PackOptions& o, int64_t* label,
                                      PackReport* report) {
  SampleBuffer buffer;
  RawSample raw;
  FUSEDNORM_RETURN_IF_ERROR(data.Read(index, &buffer, &raw));
  *label = raw.label;
  const Codec* codec = raw.is_encoded() ? SniffCodec(raw.encoded) : nullptr;
  const bool keep = codec != nullptr && codec->channels == 3 && !o.raw;
  Members members;
  if (keep && o.max_side <= 0) {
    members = Stored(raw, *codec, o, report);
  } else {
    FUSEDNORM_ASSIGN_OR_RETURN(const Image image, DecodeRawSample(raw));
    FUSEDNORM_ASSIGN_OR_RETURN(std::optional<Image> shrunk,
                               Shrunk(image, o.max_side));
    if (!shrunk && keep) {
      members = Stored(raw, *codec, o, report);
    } else {
      FUSEDNORM_ASSIGN_OR_RETURN(
          members, Encoded(shrunk ? *shrunk : image, index, o, report));
    }
  }
  FUSEDNORM_RETURN_IF_ERROR(data.CheckUnchanged(raw));
  return members;
}

// Bytes `members` take in a tar.
uint64_t TarBytes(const Members& members) {
  uint64_t bytes = 0;
  for (const auto& m : members)
    bytes += kTarBlock + m.second.size() + TarPadding(m.second.size());
  return bytes;
}

// The shards being written: the current one, and the paths of those done.
class ShardWriter {
 public:
  explicit ShardWriter(const PackOptions& o, PackReport* report)
      : o_(o), report_(report) {}

  absl::Status Add(size_t index, const Members& members) {
    const uint64_t bytes = TarBytes(members);
    if (file_ &&
        file_->bytes_written() + bytes + 2 * kTarBlock > o_.shard_bytes) {
      FUSEDNORM_RETURN_IF_ERROR(Close());
    }
    if (!file_) FUSEDNORM_RETURN_IF_ERROR(Open());
    if (bytes + 2 * kTarBlock > o_.shard_bytes) {
      report_->warnings.push_back(absl::StrCat(
          "sample ", index, " takes ", bytes + 2 * kTarBlock,
          " bytes, more than shard_bytes = ", o_.shard_bytes, ": it has shard ",
          report_->shards.back(), " of its own"));
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

  // Ends the current shard (two zero blocks), renames it into place and
  // writes its index beside it (data/shard_index.h).
  absl::Status Close() {
    if (!file_) return absl::OkStatus();
    FUSEDNORM_RETURN_IF_ERROR(Put(std::string(2 * kTarBlock, '\0')));
    report_->bytes += file_->bytes_written();
    const absl::Status s = file_->Commit();
    file_.reset();
    FUSEDNORM_RETURN_IF_ERROR(s);
    return WriteShardIndex(report_->shards.back()).status();
  }

 private:
  absl::Status Open() {
    report_->shards.push_back(o_.ShardPath(report_->shards.size()));
    FUSEDNORM_ASSIGN_OR_RETURN(AtomicFile f,
                               AtomicFile::Create(report_->shards.back()));
    file_ = std::make_unique<AtomicFile>(std::move(f));
    return absl::OkStatus();
  }
  absl::Status Put(const std::string& s) {
    return file_->Write({reinterpret_cast<const uint8_t*>(s.data()), s.size()});
  }

  const PackOptions& o_;
  PackReport* report_;
  std::unique_ptr<AtomicFile> file_;
};

}  // namespace

std::string PackOptions::ShardPath(size_t index) const {
  std::string n = absl::StrCat(index);
  if (n.size() < static_cast<size_t>(width)) n.insert(0, width - n.size(), '0');
  return absl::StrCat(prefix, n, suffix);
}

absl::StatusOr<PackReport> PackDataset(
    const Dataset& dataset, const PackOptions& options,
    absl::FunctionRef<bool(size_t)> progress) {
  if (dataset.size() == 0)
    return InvalidArgumentCat(dataset.name(), " has no samples to pack");
  PackReport report;
  ShardWriter shards(options, &report);
  for (size_t i = 0; i < dataset.size(); ++i) {
    int64_t label = -1;
    FUSEDNORM_ASSIGN_OR_RETURN(
        Members members, SampleMembers(dataset, i, options, &label, &report));
    const std::string cls = absl::StrCat(label);
    members.emplace_back("cls", std::vector<uint8_t>(cls.begin(), cls.end()));
    FUSEDNORM_RETURN_IF_ERROR(shards.Add(i, members));
    ++report.samples;
    if (!progress(i)) return absl::CancelledError("interrupted");
  }
  FUSEDNORM_RETURN_IF_ERROR(shards.Close());
  return report;
}

}  // namespace fusednorm
