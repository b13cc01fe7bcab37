// HttpClient (http_client.h): one libcurl easy handle per client; an
// attempt is Begin, a transfer (curl_easy_perform here, or a multi handle's
// for StartRange's GET) and End; Settle decides on retries, for Perform's
// loop and for EndAttempt; the checks of what came back follow.
#include "data/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <mutex>
#include <new>
#include <random>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "core/digest.h"
#include "core/status.h"

namespace fusednorm {
namespace {

// SigV4's hash of an empty payload, which S3 wants in x-amz-content-sha256.
constexpr char kEmptySha256[] =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
// Error bodies (an HTML 404 page) are read and dropped up to this size.
constexpr uint64_t kMaxErrorBody = uint64_t{1} << 20;
constexpr double kMaxRetryAfter = 30;
// An ETag or Last-Modified longer than this is kept as its digest (an HTTP
// date is 29 characters).
constexpr size_t kMaxVersionField = 256;
// The most a ranged GET reserves before its first byte.
constexpr uint64_t kMaxReserve = uint64_t{64} << 20;
// The slowest an answer may come, past the timeout: 64 bytes a millisecond.
constexpr double kMinBytesPerMs = 64;

// Whether libcurl's result is worth another try.
bool Transient(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

}  // namespace

double RetryAfterSeconds(absl::string_view value, time_t now) {
  double seconds = 0;
  if (absl::SimpleAtod(value, &seconds)) return seconds >= 0 ? seconds : 0;
  const time_t when = curl_getdate(std::string(value).c_str(), nullptr);
  if (when == -1 || when <= now) return 0;
  return static_cast<double>(when - now);
}

namespace {

bool TransientStatus(long status) {
  return status >= 500 || status == 408 || status == 429;
}

// Seconds before retry `attempt` (0-based): 0.1 s doubling to at most 5 s,
// times a jitter in [0.5, 1.5), or the server's Retry-After when longer.
double Backoff(int attempt, double retry_after) {
  thread_local std::mt19937_64 rng(std::random_device{}());
  const double base = std::min(5.0, 0.1 * std::ldexp(1.0, attempt));
  const double jittered =
      base * std::uniform_real_distribution<double>(0.5, 1.5)(rng);
  return std::max(jittered, std::min(retry_after, kMaxRetryAfter));
}

// "bytes FIRST-LAST/TOTAL"; false for anything else, "bytes FIRST-LAST/*"
// included (the object's size unknown: its version cannot be checked),
// which *unknown_total then tells.
bool ParseContentRange(absl::string_view v, uint64_t* first, uint64_t* last,
                       uint64_t* total, bool* unknown_total) {
  *unknown_total = absl::EndsWith(v, "/*");
  if (!absl::ConsumePrefix(&v, "bytes ")) return false;
  const size_t dash = v.find('-'), slash = v.find('/');
  if (dash == absl::string_view::npos || slash == absl::string_view::npos ||
      dash > slash) {
    return false;
  }
  return absl::SimpleAtoi(v.substr(0, dash), first) &&
         absl::SimpleAtoi(v.substr(dash + 1, slash - dash - 1), last) &&
         absl::SimpleAtoi(v.substr(slash + 1), total);
}

// Whether two Last-Modified values name the same second: in any of the
// formats HTTP dates are written in (IMF-fixdate, RFC 850, asctime) and
// those libcurl reads besides ("+0000"), or as the same text (a digest).
bool SameDate(const std::string& a, const std::string& b) {
  if (a == b) return true;
  const time_t ta = curl_getdate(a.c_str(), nullptr);
  return ta != -1 && ta == curl_getdate(b.c_str(), nullptr);
}

}  // namespace

void InitLibcurl() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

bool ByDate(const ObjectVersion& v) {
  return !absl::StartsWith(v.etag, "\"");  // none, weak, or a digest
}

bool SameVersion(const ObjectVersion& open, const ObjectVersion& now) {
  if (now.size != open.size) return false;
  if (!ByDate(open)) {  // a strong ETag, which If-Match checked
    if (!now.etag.empty()) return now.etag == open.etag;
    // Without it (a server that ignores If-Match may drop it too), the
    // date the open had must come back.
    return !open.last_modified.empty() && !now.last_modified.empty() &&
           SameDate(now.last_modified, open.last_modified);
  }
  // Weak comparison: "W/" aside, the tags must be equal.
  const auto tag = [](absl::string_view e) {
    return absl::StartsWith(e, "W/") ? e.substr(2) : e;
  };
  const bool etags = !open.etag.empty() && !now.etag.empty();
  const bool dates = !open.last_modified.empty() && !now.last_modified.empty();
  if (etags && tag(now.etag) != tag(open.etag)) return false;
  if (dates && !SameDate(now.last_modified, open.last_modified)) return false;
  // An answer must carry one of what the open had.
  return etags || dates || (open.etag.empty() && open.last_modified.empty());
}

struct HttpClient::Request {
  const RemoteUrl* url = nullptr;
  bool head = false;
  bool ranged = false;
  uint64_t offset = 0, size = 0;  // the range, when ranged
  std::string if_match;
  std::string if_unmodified_since;
  uint64_t max_bytes = 0;     // of the body
  bool* oversized = nullptr;  // set when the body outgrew max_bytes

  // "GET https://host/a.tar bytes 0-99" for messages.
  std::string What() const {
    std::string what = absl::StrCat(head ? "HEAD " : "GET ", url->shown);
    if (ranged)
      absl::StrAppend(&what, " bytes ", offset, "-", offset + size - 1);
    return what;
  }
};

struct HttpClient::Reply {
  long status = 0;
  std::string etag, last_modified;
  std::string encoding;  // Content-Encoding other than identity, as shown
  bool has_length = false, has_range = false;
  bool headers_done = false;                // the blank line after them came
  bool unknown_total = false;               // Content-Range: bytes FIRST-LAST/*
  uint64_t length = 0;                      // Content-Length
  uint64_t first = 0, last = 0, total = 0;  // Content-Range
  double retry_after = 0;
  // Set by the write callback: the body outgrew max_bytes, or memory ran
  // out.
  bool overflow = false, out_of_memory = false;
  uint64_t discarded = 0;  // bytes of an error body
  std::vector<uint8_t>* body = nullptr;
  uint64_t max_bytes = 0;
  bool head = false;  // a HEAD request's: no body follows
  HttpCounters* counters = nullptr;
};

// What one attempt's progress and redirect callbacks watch.
struct HttpClient::Watch {
  CURL* handle = nullptr;
  const std::atomic<bool>* cancel = nullptr;  // null: never
  std::chrono::steady_clock::time_point start;
  double timeout_seconds = 0;
  bool https_seen = false;  // a hop of this attempt was https
  bool downgraded = false;  // then a hop was http: stopped
  bool too_slow = false;    // stopped by the rate rule
};

namespace {

// An ETag or Last-Modified as kept: as sent when it is short printable
// ASCII, else "#" and its digest, which still compares, is never sent back,
// and holds no byte of the server's to reach a message.
std::string VersionField(absl::string_view value) {
  if (value.size() <= kMaxVersionField && IsPrintable(value)) {
    return std::string(value);
  }
  return absl::StrCat("#", Digest().Text(value).Hex());
}

// A version field in a message ("none" when the server gave none).
std::string Shown(const std::string& field) {
  return field.empty() ? "none" : ShownText(field);
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* r = static_cast<HttpClient::Reply*>(user);
  absl::string_view line(data, size * n);
  line = absl::StripAsciiWhitespace(line);
  if (absl::StartsWith(line, "HTTP/")) {  // a new response (redirects)
    HttpCounters* counters = r->counters;
    std::vector<uint8_t>* body = r->body;
    const uint64_t max = r->max_bytes;
    const bool head = r->head;
    *r = HttpClient::Reply();
    r->counters = counters;
    r->body = body;
    r->max_bytes = max;
    r->head = head;
    body->clear();
    const size_t sp = line.find(' ');
    if (sp != absl::string_view::npos)
      absl::SimpleAtoi(line.substr(sp + 1, 3), &r->status);
    return size * n;
  }
  if (line.empty()) r->headers_done = true;
  const size_t colon = line.find(':');
  if (colon == absl::string_view::npos) return size * n;
  const std::string name = absl::AsciiStrToLower(line.substr(0, colon));
  const absl::string_view value =
      absl::StripAsciiWhitespace(line.substr(colon + 1));
  if (name == "etag") {
    r->etag = VersionField(value);
  } else if (name == "last-modified") {
    r->last_modified = VersionField(value);
  } else if (name == "content-encoding" &&
             !absl::EqualsIgnoreCase(value, "identity")) {
    r->encoding = ShownText(value.substr(0, 64));
  } else if (name == "content-length") {
    r->has_length = absl::SimpleAtoi(value, &r->length);
    // A body announced past the bound fails before any byte of it.
    if (r->has_length && !r->head && r->status / 100 == 2 &&
        r->length > r->max_bytes) {
      r->overflow = true;
      return 0;
    }
  } else if (name == "content-range") {
    r->has_range = ParseContentRange(value, &r->first, &r->last, &r->total,
                                     &r->unknown_total);
  } else if (name == "retry-after") {
    r->retry_after = RetryAfterSeconds(value, std::time(nullptr));
  }
  return size * n;
}

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* r = static_cast<HttpClient::Reply*>(user);
  const size_t bytes = size * n;
  r->counters->bytes.fetch_add(bytes, std::memory_order_relaxed);
  if (r->status / 100 != 2) {  // an error page: dropped
    r->discarded += bytes;
    return r->discarded > kMaxErrorBody ? 0 : bytes;
  }
  if (r->body->size() + bytes > r->max_bytes) {
    r->overflow = true;
    return 0;
  }
  // As bytes, not chars: a copy of one type is one memmove, while char to
  // uint8_t would be copied element by element.
  const auto* first = reinterpret_cast<const uint8_t*>(data);
  std::vector<uint8_t>& body = *r->body;
  try {  // nothing may be thrown through libcurl's frames
    // An announced length is reserved once: memory then grows only with
    // the bytes that arrive (pages are touched as they are written).
    // Without one, the body doubles, but never past max_bytes.
    if (body.empty() && r->has_length && r->length <= r->max_bytes) {
      body.reserve(r->length);
    } else if (body.size() + bytes > body.capacity()) {
      body.reserve(std::min<uint64_t>(
          std::max<uint64_t>(2 * body.capacity(), body.size() + bytes),
          r->max_bytes));
    }
    body.insert(body.end(), first, first + bytes);
  } catch (const std::bad_alloc&) {
    r->out_of_memory = true;
    return 0;
  }
  return bytes;
}

// Stops a transfer once the client's cancel flag is set, or once it runs
// past the timeout plus its bytes so far at kMinBytesPerMs: a server that
// drips bytes is cut off whatever size it claims.
int OnProgress(void* user, curl_off_t, curl_off_t now, curl_off_t, curl_off_t) {
  auto* w = static_cast<HttpClient::Watch*>(user);
  if (w->cancel != nullptr && w->cancel->load(std::memory_order_relaxed))
    return 1;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - w->start)
          .count();
  if (elapsed >
      w->timeout_seconds + static_cast<double>(now) / (kMinBytesPerMs * 1e3)) {
    w->too_slow = true;
    return 1;
  }
  return 0;
}

// Before each request of an attempt, redirects included: once a hop was
// https, an http one is refused (libcurl's redirect protocols are fixed by
// the first URL's scheme, so http -> https -> http would pass them).
int OnPrerequest(void* user, char*, char*, int, int) {
  auto* w = static_cast<HttpClient::Watch*>(user);
  char* url = nullptr;
  curl_easy_getinfo(w->handle, CURLINFO_EFFECTIVE_URL, &url);
  if (url != nullptr && absl::StartsWithIgnoreCase(url, "https://")) {
    w->https_seen = true;
  } else if (w->https_seen) {
    w->downgraded = true;
    return CURL_PREREQFUNC_ABORT;
  }
  return CURL_PREREQFUNC_OK;
}

}  // namespace

HttpClient::HttpClient(const RemoteSettings& settings, HttpCounters* counters)
    : settings_(settings),
      counters_(counters),
      sigv4_(absl::StrCat("aws:amz:", settings.region, ":s3")) {
  InitLibcurl();
  curl_ = curl_easy_init();
}

struct HttpClient::Transfer {
  Reply reply;
  Watch watch;
  char error[CURL_ERROR_SIZE] = {0};
  curl_slist* headers = nullptr;
  ~Transfer() { curl_slist_free_all(headers); }  // an attempt not ended
};

// A ranged GET driven by a multi handle (BeginAttempt, EndAttempt).
struct HttpClient::Get {
  Request q;
  const ObjectVersion* version = nullptr;
  std::vector<uint8_t>* body = nullptr;
  int attempt = 0;
  std::string last;  // the last attempt's failure, for the final error
  Transfer t;
};

HttpClient::~HttpClient() {
  if (curl_ != nullptr) curl_easy_cleanup(static_cast<CURL*>(curl_));
}

absl::Status HttpClient::Begin(const Request& q, std::vector<uint8_t>* body,
                               Transfer* t) {
  CURL* c = static_cast<CURL*>(curl_);
  if (c == nullptr)
    return absl::ResourceExhaustedError("curl_easy_init failed");
  curl_easy_reset(c);  // keeps the connections
  t->reply = Reply();
  t->reply.counters = counters_;
  t->reply.body = body;
  t->reply.max_bytes = q.max_bytes;
  t->reply.head = q.head;
  body->clear();
  try {  // one allocation, no copies (a recycled buffer may have it)
    if (q.ranged) body->reserve(std::min<uint64_t>(q.size, kMaxReserve));
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        absl::StrCat(q.What(), ": out of memory for ", q.size, " bytes"));
  }
  t->error[0] = 0;
  t->watch = Watch();
  t->watch.handle = c;
  t->watch.cancel = cancel_;
  t->watch.timeout_seconds = settings_.timeout_seconds;
  t->watch.start = std::chrono::steady_clock::now();
  SetOptions(q, &t->reply, &t->watch, t->error);
  // Headers go in the list (not CURLOPT_RANGE) so that SigV4 signs them.
  for (const std::string& line : HeaderLines(q))
    t->headers = curl_slist_append(t->headers, line.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, t->headers);
  counters_->requests.fetch_add(1, std::memory_order_relaxed);
  return absl::OkStatus();
}

absl::StatusOr<HttpClient::Reply> HttpClient::End(const Request& q, Transfer* t,
                                                  int result) {
  const auto code = static_cast<CURLcode>(result);
  curl_slist_free_all(t->headers);
  t->headers = nullptr;
  curl_easy_setopt(static_cast<CURL*>(curl_), CURLOPT_ERRORBUFFER, nullptr);
  const Reply& reply = t->reply;
  if (code == CURLE_OK) return reply;
  // An error page past its bound: the status is what counts.
  if (code == CURLE_WRITE_ERROR && reply.status / 100 != 2 &&
      reply.status != 0 && !reply.overflow) {
    return reply;
  }
  if (t->watch.downgraded) {
    return InvalidArgumentCat(q.What(),
                              ": a redirect from https to http is refused");
  }
  if (t->watch.too_slow) {
    return absl::UnavailableError(absl::StrCat("the answer was slower than ",
                                               settings_.timeout_seconds,
                                               " s plus its bytes at 64 KB/s"));
  }
  if (code == CURLE_ABORTED_BY_CALLBACK)
    return absl::CancelledError(absl::StrCat(q.What(), ": cancelled"));
  if (reply.out_of_memory) {
    return absl::ResourceExhaustedError(
        absl::StrCat(q.What(), ": out of memory for the body"));
  }
  if (reply.overflow) {
    if (q.oversized != nullptr) *q.oversized = true;
    return InvalidArgumentCat(q.What(), ": the server sent more than the ",
                              q.max_bytes, " bytes expected; refused");
  }
  std::string why =
      absl::StrCat(t->error[0] != 0 ? t->error : curl_easy_strerror(code),
                   " (libcurl error ", static_cast<int>(code), ")");
  // libcurl's words for a header line longer than it takes (100 KB).
  if (code == CURLE_OUT_OF_MEMORY && !reply.headers_done)
    why += ": the answer's headers were too large to read";
  if (Transient(code)) return absl::UnavailableError(why);
  return InvalidArgumentCat(q.What(), ": ", why);
}

void HttpClient::SetOptions(const Request& q, Reply* reply, Watch* watch,
                            char* error) {
  CURL* c = static_cast<CURL*>(curl_);
  curl_easy_setopt(c, CURLOPT_URL, q.url->url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  // An S3 key is a name, not a path: "a/../b" is not "b".
  curl_easy_setopt(c, CURLOPT_PATH_AS_IS, q.url->s3 ? 1L : 0L);
  // OnPrerequest refuses an http hop after an https one.
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  // A signed request's headers (the session token) must not follow a
  // redirect to another host; S3 does not redirect a request it can serve.
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, q.url->signed_s3 ? 0L : 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  // Fewer, larger reads of a sample's body (libcurl's default is 16 KiB).
  curl_easy_setopt(c, CURLOPT_BUFFERSIZE, 256L * 1024);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  const long timeout_ms = std::lround(settings_.timeout_seconds * 1000);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME,
                   std::max(1L, (timeout_ms + 999) / 1000));
  // A whole answer's deadline: the timeout plus its bytes at 64 KiB/s, so
  // that a server dripping bytes cannot hold a request for days.
  const uint64_t expected = q.head ? 0 : q.ranged ? q.size : q.max_bytes;
  curl_easy_setopt(
      c, CURLOPT_TIMEOUT_MS,
      static_cast<long>(std::min<uint64_t>(timeout_ms + expected / 64,
                                           std::numeric_limits<long>::max())));
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, OnProgress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, watch);
  curl_easy_setopt(c, CURLOPT_PREREQFUNCTION, OnPrerequest);
  curl_easy_setopt(c, CURLOPT_PREREQDATA, watch);
  if (!settings_.ca_file.empty())
    curl_easy_setopt(c, CURLOPT_CAINFO, settings_.ca_file.c_str());
  if (!settings_.ca_dir.empty())
    curl_easy_setopt(c, CURLOPT_CAPATH, settings_.ca_dir.c_str());
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, reply);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, reply);
  if (q.head) curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  if (q.url->signed_s3) {
    curl_easy_setopt(c, CURLOPT_AWS_SIGV4, sigv4_.c_str());
    curl_easy_setopt(c, CURLOPT_USERNAME, settings_.access_key.c_str());
    curl_easy_setopt(c, CURLOPT_PASSWORD, settings_.secret_key.c_str());
  }
}

std::vector<std::string> HttpClient::HeaderLines(const Request& q) const {
  std::vector<std::string> lines;
  if (q.ranged) {
    lines.push_back(
        absl::StrCat("Range: bytes=", q.offset, "-", q.offset + q.size - 1));
  }
  // If-Match compares strongly: a weak ETag never matches, so the answer's
  // ETag is compared instead (GetRange).
  // VersionField's digests ("#...") are never sent.
  if (absl::StartsWith(q.if_match, "\""))
    lines.push_back("If-Match: " + q.if_match);
  if (!q.if_unmodified_since.empty() && q.if_unmodified_since[0] != '#')
    lines.push_back("If-Unmodified-Since: " + q.if_unmodified_since);
  if (q.url->signed_s3) {
    lines.push_back(absl::StrCat("x-amz-content-sha256: ", kEmptySha256));
    if (!settings_.session_token.empty())
      lines.push_back("x-amz-security-token: " + settings_.session_token);
  }
  return lines;
}

bool HttpClient::Sleep(double seconds) const {
  const auto end =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (cancel_ != nullptr && cancel_->load(std::memory_order_relaxed))
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

bool HttpClient::Settle(const Request& q, int attempt, std::string* last,
                        absl::StatusOr<Reply>* r, double* wait) const {
  double retry_after = 0;
  if (r->ok() && !TransientStatus((*r)->status)) return true;
  if (r->ok()) {
    *last = absl::StrCat("HTTP ", (*r)->status);
    retry_after = (*r)->retry_after;
  } else if (absl::IsUnavailable(r->status())) {
    *last = std::string(r->status().message());
  } else {
    return true;
  }
  if (attempt >= settings_.retries) {
    *r = absl::UnavailableError(absl::StrCat(q.What(), ": failed ", attempt + 1,
                                             " times; last: ", *last));
    return true;
  }
  counters_->retries.fetch_add(1, std::memory_order_relaxed);
  *wait = Backoff(attempt, retry_after);
  return false;
}

absl::StatusOr<HttpClient::Reply> HttpClient::Perform(
    const Request& q, std::vector<uint8_t>* body) {
  std::string last;
  for (int attempt = 0;; ++attempt) {
    Transfer t;
    const absl::Status begun = Begin(q, body, &t);
    if (!begun.ok()) return begun;
    absl::StatusOr<Reply> r =
        End(q, &t, curl_easy_perform(static_cast<CURL*>(curl_)));
    double wait = 0;
    if (Settle(q, attempt, &last, &r, &wait)) return r;
    if (!Sleep(wait))
      return absl::CancelledError(absl::StrCat(q.What(), ": cancelled"));
  }
}

namespace {

// The error of a final status other than 2xx.
absl::Status StatusError(const HttpClient::Request& q, long status) {
  const std::string m = absl::StrCat(q.What(), ": HTTP ", status);
  if (status / 100 == 3 && q.url->signed_s3) {
    return InvalidArgumentCat(
        m,
        " (a redirect, not followed for a signed S3 request, whose headers "
        "would go to another host: set the bucket's region, AWS_REGION, or "
        "its endpoint)");
  }
  if (status == 404) return absl::NotFoundError(m + " (not found)");
  if (status == 401 || status == 403) {
    return absl::PermissionDeniedError(
        m +
        " (access denied: check the URL, and for S3 the credentials, "
        "region and endpoint)");
  }
  if (status == 412) {
    return absl::DataLossError(
        m + " (the object changed on the server during the run)");
  }
  return InvalidArgumentCat(m);
}

}  // namespace

absl::StatusOr<ObjectVersion> HttpClient::Head(const RemoteUrl& url) {
  Request q;
  q.url = &url;
  q.head = true;
  std::vector<uint8_t> body;
  FUSEDNORM_ASSIGN_OR_RETURN(const Reply r, Perform(q, &body));
  if (r.status / 100 != 2) return StatusError(q, r.status);
  if (!r.has_length) {
    return InvalidArgumentCat(q.What(), ": the server gave no Content-Length");
  }
  return ObjectVersion{r.length, r.etag, r.last_modified};
}

HttpClient::Request HttpClient::RangeRequest(const RemoteUrl& url,
                                             const ObjectVersion& version,
                                             uint64_t offset, uint64_t size) {
  Request q;
  q.url = &url;
  q.ranged = true;
  q.offset = offset;
  q.size = size;
  q.if_match = version.etag;
  // Without a strong ETag, the date guards the version: a server answers
  // 412 for an object modified since, and the answer's date is compared.
  if (ByDate(version)) q.if_unmodified_since = version.last_modified;
  q.max_bytes = size;
  return q;
}

absl::Status HttpClient::CheckRange(const Request& q,
                                    const ObjectVersion& version,
                                    const absl::StatusOr<Reply>& got,
                                    const std::vector<uint8_t>& body) {
  FUSEDNORM_RETURN_IF_ERROR(got.status());
  const Reply& r = *got;
  if (r.status / 100 != 2) return StatusError(q, r.status);
  if (r.status == 206 && r.unknown_total) {
    return InvalidArgumentCat(
        q.What(),
        ": its Content-Range gives no size (bytes FIRST-LAST/*): "
        "the object cannot be checked for changes during the run");
  }
  if (r.status != 206 || !r.has_range) {
    return InvalidArgumentCat(q.What(), ": HTTP ", r.status,
                              " without a Content-Range: the server does "
                              "not serve byte ranges");
  }
  if (!SameVersion(version, {r.total, r.etag, r.last_modified})) {
    return absl::DataLossError(absl::StrCat(
        q.What(), ": the object changed on the server during the run (",
        version.size, " bytes, ETag ", Shown(version.etag), ", modified ",
        Shown(version.last_modified), " at open; now ", r.total,
        " bytes, ETag ", Shown(r.etag), ", modified ", Shown(r.last_modified),
        ")"));
  }
  if (r.first != q.offset || r.last != q.offset + q.size - 1) {
    return InvalidArgumentCat(q.What(), ": the server sent bytes ", r.first,
                              "-", r.last, " instead");
  }
  if (body.size() != q.size) {
    return InvalidArgumentCat(
        q.What(), ": the body has ", body.size(),
        " bytes where its Content-Range says ", q.size,
        r.encoding.empty()
            ? ""
            : absl::StrCat(" (its Content-Encoding is ", r.encoding,
                           ": the bytes are read only as stored)"));
  }
  return absl::OkStatus();
}

absl::Status HttpClient::GetRange(const RemoteUrl& url,
                                  const ObjectVersion& version, uint64_t offset,
                                  uint64_t size, std::vector<uint8_t>* body) {
  if (size == 0) {
    body->clear();
    return absl::OkStatus();
  }
  const Request q = RangeRequest(url, version, offset, size);
  return CheckRange(q, version, Perform(q, body), *body);
}

void HttpClient::StartRange(const RemoteUrl& url, const ObjectVersion& version,
                            uint64_t offset, uint64_t size,
                            std::vector<uint8_t>* body) {
  get_ = std::make_unique<Get>();
  get_->q = RangeRequest(url, version, offset, size);
  get_->version = &version;
  get_->body = body;
}

void* HttpClient::BeginAttempt(absl::Status* status) {
  Get& g = *get_;
  if (g.q.size == 0) {
    g.body->clear();
    *status = absl::OkStatus();
    return nullptr;
  }
  if (cancel_ != nullptr && cancel_->load(std::memory_order_relaxed)) {
    *status = absl::CancelledError(absl::StrCat(g.q.What(), ": cancelled"));
    return nullptr;
  }
  *status = Begin(g.q, g.body, &g.t);
  return status->ok() ? curl_ : nullptr;
}

bool HttpClient::EndAttempt(int result, absl::Status* status, double* wait) {
  Get& g = *get_;
  absl::StatusOr<Reply> r = End(g.q, &g.t, result);
  if (!Settle(g.q, g.attempt++, &g.last, &r, wait)) return false;
  *status = CheckRange(g.q, *g.version, r, *g.body);
  return true;
}

absl::StatusOr<ObjectVersion> HttpClient::GetWhole(const RemoteUrl& url,
                                                   uint64_t max_bytes,
                                                   std::vector<uint8_t>* body,
                                                   bool* oversized) {
  Request q;
  q.url = &url;
  q.max_bytes = max_bytes;
  q.oversized = oversized;
  FUSEDNORM_ASSIGN_OR_RETURN(const Reply r, Perform(q, body));
  if (r.status / 100 != 2) return StatusError(q, r.status);
  if (r.status != 200) {
    return InvalidArgumentCat(q.What(), ": HTTP ", r.status,
                              " where 200 was expected");
  }
  return ObjectVersion{body->size(), r.etag, r.last_modified};
}

}  // namespace fusednorm
