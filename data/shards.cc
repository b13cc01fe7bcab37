// WebDataset shards (shards.h): brace patterns, memory-mapped tar files, the
// per-sample index, and reading a sample in place.
#include "data/shards.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/status.h"
#include "codecs/codecs.h"
#include "codecs/npy.h"
#include "data/tar.h"

namespace fusednorm {
namespace {

constexpr size_t kMaxShards = 1000000;

// A read-only private mapping of a whole file (empty files map nothing).
class MappedFile {
 public:
  static absl::StatusOr<std::unique_ptr<MappedFile>> Open(
      const std::string& path) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      const std::string why = std::strerror(errno);
      return errno == ENOENT
                 ? absl::NotFoundError(absl::StrCat(path, ": ", why))
                 : absl::InvalidArgumentError(absl::StrCat(path, ": ", why));
    }
    struct stat st;
    void* map = nullptr;
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
      map = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ,
                 MAP_PRIVATE, fd, 0);
    }
    const int err = errno;
    close(fd);
    if (map == MAP_FAILED) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": cannot map: ", std::strerror(err)));
    }
    auto file = std::unique_ptr<MappedFile>(new MappedFile());
    file->data_ = static_cast<const uint8_t*>(map);
    file->size_ = map == nullptr ? 0 : static_cast<size_t>(st.st_size);
    return file;
  }
  ~MappedFile() {
    if (data_ != nullptr) munmap(const_cast<uint8_t*>(data_), size_);
  }
  absl::Span<const uint8_t> bytes() const { return {data_, size_}; }

 private:
  MappedFile() = default;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// One sample of the index.
struct ShardSample {
  uint32_t shard = 0;
  bool has_image = false;
  bool npy = false;
  std::string format;           // "jpg", "png" or "npy"
  size_t offset = 0, size = 0;  // the image member
  int64_t label = -1;
  std::string key;
};

// Splits a member name into its sample key and lower-case extension.
void KeyAndExtension(const std::string& name, std::string* key,
                     std::string* ext) {
  const size_t slash = name.rfind('/');
  const size_t dot = name.find('.', slash == std::string::npos ? 0 : slash + 1);
  *key = name.substr(0, dot);
  *ext = dot == std::string::npos ? ""
                                  : absl::AsciiStrToLower(name.substr(dot + 1));
}

class Shards : public Dataset {
 public:
  Shards(std::vector<std::string> paths,
         std::vector<std::unique_ptr<MappedFile>> files,
         std::vector<ShardSample> samples, int channels)
      : paths_(std::move(paths)),
        files_(std::move(files)),
        samples_(std::move(samples)),
        channels_(channels) {}

  std::string name() const override {
    return absl::StrCat("shards(", paths_.front(),
                        paths_.size() > 1
                            ? absl::StrCat(" + ", paths_.size() - 1, " more")
                            : "",
                        ")");
  }
  size_t size() const override { return samples_.size(); }
  int channels() const override { return channels_; }
  absl::StatusOr<Sample> Get(size_t index) const override;
  absl::Status GetInto(size_t index, Sample* out,
                       EncodedSample* scratch) const override;
  bool stores_encoded() const override { return true; }
  // Names the sample "sample 7 (shard.tar at byte 1536, key 000000007)".
  absl::Status GetEncodedInto(size_t index, EncodedSample* e) const override;

 private:
  std::vector<std::string> paths_;
  std::vector<std::unique_ptr<MappedFile>> files_;
  std::vector<ShardSample> samples_;
  int channels_;
};

absl::StatusOr<Sample> Shards::Get(size_t index) const {
  Sample out;
  EncodedSample scratch;
  FUSEDNORM_RETURN_IF_ERROR(GetInto(index, &out, &scratch));
  return out;
}

absl::Status Shards::GetInto(size_t index, Sample* out,
                             EncodedSample* scratch) const {
  FUSEDNORM_RETURN_IF_ERROR(GetEncodedInto(index, scratch));
  out->label = scratch->label;
  if (scratch->format != "npy") {
    return DecodeImageInto(scratch->bytes, scratch->what, &out->image);
  }
  // Checked at open; the one copy a Sample's owned Image needs.
  FUSEDNORM_ASSIGN_OR_RETURN(const NpyArray a,
                             ParseNpyImage(scratch->bytes, scratch->what));
  out->image.height = a.shape[0];
  out->image.width = a.shape[1];
  out->image.channels = static_cast<int>(a.shape[2]);
  out->image.pixels.assign(a.data.begin(), a.data.end());
  return absl::OkStatus();
}

absl::Status Shards::GetEncodedInto(size_t index, EncodedSample* e) const {
  if (index >= samples_.size()) {
    return absl::OutOfRangeError(
        absl::StrCat("sample ", index, " >= ", samples_.size()));
  }
  const ShardSample& s = samples_[index];
  e->bytes = files_[s.shard]->bytes().subspan(s.offset, s.size);
  e->format = s.format;
  e->label = s.label;
  e->what.clear();
  absl::StrAppend(&e->what, "sample ", index, " (", paths_[s.shard],
                  " at byte ", s.offset, ", key ", s.key, ")");
  return absl::OkStatus();
}

// Adds member `m` of shard `shard` to the index (a new sample when its key
// differs from the last one's).
absl::Status AddMember(const TarMember& m, uint32_t shard,
                       absl::Span<const uint8_t> bytes, const std::string& path,
                       std::vector<ShardSample>* samples, bool* open) {
  std::string key, ext;
  KeyAndExtension(m.name, &key, &ext);
  const bool image =
      ext == "jpg" || ext == "jpeg" || ext == "png" || ext == "npy";
  if (!image && ext != "cls") return absl::OkStatus();
  if (!*open || samples->back().shard != shard || samples->back().key != key) {
    samples->push_back({shard, false, false, "", 0, 0, -1, key});
    *open = true;
  }
  ShardSample& s = samples->back();
  const std::string where =
      absl::StrCat(path, ": member ", m.name, " at byte ", m.offset);
  if (ext == "cls") {
    const absl::string_view text(
        reinterpret_cast<const char*>(bytes.data() + m.offset), m.size);
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &s.label))
      return InvalidArgumentCat(where, ": .cls is not an integer");
    return absl::OkStatus();
  }
  if (s.has_image)
    return InvalidArgumentCat(where, ": a second image for key ", key);
  s.has_image = true;
  s.npy = ext == "npy";
  s.format = ext == "jpeg" ? "jpg" : ext;
  s.offset = m.offset;
  s.size = m.size;
  return absl::OkStatus();
}

// The channel count of sample `s` (3 for encoded images; an .npy's header
// says its own).
absl::StatusOr<int> Channels(const ShardSample& s,
                             absl::Span<const uint8_t> bytes,
                             const std::string& what) {
  if (!s.npy) return 3;
  FUSEDNORM_ASSIGN_OR_RETURN(
      const NpyArray a, ParseNpyImage(bytes.subspan(s.offset, s.size), what));
  return static_cast<int>(a.shape[2]);
}

}  // namespace

bool IsShardSpec(const std::string& data) {
  return absl::EndsWith(data, ".tar") || absl::StrContains(data, "{");
}

absl::StatusOr<std::vector<std::string>> ExpandShardSpec(
    const std::string& spec) {
  std::vector<std::string> paths;
  for (absl::string_view item : absl::StrSplit(spec, ',', absl::SkipEmpty())) {
    const size_t open = item.find('{');
    if (open == absl::string_view::npos) {
      paths.emplace_back(item);
      continue;
    }
    const size_t dots = item.find("..", open), close = item.find('}', open);
    uint64_t lo, hi;
    if (dots == absl::string_view::npos || close == absl::string_view::npos ||
        dots > close ||
        !absl::SimpleAtoi(item.substr(open + 1, dots - open - 1), &lo) ||
        !absl::SimpleAtoi(item.substr(dots + 2, close - dots - 2), &hi) ||
        lo > hi || hi - lo >= kMaxShards - paths.size()) {
      return InvalidArgumentCat("shard pattern \"", item,
                                "\" is not PREFIX{LO..HI}SUFFIX with LO <= HI");
    }
    const size_t width = dots - open - 1;
    for (uint64_t i = lo; i <= hi; ++i) {
      std::string n = absl::StrCat(i);
      if (n.size() < width) n.insert(0, width - n.size(), '0');
      paths.push_back(
          absl::StrCat(item.substr(0, open), n, item.substr(close + 1)));
    }
  }
  if (paths.empty()) return InvalidArgumentCat("no shards in \"", spec, "\"");
  return paths;
}

absl::StatusOr<std::unique_ptr<Dataset>> OpenShards(
    const std::vector<std::string>& paths) {
  std::vector<std::unique_ptr<MappedFile>> files;
  std::vector<ShardSample> samples;
  int channels = 0;
  for (uint32_t shard = 0; shard < paths.size(); ++shard) {
    FUSEDNORM_ASSIGN_OR_RETURN(files.emplace_back(),
                               MappedFile::Open(paths[shard]));
    const absl::Span<const uint8_t> bytes = files.back()->bytes();
    FUSEDNORM_ASSIGN_OR_RETURN(const std::vector<TarMember> members,
                               ReadTarIndex(bytes, paths[shard]));
    const size_t first = samples.size();
    bool open = false;
    for (const TarMember& m : members) {
      FUSEDNORM_RETURN_IF_ERROR(
          AddMember(m, shard, bytes, paths[shard], &samples, &open));
    }
    for (size_t i = first; i < samples.size(); ++i) {
      const ShardSample& s = samples[i];
      const std::string what = absl::StrCat(paths[shard], ": key ", s.key);
      if (!s.has_image)
        return InvalidArgumentCat(what, " has no .jpg/.jpeg/.png/.npy member");
      FUSEDNORM_ASSIGN_OR_RETURN(const int c, Channels(s, bytes, what));
      if (channels != 0 && c != channels) {
        return InvalidArgumentCat(what, ": ", c, " channels, earlier samples ",
                                  channels);
      }
      channels = c;
    }
  }
  if (samples.empty())
    return InvalidArgumentCat(paths.front(), ": the shards hold no samples");
  return std::make_unique<Shards>(paths, std::move(files), std::move(samples),
                                  channels);
}

}  // namespace fusednorm
