// ShardCache: whole copies of remote shards in a local directory
// (cache_dir), bounded by cache_bytes, read by memory-mapping them.
//
// A copy is named by a digest of its shard's URL, size and ETag (and its
// Last-Modified, where the ETag alone does not tell versions apart), so a
// run finds the copies an earlier run left of the same versions (and never
// those of another version), and ranks on one machine may share the
// directory: copies are written whole under a temporary name and renamed
// (data/atomic_file.h), and a copy removed while another process maps it
// stays readable there. Which shards to keep is the caller's choice
// (data/remote_store.h: the furthest next use goes first). Thread-safe.
#ifndef FUSEDNORM_DATA_SHARD_CACHE_H_
#define FUSEDNORM_DATA_SHARD_CACHE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "data/mapped_file.h"

namespace fusednorm {

struct ShardCacheOptions {
  std::string dir;     // "" : no cache
  uint64_t bytes = 0;  // the most the copies may hold; 0: no bound
};

class ShardCache {
 public:
  // One remote shard: its URL (as requested), size and ETag, and its
  // Last-Modified where a weak or shortened ETag may stay the same across
  // versions ("" where the ETag is strong).
  struct Key {
    std::string url;
    uint64_t size = 0;
    std::string etag;
    std::string date;
  };

  // Opens `options.dir` (made when missing) for the shards `keys` and maps
  // the copies an earlier run left there, as the bound allows. Errors name
  // the directory: one that cannot be made, is not a directory, or where
  // this process cannot write.
  static absl::StatusOr<std::unique_ptr<ShardCache>> Open(
      const ShardCacheOptions& options, const std::vector<Key>& keys);

  // The copy of `shard`, or nullptr.
  std::shared_ptr<const MappedFile> Get(uint32_t shard) const;
  // Whether `shard` can have a copy: it has an ETag and alone fits the
  // bound.
  bool Fits(uint32_t shard) const;
  // Bytes that `shard`'s copy would need beyond what is free.
  uint64_t Shortfall(uint32_t shard) const;
  // The shards with copies.
  std::vector<uint32_t> Cached() const;

  // Starts a copy of `shard` (false when one is being written or there is
  // one, or the cache is off); its bytes are written in order by Write,
  // then Finish maps it. A copy that cannot be made or written turns the
  // cache off for the rest of the run, with a warning: the copies made
  // stay readable.
  bool Begin(uint32_t shard);
  absl::Status Write(uint32_t shard, absl::Span<const uint8_t> bytes);
  // Commits (ok) or drops the copy being written.
  absl::Status Finish(uint32_t shard, bool ok);
  // Removes `shard`'s copy.
  void Evict(uint32_t shard);
  // Where `shard`'s copy is (or would be): a digest of its key, made once.
  const std::string& PathOf(uint32_t shard) const;

  ~ShardCache();

 private:
  struct Writing;
  ShardCache() = default;
  // No more copies in this run, saying why once (under mu_).
  void TurnOff(const absl::Status& why);

  ShardCacheOptions options_;
  std::vector<Key> keys_;
  std::vector<std::string> paths_;  // PathOf, a key's
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<const MappedFile>> copies_;
  std::vector<std::unique_ptr<Writing>> writing_;
  uint64_t held_ = 0;  // bytes of the copies
  // A copy could not be written: no more are made (set under mu_).
  std::atomic<bool> off_{false};
};

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_SHARD_CACHE_H_
