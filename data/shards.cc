// WebDataset shards (shards.h): brace patterns, memory-mapped tar files, the
// per-sample index, and reading a sample in place.
#include "data/shards.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/digest.h"
#include "core/status.h"
#include "data/mapped_file.h"
#include "data/read_file.h"
#include "data/remote_store.h"
#include "data/remote_url.h"
#include "data/shard_index.h"

namespace fusednorm {
namespace {

constexpr size_t kMaxShards = 1000000;

// Where sample i lies: its shard and its entry in the shard's index.
struct Located {
  uint32_t shard;
  const ShardEntry& entry;
};

class Shards : public Dataset {
 public:
  // `names`: the shards as messages show them. Either `files` (local
  // shards) or `remote` is set. `ends[s]`: the samples of shards 0..s.
  Shards(std::vector<std::string> names,
         std::vector<std::unique_ptr<MappedFile>> files,
         std::unique_ptr<RemoteStore> remote, std::vector<ShardIndex> indexes,
         std::vector<uint64_t> ends, int channels)
      : names_(std::move(names)),
        files_(std::move(files)),
        remote_(std::move(remote)),
        indexes_(std::move(indexes)),
        ends_(std::move(ends)),
        channels_(channels) {}

  std::string name() const override {
    return absl::StrCat("shards(", names_.front(),
                        names_.size() > 1
                            ? absl::StrCat(" + ", names_.size() - 1, " more")
                            : "",
                        ")");
  }
  size_t size() const override { return ends_.back(); }
  int channels() const override { return channels_; }
  // From the indexes, which hold each sample's label.
  std::optional<int64_t> LargestLabel(size_t count) const override {
    int64_t largest = -1;
    for (const ShardIndex& index : indexes_) {
      for (const ShardEntry& e : index.samples) {
        if (count-- == 0) return largest;
        largest = std::max(largest, e.label);
      }
    }
    return largest;
  }

  // Names the sample "sample 7 (shard.tar at byte 1536, key 000000007)".
  absl::Status Read(size_t index, SampleBuffer* buffer,
                    RawSample* out) const override {
    if (index >= size()) {
      return absl::OutOfRangeError(
          absl::StrCat("sample ", index, " >= ", size()));
    }
    const Located s = Locate(index);
    const ShardEntry& e = s.entry;
    *out = RawSample();
    out->index = index;
    out->label = e.label;
    absl::StrAppend(&out->what, "sample ", index, " (", names_[s.shard],
                    " at byte ", e.offset, ", key ", EscapeKey(e.key), ")");
    if (!e.link_error.empty())
      return InvalidArgumentCat(out->what, ": its image ", e.link_error);
    if (remote_ == nullptr) {
      out->encoded = files_[s.shard]->bytes().subspan(e.offset, e.size);
      return absl::OkStatus();
    }
    std::string copy;
    const absl::Status read =
        remote_->Read(index, PlaceOf(s), &buffer->bytes, &copy);
    if (!copy.empty()) {  // "... key 7, read from its cache_dir copy PATH)"
      out->what.pop_back();
      absl::StrAppend(&out->what, ", read from its cache_dir copy ", copy, ")");
    }
    if (!read.ok()) return PrefixStatus(read, absl::StrCat(out->what, ": "));
    out->encoded = absl::MakeConstSpan(buffer->bytes);
    return absl::OkStatus();
  }

  // Remote shards are checked by each request (If-Match).
  absl::Status CheckUnchanged(const RawSample& sample) const override {
    if (remote_ != nullptr) return absl::OkStatus();
    return files_[Locate(sample.index).shard]->CheckUnchanged();
  }

  // The shards' base names and sizes, and the sample count: the same for
  // a local copy of remote shards.
  // The shards' base names and sizes, and each one's members as its index
  // lists them (key, place, kind, label): two shards of one size that
  // swapped contents, or a shard packed again, differ. Local and remote
  // openings of the same shards agree. Computed once.
  uint64_t IndexDigest() const override {
    std::call_once(digest_once_, [this] {
      Digest d;
      d.Text("shards").Number(size()).Number(names_.size());
      for (size_t i = 0; i < names_.size(); ++i) {
        absl::string_view base = names_[i];
        base = base.substr(0, base.find('?'));
        const size_t slash = base.rfind('/');
        if (slash != absl::string_view::npos) base.remove_prefix(slash + 1);
        d.Text(base).Number(remote_ != nullptr ? remote_->shard_bytes(i)
                                               : files_[i]->bytes().size());
        for (const ShardEntry& e : indexes_[i].samples) {
          d.Text(e.key).Number(e.offset).Number(e.size).Number(e.npy);
          d.Number(static_cast<uint64_t>(e.label));
        }
      }
      digest_ = d.value();
    });
    return digest_;
  }

  std::unique_ptr<ReadAheadHandle> ReadAhead(
      std::function<bool(uint64_t*)> next) const override {
    if (remote_ == nullptr) return nullptr;
    // A broken link's sample fails without a read: nothing to fetch (and
    // no reader would take it).
    auto readable = [this, next = std::move(next)](uint64_t* index) {
      while (next(index)) {
        if (*index < size() && Locate(*index).entry.link_error.empty())
          return true;
      }
      return false;
    };
    return remote_->ReadAhead(
        std::move(readable), [this](uint64_t i) { return PlaceOf(Locate(i)); });
  }

  NetworkCounters network() const override {
    return remote_ == nullptr ? NetworkCounters() : remote_->network();
  }

 private:
  // Sample `index` (< size()): a binary search of the shards' ends, so
  // that the indexes are the only copy of the entries.
  Located Locate(uint64_t index) const {
    const auto shard = static_cast<uint32_t>(
        std::upper_bound(ends_.begin(), ends_.end(), index) - ends_.begin());
    const uint64_t first = shard == 0 ? 0 : ends_[shard - 1];
    return {shard, indexes_[shard].samples[index - first]};
  }

  static RemoteStore::Place PlaceOf(const Located& s) {
    return {s.shard, s.entry.offset, s.entry.size};
  }

  std::vector<std::string> names_;
  std::vector<std::unique_ptr<MappedFile>> files_;
  std::unique_ptr<RemoteStore> remote_;
  std::vector<ShardIndex> indexes_;
  mutable std::once_flag digest_once_;
  mutable uint64_t digest_ = 0;
  std::vector<uint64_t> ends_;
  int channels_;
};

// The shard's index: SHARD.fnidx where there is one (checked against the
// shard's size), else made from the shard's tar headers.
absl::StatusOr<ShardIndex> LoadIndex(const MappedFile& file,
                                     const std::string& path) {
  const std::string index_path = ShardIndexPath(path);
  struct stat st;
  if (stat(index_path.c_str(), &st) != 0 && errno == ENOENT)
    return IndexShard(file.bytes(), path, /*digest=*/false);
  FUSEDNORM_ASSIGN_OR_RETURN(
      const std::vector<uint8_t> text,
      ReadFileBytes(index_path, MaxShardIndexBytes(file.bytes().size())));
  FUSEDNORM_ASSIGN_OR_RETURN(
      ShardIndex index,
      ParseShardIndex(
          absl::string_view(reinterpret_cast<const char*>(text.data()),
                            text.size()),
          index_path));
  const std::string again = absl::StrCat(
      ": the shard changed after it was indexed (run `fusednorm index "
      "--data ",
      path, "` again, or remove the index)");
  if (index.bytes != file.bytes().size()) {
    return InvalidArgumentCat(index_path, " indexes ", index.bytes,
                              " bytes but ", path, " has ", file.bytes().size(),
                              again);
  }
  if (index.mtime_ns == file.mtime_ns()) return index;
  // Another modification time (a copy, a touch, a rewrite in place): the
  // index holds only if the shard's headers still say what it says.
  FUSEDNORM_ASSIGN_OR_RETURN(ShardIndex scanned,
                             IndexShard(file.bytes(), path, /*digest=*/false));
  const std::string difference = FirstDifference(index, scanned);
  if (!difference.empty()) {
    return InvalidArgumentCat(index_path, " does not match ", path,
                              " (modified since): ", difference, again);
  }
  return scanned;
}

// The channel count the shards' samples share, and each shard's end in
// the samples of all (`ends`). Errors name the shard (`names`).
absl::Status Combine(const std::vector<std::string>& names,
                     const std::vector<ShardIndex>& indexes, int* channels,
                     std::vector<uint64_t>* ends) {
  uint32_t channels_from = 0;  // the shard whose samples set `channels`
  uint64_t total = 0;
  for (uint32_t shard = 0; shard < indexes.size(); ++shard) {
    const ShardIndex& index = indexes[shard];
    if (*channels != 0 && index.channels != 0 && index.channels != *channels) {
      return InvalidArgumentCat(
          names[shard], ": key ", EscapeKey(index.samples[0].key), ": ",
          index.channels, " channels, but those of ", names[channels_from],
          " have ", *channels, " (an index, if there is one, says so for its ",
          "shard)");
    }
    if (*channels == 0 && index.channels != 0) {
      *channels = index.channels;
      channels_from = shard;
    }
    total += index.samples.size();
    ends->push_back(total);
  }
  if (total == 0)
    return InvalidArgumentCat(names.front(), ": the shards hold no samples");
  // No sample says (each fails when read): the encoded images' 3.
  if (*channels == 0) *channels = 3;
  return absl::OkStatus();
}

}  // namespace

bool IsShardSpec(const std::string& data) {
  if (IsRemotePath(data)) return true;
  // A folder is a folder, whatever its name holds ("a{1..2}", "x.tar").
  struct stat st;
  if (stat(data.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return false;
  absl::string_view last = data;  // a list's trailing commas aside
  while (absl::ConsumeSuffix(&last, ",")) {
  }
  return absl::EndsWith(last, ".tar") || absl::StrContains(data, "{");
}

namespace {

// A path as the listed-once check compares it: an http(s) URL's scheme and
// host in lower case, as they name the same server in any case (an s3://
// bucket in upper case is no bucket, and refused as such).
std::string ListedKey(const std::string& path) {
  if (!IsRemotePath(path) || absl::StartsWithIgnoreCase(path, "s3://"))
    return path;
  const size_t host = path.find("://") + 3;
  const size_t end = std::min(path.find_first_of("/?#", host), path.size());
  const size_t at = path.rfind('@', end);  // userinfo keeps its case
  const size_t from = at != std::string::npos && at >= host ? at + 1 : host;
  std::string key = path;
  for (size_t i = 0; i < end; ++i) {
    if (i < host - 3 || i >= from) key[i] = absl::ascii_tolower(key[i]);
  }
  return key;
}

// A shard listed twice would be read twice an epoch, its samples weighted
// double without a word: refused, naming it and both positions (1-based).
absl::Status CheckListedOnce(const std::vector<std::string>& paths) {
  std::unordered_map<std::string, size_t> seen;
  seen.reserve(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    auto [it, added] = seen.emplace(ListedKey(paths[i]), i);
    if (!added) {
      return InvalidArgumentCat("shard \"", ShownUrl(paths[i]),
                                "\" is listed twice (shards ", it->second + 1,
                                " and ", i + 1,
                                " of the list): each is read once an epoch");
    }
  }
  return absl::OkStatus();
}

// The same for files listed under two paths (links, "./a.tar" and "a.tar"):
// `files` as opened, in the list's order.
absl::Status CheckOpenedOnce(
    const std::vector<std::unique_ptr<MappedFile>>& files) {
  std::map<std::pair<uint64_t, uint64_t>, size_t> seen;
  for (size_t i = 0; i < files.size(); ++i) {
    auto [it, added] = seen.emplace(files[i]->identity(), i);
    if (!added) {
      return InvalidArgumentCat(
          "shard \"", files[i]->path(), "\" is the same file as shard \"",
          files[it->second]->path(), "\" (shards ", it->second + 1, " and ",
          i + 1, " of the list): each is read once an epoch");
    }
  }
  return absl::OkStatus();
}

// A brace range's end: digits only (a sign or a space would widen the
// names' zero padding), as a number.
bool RangeEnd(absl::string_view digits, uint64_t* value) {
  return !digits.empty() &&
         digits.find_first_not_of("0123456789") == absl::string_view::npos &&
         absl::SimpleAtoi(digits, value);
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ExpandShardSpec(
    const std::string& spec) {
  std::vector<std::string> paths;
  for (absl::string_view item : absl::StrSplit(spec, ',', absl::SkipEmpty())) {
    const size_t open = item.find('{');
    if (open == absl::string_view::npos) {
      paths.emplace_back(item);
      continue;
    }
    // An s3:// key has no query ('?' is a character of the key).
    if (IsRemotePath(item) && !absl::StartsWithIgnoreCase(item, "s3://") &&
        item.find('?') < open) {
      return InvalidArgumentCat("shard pattern \"", ShownUrl(item),
                                "\" has its range in the URL's query, which "
                                "would read one object under many names; put "
                                "it in the path");
    }
    const size_t dots = item.find("..", open), close = item.find('}', open);
    uint64_t lo, hi;
    if (dots == absl::string_view::npos || close == absl::string_view::npos ||
        dots > close ||
        !RangeEnd(item.substr(open + 1, dots - open - 1), &lo) ||
        !RangeEnd(item.substr(dots + 2, close - dots - 2), &hi) || lo > hi ||
        item.find('{', close) != absl::string_view::npos) {
      return InvalidArgumentCat("shard pattern \"", ShownUrl(item),
                                "\" is not PREFIX{LO..HI}SUFFIX with LO <= HI "
                                "(one range per item)");
    }
    if (paths.size() >= kMaxShards || hi - lo >= kMaxShards - paths.size()) {
      return InvalidArgumentCat("shard pattern \"", ShownUrl(item),
                                "\" names too many shards; at most ",
                                kMaxShards, " are read in all");
    }
    const size_t width = dots - open - 1;
    // Up to hi included, without ++i past it (hi may be 2^64 - 1).
    for (uint64_t i = lo;; ++i) {
      std::string n = absl::StrCat(i);
      if (n.size() < width) n.insert(0, width - n.size(), '0');
      paths.push_back(
          absl::StrCat(item.substr(0, open), n, item.substr(close + 1)));
      if (i == hi) break;
    }
  }
  if (paths.empty())
    return InvalidArgumentCat("no shards in \"", ShownData(spec), "\"");
  FUSEDNORM_RETURN_IF_ERROR(CheckListedOnce(paths));
  return paths;
}

absl::StatusOr<std::unique_ptr<Dataset>> OpenShards(
    const std::vector<std::string>& paths, const ShardCacheOptions& cache,
    const std::atomic<bool>* cancel) {
  const size_t remote = static_cast<size_t>(
      std::count_if(paths.begin(), paths.end(), IsRemotePath));
  if (remote != 0 && remote != paths.size()) {
    // Named by position only: a comma in a URL's query or password splits
    // it into pieces that read as a URL and a path, secrets in either.
    const auto position = [&](bool remote) {
      return 1 +
             std::find_if(paths.begin(), paths.end(),
                          [&](const std::string& p) {
                            return IsRemotePath(p) == remote;
                          }) -
             paths.begin();
    };
    return InvalidArgumentCat(
        "the shards mix URLs and local paths: shard ", position(false), " of ",
        paths.size(), " is not a URL, shard ", position(true),
        " is; open them as two datasets, and write a comma inside a URL as "
        "%2C");
  }
  std::vector<std::string> names;
  std::vector<std::unique_ptr<MappedFile>> files;
  std::unique_ptr<RemoteStore> store;
  std::vector<ShardIndex> indexes;
  if (remote != 0) {
    FUSEDNORM_ASSIGN_OR_RETURN(
        store, RemoteStore::Open(paths, cache, &indexes, cancel));
    for (uint32_t i = 0; i < paths.size(); ++i)
      names.push_back(store->shown(i));
  } else {
    names = paths;
    for (const std::string& path : paths) {
      FUSEDNORM_ASSIGN_OR_RETURN(files.emplace_back(), MappedFile::Open(path));
      FUSEDNORM_ASSIGN_OR_RETURN(indexes.emplace_back(),
                                 LoadIndex(*files.back(), path));
      // An index read while the shard changed under it is no index.
      FUSEDNORM_RETURN_IF_ERROR(files.back()->CheckUnchanged());
    }
    FUSEDNORM_RETURN_IF_ERROR(CheckOpenedOnce(files));
  }
  int channels = 0;
  std::vector<uint64_t> ends;
  FUSEDNORM_RETURN_IF_ERROR(Combine(names, indexes, &channels, &ends));
  return std::make_unique<Shards>(std::move(names), std::move(files),
                                  std::move(store), std::move(indexes),
                                  std::move(ends), channels);
}

}  // namespace fusednorm
