// HttpMulti: many ranged GETs in flight on one thread, through one libcurl
// multi handle, instead of a thread blocked in each: each GET on a
// connection of its own (no HTTP/2 streams sharing one), kept open for the
// GETs that follow (up to FUSEDNORM_HTTP_REQUESTS of them). Each GET has a
// client of its own (HttpClient::StartRange), so it has GetRange's checks
// and retries; a GET waiting out its backoff holds up no other.
//
// One thread drives it (Start, Run, Abandon); Wake may be called from any
// thread. GETs still in flight when it is abandoned or destroyed are
// dropped: their bodies are left as they are, and their tags never come
// back. Its connections stay open for the GETs that follow.
#ifndef FUSEDNORM_DATA_HTTP_MULTI_H_
#define FUSEDNORM_DATA_HTTP_MULTI_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "data/http_client.h"
#include "data/remote_url.h"

namespace fusednorm {

class HttpMulti {
 public:
  // GETs that ended: (tag, status) each.
  using Ended = std::vector<std::pair<uint64_t, absl::Status>>;

  HttpMulti(const RemoteSettings& settings, HttpCounters* counters);
  ~HttpMulti();
  HttpMulti(const HttpMulti&) = delete;
  HttpMulti& operator=(const HttpMulti&) = delete;

  // Whether libcurl made the multi handle; without it every GET ends at
  // once with ResourceExhausted (and Run does not wait).
  bool ok() const { return multi_ != nullptr; }

  // Starts a GET of bytes [offset, offset + size) of `url` (an object of
  // `version`) into *body; `url`, `version` and *body must outlive it. Its
  // `tag` comes back from Run when it ends.
  void Start(const RemoteUrl& url, const ObjectVersion& version,
             uint64_t offset, uint64_t size, std::vector<uint8_t>* body,
             uint64_t tag);
  // GETs started and not yet ended.
  size_t in_flight() const { return in_flight_; }

  // Moves the GETs on until one ends, Wake is called, or `timeout_ms`
  // pass; appends those that ended, (tag, status), to *ended.
  void Run(int timeout_ms, Ended* ended);
  // Makes Run return soon (any thread).
  void Wake();
  // Drops the GETs in flight (see above).
  void Abandon();
  // GETs stop with Cancelled while *cancel is true (null: never).
  void set_cancel(const std::atomic<bool>* cancel);

 private:
  using Clock = std::chrono::steady_clock;
  struct Slot {
    std::unique_ptr<HttpClient> client;
    uint64_t tag = 0;
    bool busy = false;     // a GET is in flight on it
    bool waiting = false;  // ... and waits until `due` to try again
    Clock::time_point due;
  };

  // Starts slot `i`'s next attempt, or ends its GET into *ended.
  void Attempt(size_t i, Ended* ended);
  // Starts the attempts whose backoff is over.
  void StartDue(Ended* ended);
  // Takes what libcurl says ended.
  void Collect(Ended* ended);
  void Finish(size_t i, const absl::Status& status, Ended* ended);
  // Milliseconds to the first backoff's end (at most `cap`).
  int UntilDue(int cap) const;

  const RemoteSettings settings_;
  HttpCounters* counters_;
  const std::atomic<bool>* cancel_ = nullptr;
  void* multi_;  // CURLM*
  std::vector<Slot> slots_;
  std::vector<size_t> free_;  // slots without a GET
  size_t in_flight_ = 0;
  // Starts whose GET ended before Run (an empty range, a failure to
  // begin): returned by the next Run.
  Ended early_;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_HTTP_MULTI_H_
