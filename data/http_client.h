// HttpClient: GET and HEAD of remote objects through libcurl, with its
// connection reuse, TLS verification and SigV4 signing, and with the rules
// a data loader needs around them:
//
// - A ranged GET must come back as exactly those bytes (206 with the
//   Content-Range asked for); a whole GET is cut off past `max_bytes`. A
//   server that sends more, or ignores the range, is refused: sizes come
//   from the index, never from the server.
// - Connection failures and resets, timeouts (FUSEDNORM_HTTP_TIMEOUT
//   without a byte, or to connect; at any moment an answer may have taken
//   that long plus its bytes so far at 64 KB/s, so a server that drips
//   bytes is cut off whatever size it claims), bodies cut short, HTTP 5xx,
//   408 and 429 are retried FUSEDNORM_HTTP_RETRIES times with exponential
//   backoff and jitter (429 and 503 after their Retry-After, up to 30 s);
//   then the request fails, naming the URL, the range and the last cause.
// - Other statuses fail at once naming the URL and the status; 412 (an
//   If-Match ETag that no longer holds) is DataLoss: the object changed.
// - TLS peers are verified (the system's CA store, or SSL_CERT_FILE /
//   SSL_CERT_DIR); redirects are followed at most 5 times and never from
//   https to http (nor back to http after an https hop), and never for
//   signed S3 requests (their headers would go to the redirect's host).
// - An object with a weak ETag (W/"...") is checked by the answers' ETags,
//   since If-Match never matches a weak one.
//
// One client per thread (it holds one libcurl handle and its connections),
// or many driven by one thread through a multi handle (StartRange,
// data/http_multi.h); counters may be shared.
#ifndef FUSEDNORM_DATA_HTTP_CLIENT_H_
#define FUSEDNORM_DATA_HTTP_CLIENT_H_

#include <atomic>
#include <cstdint>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "data/remote_url.h"

namespace fusednorm {

// What requests cost, for a run's report (thread-safe).
struct HttpCounters {
  std::atomic<uint64_t> requests{0};  // attempts, retries included
  std::atomic<uint64_t> bytes{0};     // body bytes received
  std::atomic<uint64_t> retries{0};
};

// An object's size and version: its ETag ("" when the server gives none)
// and its Last-Modified date as the server wrote it ("" when none), which
// ranged GETs use when the ETag is weak or missing.
struct ObjectVersion {
  uint64_t size = 0;
  std::string etag;
  std::string last_modified;
};

// Whether an answer's `now` may be the version `open` describes: the same
// size and, with a strong ETag, the same ETag, or where `now` has none the
// same Last-Modified; else the same ETag (compared weakly) and
// Last-Modified (the same second, in whichever format each is written)
// where both have them. Either way the answer carries at least one of
// those that `open` has.
bool SameVersion(const ObjectVersion& open, const ObjectVersion& now);

// The seconds a Retry-After header asks for at time `now`: a number of
// seconds, or an HTTP date (the seconds until then); 0 for a date past,
// a negative number or a text that is neither.
double RetryAfterSeconds(absl::string_view value, time_t now);

// libcurl's global set-up, once per process (thread-safe); clients and
// data/http_multi.h's multi handles call it.
void InitLibcurl();

// Whether requests guard `v` by its date (If-Unmodified-Since) rather than
// by If-Match: its ETag is weak, missing, or too long or odd to send back
// (kept as a digest).
bool ByDate(const ObjectVersion& v);

class HttpClient {
 public:
  HttpClient(const RemoteSettings& settings, HttpCounters* counters);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // HEAD: the object's size and ETag. NotFound for 404, PermissionDenied
  // for 401/403, naming the URL and the status.
  absl::StatusOr<ObjectVersion> Head(const RemoteUrl& url);

  // GET of bytes [offset, offset + size) of an object of `version.size`
  // bytes, with If-Match: version.etag when it has one, into *body. An
  // object of another size is DataLoss (the object changed).
  absl::Status GetRange(const RemoteUrl& url, const ObjectVersion& version,
                        uint64_t offset, uint64_t size,
                        std::vector<uint8_t>* body);

  // GET of a whole object of at most `max_bytes` bytes into *body, with
  // its version. NotFound for 404; *oversized (when given) is set when the
  // answer was refused for being larger.
  absl::StatusOr<ObjectVersion> GetWhole(const RemoteUrl& url,
                                         uint64_t max_bytes,
                                         std::vector<uint8_t>* body,
                                         bool* oversized = nullptr);

  // GetRange driven by the caller's libcurl multi handle (HttpMulti,
  // data/http_multi.h), one GET per client at a time, with the same checks
  // and retries. StartRange names the GET (`url`, `version` and *body must
  // outlive it). BeginAttempt readies this client's handle for the next
  // attempt and returns it (a CURL*), or null with *status when the GET
  // is over before it (cancelled, out of memory, or an empty range: OK).
  // EndAttempt takes libcurl's result for the attempt (a CURLcode): true
  // with *status when the GET is over; false when it is to be tried again
  // after *wait seconds, with BeginAttempt.
  void StartRange(const RemoteUrl& url, const ObjectVersion& version,
                  uint64_t offset, uint64_t size, std::vector<uint8_t>* body);
  void* BeginAttempt(absl::Status* status);
  bool EndAttempt(int result, absl::Status* status, double* wait);
  void* handle() const { return curl_; }  // the CURL* BeginAttempt gives

  // A request, what came back, what its callbacks watch, one attempt's
  // state, and a GET of StartRange's (http_client.cc's).
  struct Request;
  struct Reply;
  struct Watch;
  struct Transfer;
  struct Get;

  // While *cancel is true (null: never), requests and retry waits stop
  // with Cancelled.
  void set_cancel(const std::atomic<bool>* cancel) { cancel_ = cancel; }

 private:
  absl::StatusOr<Reply> Perform(const Request& request,
                                std::vector<uint8_t>* body);
  // One attempt: Begin readies the handle (*t must stay put until End),
  // End takes libcurl's result (a CURLcode) and says what came of it.
  absl::Status Begin(const Request& request, std::vector<uint8_t>* body,
                     Transfer* t);
  absl::StatusOr<Reply> End(const Request& request, Transfer* t, int result);
  // After attempt `attempt` came to *r: true when *r is the request's
  // outcome (a retryable failure past the retries becomes its error,
  // naming `last`); false when it is to be tried again after *wait s.
  bool Settle(const Request& request, int attempt, std::string* last,
              absl::StatusOr<Reply>* r, double* wait) const;
  static Request RangeRequest(const RemoteUrl& url,
                              const ObjectVersion& version, uint64_t offset,
                              uint64_t size);
  // GetRange's checks of what a ranged GET came to.
  static absl::Status CheckRange(const Request& request,
                                 const ObjectVersion& version,
                                 const absl::StatusOr<Reply>& got,
                                 const std::vector<uint8_t>& body);
  void SetOptions(const Request& request, Reply* reply, Watch* watch,
                  char* error);
  std::vector<std::string> HeaderLines(const Request& request) const;
  // Waits `seconds`; false when cancelled meanwhile.
  bool Sleep(double seconds) const;

  const RemoteSettings settings_;
  HttpCounters* counters_;
  const std::string sigv4_;  // CURLOPT_AWS_SIGV4's provider:region:service
  const std::atomic<bool>* cancel_ = nullptr;
  void* curl_;                // CURL*
  std::unique_ptr<Get> get_;  // StartRange's GET
};

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_HTTP_CLIENT_H_
