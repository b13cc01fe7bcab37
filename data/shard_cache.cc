// ShardCache (shard_cache.h): copies named by digest, adopted at open,
// written through AtomicFile, evicted by unlinking.
#include "data/shard_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "core/digest.h"
#include "core/one_line.h"
#include "core/status.h"
#include "data/atomic_file.h"

namespace fusednorm {

struct ShardCache::Writing {
  std::optional<AtomicFile> file;
  absl::Status status;
};

namespace {

// Makes and removes a file in `dir`: a directory where no copy can be
// written is refused at open, not found out shard by shard.
absl::Status CheckWritable(const std::string& dir) {
  std::string probe = dir + "/.fusednorm-probe-XXXXXX";
  const int fd = mkstemp(probe.data());
  if (fd < 0) {
    return InvalidArgumentCat("cache_dir = \"", dir,
                              "\": cannot write in it: ", std::strerror(errno));
  }
  close(fd);
  unlink(probe.c_str());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<ShardCache>> ShardCache::Open(
    const ShardCacheOptions& options, const std::vector<Key>& keys) {
  std::unique_ptr<ShardCache> cache(new ShardCache());
  cache->options_ = options;
  cache->keys_ = keys;
  for (const Key& k : keys) {
    Digest d;
    d.Text(k.url).Number(k.size).Text(k.etag);
    if (!k.date.empty()) d.Text(k.date);  // a strong ETag's name is unchanged
    cache->paths_.push_back(absl::StrCat(options.dir, "/", d.Hex(), ".tar"));
  }
  cache->copies_.resize(keys.size());
  cache->writing_.resize(keys.size());
  if (mkdir(options.dir.c_str(), 0777) != 0 && errno != EEXIST) {
    return InvalidArgumentCat("cache_dir = \"", options.dir,
                              "\": cannot make it: ", std::strerror(errno));
  }
  struct stat st;
  if (stat(options.dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return InvalidArgumentCat("cache_dir = \"", options.dir,
                              "\": not a directory");
  }
  FUSEDNORM_RETURN_IF_ERROR(CheckWritable(options.dir));
  for (uint32_t i = 0; i < keys.size(); ++i) {
    const std::string& path = cache->PathOf(i);
    if (stat(path.c_str(), &st) != 0) continue;
    if (static_cast<uint64_t>(st.st_size) != keys[i].size || !cache->Fits(i) ||
        cache->Shortfall(i) > 0) {
      continue;  // another run's, beyond this run's bound: left alone
    }
    absl::StatusOr<std::unique_ptr<MappedFile>> file = MappedFile::Open(path);
    if (!file.ok()) continue;  // removed meanwhile: fetched again
    cache->copies_[i] = std::move(*file);
    cache->held_ += keys[i].size;
  }
  return cache;
}

ShardCache::~ShardCache() = default;

const std::string& ShardCache::PathOf(uint32_t shard) const {
  return paths_[shard];
}

std::shared_ptr<const MappedFile> ShardCache::Get(uint32_t shard) const {
  std::lock_guard<std::mutex> lock(mu_);
  return copies_[shard];
}

bool ShardCache::Fits(uint32_t shard) const {
  // Without an ETag a copy could not tell one version from another.
  if (keys_[shard].etag.empty()) return false;
  if (off_) return false;
  return options_.bytes == 0 || keys_[shard].size <= options_.bytes;
}

uint64_t ShardCache::Shortfall(uint32_t shard) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (options_.bytes == 0) return 0;
  const uint64_t need = held_ + keys_[shard].size;
  return need > options_.bytes ? need - options_.bytes : 0;
}

std::vector<uint32_t> ShardCache::Cached() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < copies_.size(); ++i)
    if (copies_[i] != nullptr) out.push_back(i);
  return out;
}

bool ShardCache::Begin(uint32_t shard) {
  std::lock_guard<std::mutex> lock(mu_);
  if (off_ || copies_[shard] != nullptr || writing_[shard] != nullptr)
    return false;
  absl::StatusOr<AtomicFile> file = AtomicFile::Create(PathOf(shard));
  if (!file.ok()) {
    TurnOff(file.status());
    return false;
  }
  writing_[shard] = std::make_unique<Writing>();
  writing_[shard]->file.emplace(std::move(*file));
  held_ += keys_[shard].size;  // reserved while written
  return true;
}

void ShardCache::TurnOff(const absl::Status& why) {
  off_ = true;
  std::fprintf(stderr,
               "fusednorm: warning: cache_dir: %s; no more copies are made "
               "in this run, and samples are read over the network\n",
               OneLine(why.message()).c_str());
}

absl::Status ShardCache::Write(uint32_t shard,
                               absl::Span<const uint8_t> bytes) {
  Writing& w = *writing_[shard];  // only its writer touches it
  if (w.status.ok()) w.status = w.file->Write(bytes);
  return w.status;
}

absl::Status ShardCache::Finish(uint32_t shard, bool ok) {
  std::unique_ptr<Writing> w;
  {
    std::lock_guard<std::mutex> lock(mu_);
    w = std::move(writing_[shard]);
  }
  absl::Status status = w->status;
  if (ok && status.ok()) status = w->file->Commit();
  const absl::Status write_status = ok ? status : w->status;
  std::shared_ptr<const MappedFile> copy;
  if (ok && status.ok()) {
    absl::StatusOr<std::unique_ptr<MappedFile>> file =
        MappedFile::Open(PathOf(shard));
    if (file.ok()) copy = std::move(*file);
    status = file.status();
  }
  w.reset();  // an uncommitted temporary is removed
  std::lock_guard<std::mutex> lock(mu_);
  // The directory failed (full, or no longer writable): not shard after
  // shard fetched in vain.
  if (!write_status.ok() && !off_) TurnOff(write_status);
  if (copy != nullptr) {
    copies_[shard] = std::move(copy);
  } else {
    held_ -= keys_[shard].size;
  }
  return status;
}

void ShardCache::Evict(uint32_t shard) {
  std::lock_guard<std::mutex> lock(mu_);
  if (copies_[shard] == nullptr) return;
  unlink(PathOf(shard).c_str());  // readers keep their mapping
  copies_[shard] = nullptr;
  held_ -= keys_[shard].size;
}

}  // namespace fusednorm
