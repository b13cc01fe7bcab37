// WebDataset shards (shards.h): brace patterns, memory-mapped tar files, the
// per-sample index, and reading a sample in place.
#include "data/shards.h"

#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "codecs/codec.h"
#include "codecs/npy.h"
#include "core/digest.h"
#include "core/status.h"
#include "data/mapped_file.h"
#include "data/tar.h"

namespace fusednorm {
namespace {

constexpr size_t kMaxShards = 1000000;

// One sample of the index.
struct ShardSample {
  uint32_t shard = 0;
  bool has_image = false;
  bool npy = false;
  size_t offset = 0, size = 0;  // the image member
  std::string link_error;       // the image member is a broken link
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

  // Names the sample "sample 7 (shard.tar at byte 1536, key 000000007)".
  absl::Status Read(size_t index, SampleBuffer*,
                    RawSample* out) const override {
    if (index >= samples_.size()) {
      return absl::OutOfRangeError(
          absl::StrCat("sample ", index, " >= ", samples_.size()));
    }
    const ShardSample& s = samples_[index];
    *out = RawSample();
    out->index = index;
    out->label = s.label;
    absl::StrAppend(&out->what, "sample ", index, " (", paths_[s.shard],
                    " at byte ", s.offset, ", key ", s.key, ")");
    if (!s.link_error.empty())
      return InvalidArgumentCat(out->what, ": its image ", s.link_error);
    out->encoded = files_[s.shard]->bytes().subspan(s.offset, s.size);
    return absl::OkStatus();
  }

  absl::Status CheckUnchanged(const RawSample& sample) const override {
    return files_[samples_[sample.index].shard]->CheckUnchanged();
  }

  // The shards' base names and sizes, and the sample count.
  uint64_t IndexDigest() const override {
    Digest d;
    d.Text("shards").Number(samples_.size()).Number(paths_.size());
    for (size_t i = 0; i < paths_.size(); ++i) {
      const size_t slash = paths_[i].rfind('/');
      d.Text(slash == std::string::npos ? paths_[i]
                                        : paths_[i].substr(slash + 1))
          .Number(files_[i]->bytes().size());
    }
    return d.value();
  }

 private:
  std::vector<std::string> paths_;
  std::vector<std::unique_ptr<MappedFile>> files_;
  std::vector<ShardSample> samples_;
  int channels_;
};

// Adds member `m` of shard `shard` to the index (a new sample when its key
// differs from the last one's).
absl::Status AddMember(const TarMember& m, uint32_t shard,
                       absl::Span<const uint8_t> bytes, const std::string& path,
                       std::vector<ShardSample>* samples, bool* open) {
  std::string key, ext;
  KeyAndExtension(m.name, &key, &ext);
  const Codec* codec = CodecForExtension(ext);
  const bool image = codec != nullptr;
  if (!image && ext != "cls") return absl::OkStatus();
  if (!*open || samples->back().shard != shard || samples->back().key != key) {
    samples->push_back({shard, false, false, 0, 0, "", -1, key});
    *open = true;
  }
  ShardSample& s = samples->back();
  const std::string where =
      absl::StrCat(path, ": member ", m.name, " at byte ", m.offset);
  if (ext == "cls") {
    if (!m.link_error.empty())
      return InvalidArgumentCat(where, ": .cls ", m.link_error);
    const absl::string_view text(
        reinterpret_cast<const char*>(bytes.data() + m.offset), m.size);
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &s.label))
      return InvalidArgumentCat(where, ": .cls is not an integer");
    return absl::OkStatus();
  }
  if (s.has_image)
    return InvalidArgumentCat(where, ": a second image for key ", key);
  s.has_image = true;
  s.npy = codec->channels == 0;  // the file says (.npy)
  s.offset = m.offset;
  s.size = m.size;
  s.link_error = m.link_error;
  return absl::OkStatus();
}

// The channel count of sample `s` (3 for encoded images; an .npy's header
// says its own).
absl::StatusOr<int> Channels(const ShardSample& s,
                             absl::Span<const uint8_t> bytes,
                             const std::string& what) {
  if (!s.npy || !s.link_error.empty()) return 3;
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
    const MappedFile& file = *files.back();
    const absl::Span<const uint8_t> bytes = file.bytes();
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
        return InvalidArgumentCat(what, " has no ", KnownExtensions(),
                                  " member");
      FUSEDNORM_ASSIGN_OR_RETURN(const int c, Channels(s, bytes, what));
      if (channels != 0 && c != channels) {
        return InvalidArgumentCat(what, ": ", c, " channels, earlier samples ",
                                  channels);
      }
      channels = c;
    }
    // An index read while the shard changed under it is no index.
    FUSEDNORM_RETURN_IF_ERROR(file.CheckUnchanged());
  }
  if (samples.empty())
    return InvalidArgumentCat(paths.front(), ": the shards hold no samples");
  return std::make_unique<Shards>(paths, std::move(files), std::move(samples),
                                  channels);
}

}  // namespace fusednorm
