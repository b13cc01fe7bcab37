// RemoteStore (remote_store.h): opening many shards at once, pools of
// clients and multi handles, and the read-ahead's threads and the samples
// they hold.
#include "data/remote_store.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <new>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/one_line.h"
#include "core/status.h"
#include "data/http_multi.h"

namespace fusednorm {
namespace {

// Indexes up to this size are read by the parallel opens; a larger one is
// read again alone, so that the opens in flight cannot together hold many
// bodies of up to MaxShardIndexBytes (a server may claim any shard size).
constexpr uint64_t kParallelIndexBytes = uint64_t{16} << 20;
// What a parsed index holds per sample besides its key's bytes (a
// ShardEntry of 96, with room for the work of parsing it).
constexpr uint64_t kBytesPerSample = 128;
// Why the shards' indexes have a memory bound, for messages.
constexpr char kWhyIndex[] =
    "so that a server cannot make an open allocate more; by default half "
    "the memory this process may use";
// Buffers readers gave back, kept for the read-ahead's next fetches: at
// most this many, holding at most a quarter of the read-ahead's bound.
constexpr size_t kSpareBuffers = 64;
// A kept buffer serves a sample when its capacity is at most 4 times the
// sample's size plus this; a larger one is freed (it held a much larger
// sample, and would keep that memory beside a small one).
constexpr uint64_t kSpareSlack = uint64_t{64} << 10;
// Upcoming samples the cache looks at for next uses.
constexpr size_t kWindow = 4096;
// A shard is copied to the cache in ranges of this size.
constexpr uint64_t kFillRange = uint64_t{8} << 20;

// fn()'s index, or ResourceExhausted naming `what` when memory runs out
// for it (an index as large as a server may claim).
template <typename Fn>
absl::StatusOr<ShardIndex> MemoryNamed(const std::string& what, Fn fn) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        absl::StrCat(what, ": out of memory for its index"));
  }
}

// Runs fn(i) for i in 0..n-1 on up to `threads` threads, stopping early at
// an error; returns the error of the lowest i that failed.
absl::Status ParallelFor(size_t n, int threads,
                         const std::function<absl::Status(size_t)>& fn) {
  std::vector<absl::Status> results(n);
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  auto work = [&] {
    for (size_t i; !failed && (i = next++) < n;) {
      results[i] = fn(i);
      if (!results[i].ok()) failed = true;
    }
  };
  std::vector<std::thread> pool;
  absl::Status started;
  for (size_t t = 1; t < std::min<size_t>(n, threads); ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error& e) {
      started = absl::ResourceExhaustedError(
          absl::StrCat("cannot start a thread to open shards: ", e.what()));
      break;
    }
  }
  work();
  for (std::thread& t : pool) t.join();
  for (const absl::Status& s : results)
    if (!s.ok()) return s;
  return started;
}

// The CPU time this thread used so far, in nanoseconds.
uint64_t ThreadCpuNs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

// The last of the idle objects `idle` (guarded by *mu), or make()'s when
// there is none: the store's pools of clients and multi handles.
template <typename T, typename Make>
std::unique_ptr<T> TakeIdle(std::mutex* mu,
                            std::vector<std::unique_ptr<T>>* idle, Make make) {
  {
    std::lock_guard<std::mutex> lock(*mu);
    if (!idle->empty()) {
      std::unique_ptr<T> t = std::move(idle->back());
      idle->pop_back();
      return t;
    }
  }
  return make();
}

template <typename T>
void GiveIdle(std::mutex* mu, std::vector<std::unique_ptr<T>>* idle,
              std::unique_ptr<T> t) {
  std::lock_guard<std::mutex> lock(*mu);
  idle->push_back(std::move(t));
}

}  // namespace

// One read-ahead's samples, shared by its threads (one that fetches, and
// one that copies shards to the cache when there is one) and the readers
// (which may still hold it after the handle is gone).
class RemoteStore::Ahead {
 public:
  Ahead(const RemoteStore* store, std::function<bool(uint64_t*)> next,
        std::function<Place(uint64_t)> place_of)
      : store_(store),
        next_(std::move(next)),
        place_of_(std::move(place_of)),
        window_bytes_(store->shards_.size(), 0),
        multi_(store->TakeMulti()) {
    multi_->set_cancel(&cancel_);
  }
  // A copy chosen but never begun (the copying thread stopped first, or
  // never started) gives its room in the cache back.
  ~Ahead() {
    if (fill_next_ != kNoShard) (void)store_->cache_->Finish(fill_next_, false);
  }

  // Fetches in order until stopped or the order ends: up to
  // FUSEDNORM_HTTP_REQUESTS GETs in flight on one multi handle.
  void Fetch() {
    HttpMulti::Ended ended;
    std::unique_lock<std::mutex> lock(mu_);
    if (!multi_->ok()) stop_ = true;  // readers fetch what they read
    for (;;) {
      StartFetches();
      // in_flight_ holds GETs that ended at their start too, until Run
      // hands them back.
      if (stop_ || (in_flight_.empty() && Spent())) break;
      lock.unlock();
      ended.clear();
      multi_->Run(kPollMs, &ended);
      lock.lock();
      for (const auto& [tag, status] : ended) Land(tag, status);
    }
    // Stopped: what is still in flight is not fetched (its readers fetch
    // it, or are gone), and the multi handle with its connections serves
    // the next read-ahead.
    multi_->Abandon();
    for (const auto& [tag, entry] : in_flight_) {
      entry->done = true;
      entry->status = absl::CancelledError("the read-ahead stopped");
    }
    in_flight_.clear();
    done_.notify_all();
    multi_->set_cancel(nullptr);
    store_->fetch_cpu_ns_ += ThreadCpuNs();
    store_->GiveMulti(std::move(multi_));
  }

  // Copies the shards ShouldFill picks into the cache until stopped.
  void Copy() {
    std::unique_ptr<HttpClient> client = store_->TakeClient();
    client->set_cancel(&cancel_);
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      copy_.wait(lock, [&] { return stop_ || fill_next_ != kNoShard; });
      if (stop_) break;  // a copy chosen meanwhile: ~Ahead gives it back
      const uint32_t shard = fill_next_;
      fill_next_ = kNoShard;
      FillAll(shard, client.get(), &lock);
    }
    lock.unlock();
    client->set_cancel(nullptr);
    store_->GiveClient(std::move(client));
  }

  // No shard is copied to the cache (its thread did not start).
  void NoCopies() {
    std::lock_guard<std::mutex> lock(mu_);
    no_copies_ = true;
  }

  // Set once Stop() is called: a reader's own fetch of a sample stops
  // with it, as the requests in flight do.
  const std::atomic<bool>* cancel() const { return &cancel_; }

  // Whether Stop() was called.
  bool stopped() const {
    std::lock_guard<std::mutex> lock(mu_);
    return stop_;
  }

  // No sample is fetched ahead (its thread did not start): readers fetch
  // what they read, and their requests are not cancelled.
  void NoFetches() {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }

  // Stops the threads, the requests in flight included.
  void Stop() {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    cancel_ = true;
    if (multi_ != nullptr) multi_->Wake();
    copy_.notify_all();
    done_.notify_all();
  }

  // Sample `index`'s bytes and status when this read-ahead fetched or is
  // fetching it (waiting for them); false otherwise, and then it is not
  // fetched later.
  bool Take(uint64_t index, std::vector<uint8_t>* out, absl::Status* status) {
    std::unique_lock<std::mutex> lock(mu_);
    auto it = entries_.find(index);
    if (it == entries_.end()) {
      // Recorded even when the order is all drawn: the sample may still be
      // in the window, and fetched there for no reader. Not once the window
      // is empty too (a loader kept for the next epoch's first samples sees
      // every read of that epoch).
      if (!stop_ && !Spent()) missed_.insert(index);
      return false;
    }
    std::shared_ptr<Entry> entry = it->second;
    entries_.erase(it);
    done_.wait(lock, [&] { return entry->cached || entry->done; });
    held_ -= entry->held;
    if (waiting_for_room_ && multi_ != nullptr && RoomToWake()) {
      waiting_for_room_ = false;
      multi_->Wake();
    }
    if (entry->cached) return false;  // the reader copies it from the cache
    // The reader's previous buffer serves a later fetch: no page faults of
    // fresh memory per sample.
    std::swap(*out, entry->bytes);
    Keep(std::move(entry->bytes));
    *status = entry->status;
    return true;
  }

 private:
  struct Entry {
    bool cached = false;  // its shard has a copy: left to its reader
    bool done = false;
    absl::Status status;
    std::vector<uint8_t> bytes;
    uint64_t size = 0;
    // What it counts in held_: its size, or its buffer's capacity when a
    // kept buffer is larger.
    uint64_t held = 0;
  };
  static constexpr uint32_t kNoShard = ~uint32_t{0};
  // The longest the fetch thread sleeps without news (a safety net: Take
  // and Stop wake it).
  static constexpr int kPollMs = 1000;

  // Whether the order is all drawn and none of it waits to be fetched
  // (under mu_).
  bool Spent() const { return exhausted_ && upcoming_.empty(); }

  // Whether another sample may be fetched (under mu_).
  bool HasRoom() const {
    return held_ < store_->settings_.ahead_bytes &&
           multi_->in_flight() <
               static_cast<size_t>(store_->settings_.requests);
  }

  // Starts the samples the bounds allow (under mu_).
  void StartFetches() {
    while (!stop_ && HasRoom() && Draw()) {
      const auto [index, place] = upcoming_.front();
      upcoming_.pop_front();
      window_bytes_[place.shard] -= place.size;
      if (auto m = missed_.find(index); m != missed_.end()) {
        missed_.erase(m);  // its reader fetched it already
        continue;
      }
      auto entry = std::make_shared<Entry>();
      entries_.emplace(index, entry);
      entry->size = place.size;
      // A copy in the cache is read by its reader, beside the other
      // readers, not here one at a time ahead of the network's GETs.
      if (store_->cache_ != nullptr &&
          store_->cache_->Get(place.shard) != nullptr) {
        entry->cached = true;
        Hold(entry.get());  // held too: the bound is a window
        continue;
      }
      entry->bytes = Reuse(place.size);
      Hold(entry.get());
      if (ShouldFill(place.shard)) {
        fill_next_ = place.shard;
        copy_.notify_one();
      }
      Start(place, entry);
    }
    // Out of bytes, a sample read makes room; out of requests, a GET that
    // ends does, and wakes Run itself.
    const bool out_of_room = !stop_ && held_ >= store_->settings_.ahead_bytes;
    if (out_of_room && !waiting_for_room_) ++store_->bound_stops_;
    waiting_for_room_ = out_of_room;
  }

  // Whether a fetch thread out of bytes has enough room again to be woken
  // (under mu_): a quarter of the bound, so that it starts its next
  // fetches together, one wake for many samples read, not one each.
  bool RoomToWake() const {
    const uint64_t bound = store_->settings_.ahead_bytes;
    return held_ <= bound - bound / 4;
  }

  // Counts `entry` in held_: its size, or its buffer's capacity (under
  // mu_).
  void Hold(Entry* entry) {
    entry->held = std::max<uint64_t>(entry->size, entry->bytes.capacity());
    held_ += entry->held;
  }

  // A kept buffer for a sample of `size` bytes, or an empty one; kept ones
  // too large for it are freed (under mu_).
  std::vector<uint8_t> Reuse(uint64_t size) {
    while (!spare_.empty()) {
      std::vector<uint8_t> b = std::move(spare_.back());
      spare_.pop_back();
      spare_bytes_ -= b.capacity();
      if (b.capacity() <= 4 * size + kSpareSlack) return b;
    }
    return {};
  }

  // Keeps a reader's previous buffer for a later fetch, within the bounds
  // on kept buffers (under mu_).
  void Keep(std::vector<uint8_t> b) {
    const uint64_t capacity = b.capacity();
    if (Spent()) {  // nothing left to fetch into
      spare_.clear();
      spare_bytes_ = 0;
      return;
    }
    if (capacity == 0 || spare_.size() >= kSpareBuffers ||
        spare_bytes_ + capacity > store_->settings_.ahead_bytes / 4) {
      return;
    }
    spare_bytes_ += capacity;
    spare_.push_back(std::move(b));
  }

  // Fetches `place` into `entry` with a GET; as FetchWith, a sample
  // larger than the bound fails before it is asked for.
  void Start(const Place& place, const std::shared_ptr<Entry>& entry) {
    const absl::Status status = store_->CheckSampleSize(place);
    if (!status.ok()) {
      entry->done = true;
      entry->status = status;
      done_.notify_all();
      return;
    }
    const uint64_t tag = next_tag_++;
    in_flight_.emplace(tag, entry);
    const Shard& shard = store_->shards_[place.shard];
    multi_->Start(shard.url, shard.version, place.offset, place.size,
                  &entry->bytes, tag);
  }

  // GET `tag` ended with `status` (under mu_).
  void Land(uint64_t tag, const absl::Status& status) {
    auto it = in_flight_.find(tag);
    if (it == in_flight_.end()) return;
    it->second->done = true;
    it->second->status = status;
    in_flight_.erase(it);
    done_.notify_all();
  }

  // Tops the window of upcoming samples up from the order; false when it
  // is empty (the order ended).
  bool Draw() {
    uint64_t index;
    while (!exhausted_ && upcoming_.size() < kWindow) {
      if (!next_(&index)) {
        exhausted_ = true;
      } else {
        const Place place = place_of_(index);
        upcoming_.push_back({index, place});
        window_bytes_[place.shard] += place.size;
      }
    }
    return !upcoming_.empty();
  }

  // Copies `shard`, then the shards drawn meanwhile that still qualify
  // (called under mu_ by the copying thread, for the shard ShouldFill
  // chose).
  void FillAll(uint32_t shard, HttpClient* client,
               std::unique_lock<std::mutex>* lock) {
    for (;;) {
      lock->unlock();
      store_->Fill(client, shard);
      lock->lock();
      filling_ = false;
      do {
        if (stop_ || pending_.empty()) return;
        shard = pending_.front();
        pending_.pop_front();
      } while (!ShouldFill(shard));
    }
  }

  // Whether to copy `shard` into the cache now (under mu_; marks the fill
  // as running; while another runs, the shard waits its turn in pending_):
  // see remote_store.h.
  bool ShouldFill(uint32_t shard) {
    ShardCache* cache = store_->cache_.get();
    if (cache == nullptr || no_copies_ || !cache->Fits(shard) ||
        cache->Get(shard) != nullptr || store_->NotCopied(shard)) {
      return false;
    }
    if (filling_) {
      if (std::find(pending_.begin(), pending_.end(), shard) ==
          pending_.end()) {
        pending_.push_back(shard);
      }
      return false;
    }
    if (const uint64_t shortfall = cache->Shortfall(shard); shortfall > 0) {
      // Worth a whole copy in place of others only when the window reads a
      // quarter of the shard's bytes.
      if (window_bytes_[shard] < store_->shard_bytes(shard) / 4) return false;
      std::vector<uint32_t> victims;
      if (!PickVictims(shard, shortfall, &victims)) return false;
      for (uint32_t c : victims) cache->Evict(c);
    }
    filling_ = cache->Begin(shard);
    return filling_;
  }

  // The copies whose next use (in the window; past it, last) comes after
  // `shard`'s, furthest first, until they free `shortfall` bytes; false
  // when they cannot.
  bool PickVictims(uint32_t shard, uint64_t shortfall,
                   std::vector<uint32_t>* victims) const {
    std::unordered_map<uint32_t, size_t> next_use;
    for (size_t i = 0; i < upcoming_.size(); ++i)
      next_use.emplace(upcoming_[i].second.shard, i);
    auto use = [&](uint32_t s) {
      auto it = next_use.find(s);
      return it == next_use.end() ? SIZE_MAX : it->second;
    };
    std::vector<uint32_t> copies = store_->cache_->Cached();
    std::sort(copies.begin(), copies.end(),
              [&](uint32_t a, uint32_t b) { return use(a) > use(b); });
    for (uint32_t c : copies) {
      if (shortfall == 0 || use(c) <= use(shard)) break;
      victims->push_back(c);
      shortfall -= std::min(shortfall, store_->shard_bytes(c));
    }
    return shortfall == 0;
  }

  const RemoteStore* store_;
  std::function<bool(uint64_t*)> next_;
  std::function<Place(uint64_t)> place_of_;
  mutable std::mutex mu_;
  std::condition_variable done_;  // readers wait for an entry's bytes
  std::condition_variable copy_;  // the copying thread waits for a shard
  bool stop_ = false, exhausted_ = false;
  bool filling_ = false;           // a shard is being copied to the cache
  uint32_t fill_next_ = kNoShard;  // the shard to copy next
  bool no_copies_ = false;         // the copying thread did not start
  // The fetch thread is out of bytes: a sample read that leaves room
  // (RoomToWake) wakes it.
  bool waiting_for_room_ = false;
  std::atomic<bool> cancel_{false};  // the threads' requests stop
  // Drawn from the order, not yet fetched: each sample and its place.
  std::deque<std::pair<uint64_t, Place>> upcoming_;
  std::vector<uint64_t> window_bytes_;  // per shard: its samples' in upcoming_
  std::deque<uint32_t> pending_;        // shards drawn while another was copied
  std::unordered_multimap<uint64_t, std::shared_ptr<Entry>> entries_;
  std::unordered_multiset<uint64_t> missed_;
  uint64_t held_ = 0;  // bytes of entries fetched or being fetched
  std::vector<std::vector<uint8_t>> spare_;  // readers' previous buffers
  uint64_t spare_bytes_ = 0;                 // their capacity
  // The GETs in flight, by their tags (the fetch thread's).
  std::unordered_map<uint64_t, std::shared_ptr<Entry>> in_flight_;
  uint64_t next_tag_ = 0;
  // Driven by the fetch thread; given back to the store (null) when it
  // ends.
  std::unique_ptr<HttpMulti> multi_;
};

namespace {

// The handle: stops and joins the read-ahead's threads, then unregisters.
class AheadHandle : public ReadAheadHandle {
 public:
  AheadHandle(const void* ahead, std::function<void()> stop)
      : ahead_(ahead), stop_(std::move(stop)) {}
  ~AheadHandle() override { stop_(); }
  const void* token() const override { return ahead_; }

 private:
  const void* ahead_;
  std::function<void()> stop_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<RemoteStore>> RemoteStore::Open(
    const std::vector<std::string>& paths, const ShardCacheOptions& cache,
    std::vector<ShardIndex>* indexes, const std::atomic<bool>* cancel) {
  std::unique_ptr<RemoteStore> store(new RemoteStore());
  FUSEDNORM_ASSIGN_OR_RETURN(store->settings_,
                             RemoteSettings::FromEnvironment());
  for (const std::string& path : paths) {
    FUSEDNORM_ASSIGN_OR_RETURN(RemoteUrl url,
                               ResolveRemote(path, store->settings_));
    store->shards_.push_back({std::move(url), {}});
  }
  indexes->assign(paths.size(), ShardIndex());
  RemoteStore* s = store.get();
  s->index_left_ = s->settings_.index_bytes;
  FUSEDNORM_RETURN_IF_ERROR(
      ParallelFor(paths.size(), s->settings_.requests, [&](size_t i) {
        std::unique_ptr<HttpClient> client = s->TakeClient();
        client->set_cancel(cancel);
        const absl::Status st = s->OpenShard(static_cast<uint32_t>(i),
                                             client.get(), &(*indexes)[i]);
        client->set_cancel(nullptr);
        s->GiveClient(std::move(client));
        return st;
      }));
  if (!cache.dir.empty()) {
    std::vector<ShardCache::Key> keys;
    for (const Shard& shard : s->shards_) {
      // A weak ETag with no date tells no versions apart: no ETag, no copy.
      const ObjectVersion& v = shard.version;
      const bool by_date = ByDate(v);
      const bool undated = by_date && v.last_modified.empty();
      keys.push_back({shard.url.url, v.size, undated ? "" : v.etag,
                      by_date ? v.last_modified : ""});
    }
    FUSEDNORM_ASSIGN_OR_RETURN(s->cache_, ShardCache::Open(cache, keys));
    s->not_copied_.assign(paths.size(), false);
  }
  return store;
}

RemoteStore::~RemoteStore() = default;

absl::Status RemoteStore::OpenShard(uint32_t i, HttpClient* client,
                                    ShardIndex* index) {
  Shard& shard = shards_[i];
  FUSEDNORM_ASSIGN_OR_RETURN(shard.version, client->Head(shard.url));
  const RemoteUrl index_url = RemoteIndexUrl(shard.url);
  std::vector<uint8_t> bytes;
  absl::StatusOr<ObjectVersion> got = GetIndex(
      index_url, MaxShardIndexBytes(shard.version.size), client, &bytes);
  if (got.ok()) {
    FUSEDNORM_RETURN_IF_ERROR(TakeIndexMemory(
        bytes.size() + kBytesPerSample * static_cast<uint64_t>(std::count(
                                             bytes.begin(), bytes.end(), '\n')),
        index_url.shown, "its index needs up to"));
    FUSEDNORM_ASSIGN_OR_RETURN(*index, MemoryNamed(index_url.shown, [&] {
      return ParseShardIndex(
          absl::string_view(reinterpret_cast<const char*>(bytes.data()),
                            bytes.size()),
          index_url.shown);
    }));
    if (index->bytes != shard.version.size) {
      return InvalidArgumentCat(
          index_url.shown, " indexes ", index->bytes, " bytes but ",
          shard.url.shown, " has ", shard.version.size,
          ": the shard changed after it was indexed (index it again)");
    }
    return absl::OkStatus();
  }
  // S3 answers 403 for a missing key to whom may not list the bucket.
  if (!absl::IsNotFound(got.status()) &&
      !absl::IsPermissionDenied(got.status())) {
    return got.status();
  }
  std::fprintf(stderr,
               "fusednorm: warning: %s has no index (%s: not found or not "
               "readable), so it is read whole to index it, and its samples "
               "once more; `fusednorm index --data SHARD` writes SHARD.fnidx "
               "for a copy of it, to put beside it\n",
               shard.url.shown.c_str(), index_url.shown.c_str());
  return IndexWhole(shard, client, index);
}

absl::Status RemoteStore::IndexWhole(const Shard& shard, HttpClient* client,
                                     ShardIndex* index) {
  // One whole shard in memory at a time, charged while it is.
  std::lock_guard<std::mutex> one_at_a_time(whole_mu_);
  const uint64_t size = shard.version.size;
  FUSEDNORM_RETURN_IF_ERROR(TakeIndexMemory(
      size, shard.url.shown, "reading it whole to index it needs"));
  absl::StatusOr<ShardIndex> made = [&]() -> absl::StatusOr<ShardIndex> {
    std::vector<uint8_t> bytes;
    FUSEDNORM_ASSIGN_OR_RETURN(const ObjectVersion whole,
                               client->GetWhole(shard.url, size, &bytes));
    if (!SameVersion(shard.version, whole)) {
      return absl::DataLossError(
          absl::StrCat(shard.url.shown,
                       ": the object changed on the server while it was "
                       "opened"));
    }
    return MemoryNamed(shard.url.shown, [&] {
      return IndexShard(bytes, shard.url.shown, false);
    });
  }();
  index_left_ += size;  // the shard's bytes are freed
  FUSEDNORM_RETURN_IF_ERROR(made.status());
  *index = *std::move(made);
  uint64_t held = kBytesPerSample * index->samples.size();
  for (const ShardEntry& e : index->samples)
    held += e.key.size() + e.link_error.size();
  return TakeIndexMemory(held, shard.url.shown, "its index needs");
}

absl::Status RemoteStore::TakeIndexMemory(uint64_t bytes,
                                          const std::string& what,
                                          const char* need) {
  uint64_t left = index_left_.load();
  do {
    if (bytes > left) return OverBudget(what, need, bytes, left);
  } while (!index_left_.compare_exchange_weak(left, left - bytes));
  return absl::OkStatus();
}

absl::Status RemoteStore::OverBudget(const std::string& what, const char* need,
                                     uint64_t bytes, uint64_t left) const {
  return absl::ResourceExhaustedError(
      absl::StrCat(what, ": ", need, " ", bytes,
                   " bytes of memory, but FUSEDNORM_HTTP_INDEX_MB leaves ",
                   left, " of the ", settings_.index_bytes,
                   " the shards' indexes may take (", kWhyIndex, ")"));
}

absl::StatusOr<ObjectVersion> RemoteStore::GetIndex(
    const RemoteUrl& url, uint64_t bound, HttpClient* client,
    std::vector<uint8_t>* bytes) {
  // The opens in flight each cut a body off at their share of what the
  // budget leaves (and at kParallelIndexBytes); a larger one is read again
  // alone, cut off at what is left. So reading bodies holds at most about
  // the budget in parallel and once more alone.
  uint64_t cap = std::min(
      {bound, kParallelIndexBytes,
       index_left_.load() / static_cast<uint64_t>(settings_.requests)});
  bool oversized = false;
  absl::StatusOr<ObjectVersion> got =
      client->GetWhole(url, cap, bytes, &oversized);
  if (!oversized || cap == bound) return got;
  std::lock_guard<std::mutex> one_at_a_time(whole_mu_);
  const uint64_t left = index_left_.load();
  cap = std::min(bound, left);
  oversized = false;
  got = client->GetWhole(url, cap, bytes, &oversized);
  if (oversized && cap < bound)
    return OverBudget(url.shown, "its index needs more than", left, left);
  return got;
}

bool RemoteStore::NotCopied(uint32_t shard) const {
  std::lock_guard<std::mutex> lock(mu_);
  return not_copied_[shard];
}

const std::string& RemoteStore::shown(uint32_t shard) const {
  return shards_[shard].url.shown;
}

uint64_t RemoteStore::shard_bytes(uint32_t shard) const {
  return shards_[shard].version.size;
}

std::unique_ptr<HttpClient> RemoteStore::TakeClient() const {
  return TakeIdle(&mu_, &clients_, [&] {
    return std::make_unique<HttpClient>(settings_, &counters_);
  });
}

void RemoteStore::GiveClient(std::unique_ptr<HttpClient> client) const {
  GiveIdle(&mu_, &clients_, std::move(client));
}

std::unique_ptr<HttpMulti> RemoteStore::TakeMulti() const {
  return TakeIdle(&mu_, &multis_, [&] {
    return std::make_unique<HttpMulti>(settings_, &counters_);
  });
}

void RemoteStore::GiveMulti(std::unique_ptr<HttpMulti> multi) const {
  GiveIdle(&mu_, &multis_, std::move(multi));
}

absl::Status RemoteStore::CheckSampleSize(const Place& place) const {
  // A sample's size is the index's word, and a body of that size is
  // allocated for it: at most what the read-ahead may hold.
  if (place.size > settings_.ahead_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "its ", place.size,
        " bytes are more than FUSEDNORM_HTTP_AHEAD_MB allows a sample (",
        settings_.ahead_bytes >> 20, " MiB)"));
  }
  return absl::OkStatus();
}

absl::Status RemoteStore::FetchWith(HttpClient* client, const Place& place,
                                    std::vector<uint8_t>* out,
                                    std::string* copy_path) const {
  FUSEDNORM_RETURN_IF_ERROR(CheckSampleSize(place));
  if (cache_ != nullptr) {
    if (std::shared_ptr<const MappedFile> copy = cache_->Get(place.shard)) {
      const absl::Span<const uint8_t> b =
          copy->bytes().subspan(place.offset, place.size);
      try {
        out->assign(b.begin(), b.end());
      } catch (const std::bad_alloc&) {
        return absl::ResourceExhaustedError(
            absl::StrCat("out of memory for ", place.size, " bytes of ",
                         shards_[place.shard].url.shown));
      }
      if (copy->CheckUnchanged().ok()) {
        from_cache_.fetch_add(1, std::memory_order_relaxed);
        *copy_path = cache_->PathOf(place.shard);
        return absl::OkStatus();
      }
      cache_->Evict(place.shard);  // changed under us: the network's bytes
    }
  }
  const Shard& shard = shards_[place.shard];
  return client->GetRange(shard.url, shard.version, place.offset, place.size,
                          out);
}

void RemoteStore::Fill(HttpClient* client, uint32_t s) const {
  const Shard& shard = shards_[s];
  std::vector<uint8_t> range;
  absl::Status status;
  for (uint64_t at = 0; status.ok() && at < shard.version.size;
       at += kFillRange) {
    const uint64_t n = std::min(kFillRange, shard.version.size - at);
    status = client->GetRange(shard.url, shard.version, at, n, &range);
    if (status.ok()) status = cache_->Write(s, range);
  }
  // The first failure is the one to tell: the network's, or the copy's.
  // A shard that failed is not tried again (sample after sample): marked
  // before Finish lets go of it, which another read-ahead could otherwise
  // begin anew.
  const bool failed = !status.ok() && !absl::IsCancelled(status);
  const auto mark = [&] {
    std::lock_guard<std::mutex> lock(mu_);
    not_copied_[s] = true;
  };
  if (failed) mark();
  const absl::Status finished = cache_->Finish(s, status.ok());
  if (status.ok() && !finished.ok()) {
    status = finished;
    mark();
  }
  if (!status.ok() && !absl::IsCancelled(status)) {  // read over the network
    std::fprintf(stderr,
                 "fusednorm: warning: cache_dir: %s was not copied (%s); its "
                 "samples are read over the network\n",
                 shard.url.shown.c_str(), OneLine(status.message()).c_str());
  }
}

absl::Status RemoteStore::Read(uint64_t index, const Place& place,
                               std::vector<uint8_t>* out,
                               std::string* copy) const {
  copy->clear();
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::shared_ptr<Ahead>> aheads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    aheads = aheads_;
  }
  absl::Status status;
  bool taken = false;
  const void* own = ThreadReadAhead();
  const std::atomic<bool>* cancel = nullptr;  // the reader's epoch stopping
  for (size_t i = 0; i < aheads.size() && !taken; ++i) {
    taken = aheads[i]->Take(index, out, &status);
    if (aheads[i].get() == own) cancel = aheads[i]->cancel();
    // Each epoch reads every sample, so another epoch's read-ahead may hold
    // this one, and stop (that epoch over) before it lands: the sample is
    // then taken from the next one, or fetched here. A sample of this
    // reader's own read-ahead (or of a reader that named none) stays
    // cancelled: its epoch is stopping.
    if (taken && absl::IsCancelled(status) && own != nullptr &&
        aheads[i].get() != own && aheads[i]->stopped()) {
      taken = false;
    }
  }
  if (!taken) {
    // Fetched here, it stops when the reader's read-ahead stops (its epoch
    // is over), so that dropping a loader never waits for a slow server.
    std::unique_ptr<HttpClient> client = TakeClient();
    client->set_cancel(cancel);
    status = FetchWith(client.get(), place, out, copy);
    client->set_cancel(nullptr);
    GiveClient(std::move(client));
  }
  wait_ns_.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::steady_clock::now() - start)
                         .count(),
                     std::memory_order_relaxed);
  return status;
}

std::unique_ptr<ReadAheadHandle> RemoteStore::ReadAhead(
    std::function<bool(uint64_t*)> next,
    std::function<Place(uint64_t)> place_of) const {
  auto ahead =
      std::make_shared<Ahead>(this, std::move(next), std::move(place_of));
  auto threads = std::make_shared<std::vector<std::thread>>();
  {
    std::lock_guard<std::mutex> lock(mu_);
    aheads_.push_back(ahead);
  }
  try {
    threads->emplace_back([ahead] { ahead->Fetch(); });
  } catch (const std::system_error&) {
    ahead->NoFetches();
  }
  try {
    if (cache_ != nullptr) threads->emplace_back([ahead] { ahead->Copy(); });
  } catch (const std::system_error&) {
    ahead->NoCopies();  // samples are read over the network
  }
  return std::make_unique<AheadHandle>(ahead.get(), [this, ahead, threads] {
    ahead->Stop();
    for (std::thread& t : *threads) t.join();
    std::lock_guard<std::mutex> lock(mu_);
    aheads_.erase(std::find(aheads_.begin(), aheads_.end(), ahead));
  });
}

NetworkCounters RemoteStore::network() const {
  NetworkCounters n;
  n.requests = counters_.requests.load();
  n.bytes = counters_.bytes.load();
  n.retries = counters_.retries.load();
  n.from_cache = from_cache_.load();
  n.wait_seconds = wait_ns_.load() * 1e-9;
  n.bound_stops = bound_stops_.load();
  n.fetch_cpu_seconds = fetch_cpu_ns_.load() * 1e-9;
  return n;
}

}  // namespace fusednorm
