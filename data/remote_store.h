// RemoteStore: the remote shards of a dataset (data/shards.h) read in place
// over HTTP(S) or S3 (data/http_client.h).
//
// Opening asks each shard's size and ETag (HEAD) and reads its index
// (SHARD.fnidx beside it, data/shard_index.h; at most a quarter of the
// shard's size and 256 MiB), for many shards at once; an index over 16 MiB
// or its open's share of the budget below is read again alone, so that a
// server claiming huge shards cannot have every open in flight hold a
// large body. A shard without an index (404,
// or S3's 403) is read whole, one at a time, to index it, with a warning
// that says how to avoid that. The indexes together may take at most
// FUSEDNORM_HTTP_INDEX_MB of memory: each is charged its text and 128
// bytes a sample before it is parsed; a shard read whole, its size while
// it is held, then its samples. A sample is then one ranged GET of its
// bytes with If-Match: the ETag of the open (or If-Unmodified-Since: its
// date, where the ETag is weak or missing), so a shard replaced on the
// server during the run is an error, never bytes of two versions.
//
// Read-ahead: given the order the samples will be read in (ReadAhead), up
// to FUSEDNORM_HTTP_REQUESTS requests (default 64) run ahead of the readers,
// all on one thread of their own (data/http_multi.h; a copy to the cache
// runs beside them on another, below), holding at most
// FUSEDNORM_HTTP_AHEAD_MB of fetched bytes (default 256) until they are
// read; a sample larger than that fails before it is asked for. A sample
// read before its request started is fetched by the reader and skipped by
// the read-ahead.
//
// With a cache (data/shard_cache.h), the read-ahead also copies whole
// shards there, one at a time, in 8 MiB ranges: any shard while there is
// room; when full, a shard whose samples in the next 4,096 hold a quarter
// of its bytes, in place of copies whose next use is further away (or not
// in sight), the furthest first. A thread of its own copies the shard
// while the sample that chose it is fetched; shards chosen meanwhile wait
// their turn; stopping cancels requests and copies in flight.
// Samples of a copied shard are read from the copy, by their readers (the
// read-ahead only counts them in its window).
#ifndef FUSEDNORM_DATA_REMOTE_STORE_H_
#define FUSEDNORM_DATA_REMOTE_STORE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "data/dataset.h"
#include "data/http_client.h"
#include "data/remote_url.h"
#include "data/shard_cache.h"
#include "data/shard_index.h"

namespace fusednorm {

class HttpMulti;  // data/http_multi.h

class RemoteStore {
 public:
  // Where a sample's bytes lie: its shard and range.
  struct Place {
    uint32_t shard = 0;
    uint64_t offset = 0, size = 0;
  };

  // Opens the shards at `paths` (all remote) and returns their indexes in
  // *indexes. Errors name the URL: a malformed one, HTTP 403/404 and the
  // like, an index that does not match its shard. Its requests and their
  // retries stop once *cancel is true (null: never): Cancelled.
  static absl::StatusOr<std::unique_ptr<RemoteStore>> Open(
      const std::vector<std::string>& paths, const ShardCacheOptions& cache,
      std::vector<ShardIndex>* indexes,
      const std::atomic<bool>* cancel = nullptr);
  ~RemoteStore();

  // What messages call shard `shard` (no credentials, no query).
  const std::string& shown(uint32_t shard) const;
  uint64_t shard_bytes(uint32_t shard) const;

  // The bytes of `place` (of sample `index`) into *out: fetched ahead, or
  // fetched now; `*copy` is the cache_dir copy they were read from, or ""
  // (for messages: a damaged copy is what to remove). Thread-safe.
  absl::Status Read(uint64_t index, const Place& place,
                    std::vector<uint8_t>* out, std::string* copy) const;

  // Fetches ahead the samples `next` gives (Dataset::ReadAhead), finding
  // their bytes with `place_of`.
  std::unique_ptr<ReadAheadHandle> ReadAhead(
      std::function<bool(uint64_t*)> next,
      std::function<Place(uint64_t)> place_of) const;

  NetworkCounters network() const;

 private:
  class Ahead;
  struct Shard {
    RemoteUrl url;
    ObjectVersion version;
  };
  RemoteStore() = default;

  // A client for this thread's request, returned to the pool after it.
  std::unique_ptr<HttpClient> TakeClient() const;
  void GiveClient(std::unique_ptr<HttpClient> client) const;
  // A multi handle for a read-ahead, with the connections of earlier ones.
  std::unique_ptr<HttpMulti> TakeMulti() const;
  void GiveMulti(std::unique_ptr<HttpMulti> multi) const;
  // The bytes of `place` from the cache's copy (its path in `*copy_path`),
  // or over the network.
  absl::Status FetchWith(HttpClient* client, const Place& place,
                         std::vector<uint8_t>* out,
                         std::string* copy_path) const;
  // ResourceExhausted when `place` is larger than a read-ahead may hold.
  absl::Status CheckSampleSize(const Place& place) const;
  // Copies shard `shard` into the cache (ShardCache::Begin succeeded); a
  // copy that fails is not tried again in this run (NotCopied).
  void Fill(HttpClient* client, uint32_t shard) const;
  bool NotCopied(uint32_t shard) const;
  absl::Status OpenShard(uint32_t shard, HttpClient* client, ShardIndex* index);
  // The index at `url`, of at most `bound` bytes and what the budget
  // leaves, into *bytes: by the parallel opens up to their share of the
  // budget's rest and 16 MiB, a larger one again alone (whole_mu_).
  absl::StatusOr<ObjectVersion> GetIndex(const RemoteUrl& url, uint64_t bound,
                                         HttpClient* client,
                                         std::vector<uint8_t>* bytes);

  // Reads shard `shard` whole (it has no index) and indexes it.
  absl::Status IndexWhole(const Shard& shard, HttpClient* client,
                          ShardIndex* index);
  // Takes `bytes` from what the indexes may still hold (index_left_), or
  // ResourceExhausted "WHAT: NEED N bytes of memory, but ..." when they do
  // not fit.
  absl::Status TakeIndexMemory(uint64_t bytes, const std::string& what,
                               const char* need);
  // That ResourceExhausted, with `left` bytes left.
  absl::Status OverBudget(const std::string& what, const char* need,
                          uint64_t bytes, uint64_t left) const;

  RemoteSettings settings_;
  std::atomic<uint64_t> index_left_{0};  // FUSEDNORM_HTTP_INDEX_MB's rest
  std::vector<Shard> shards_;
  std::unique_ptr<ShardCache> cache_;  // null: no cache_dir
  mutable HttpCounters counters_;
  mutable std::atomic<uint64_t> from_cache_{0};
  mutable std::atomic<uint64_t> wait_ns_{0};
  mutable std::atomic<uint64_t> bound_stops_{0};
  mutable std::atomic<uint64_t> fetch_cpu_ns_{0};
  mutable std::mutex mu_;
  // Opening: one shard without an index, or one index read again alone
  // (GetIndex), at a time.
  std::mutex whole_mu_;
  mutable std::vector<std::unique_ptr<HttpClient>> clients_;  // idle
  mutable std::vector<std::unique_ptr<HttpMulti>> multis_;    // idle
  mutable std::vector<std::shared_ptr<Ahead>> aheads_;        // running
  mutable std::vector<bool> not_copied_;  // per shard: its copy failed
};

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_REMOTE_STORE_H_
