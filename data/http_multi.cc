// HttpMulti (http_multi.h): slots of clients on one multi handle; a slot's
// easy handle is in the multi handle while an attempt of its GET runs.
#include "data/http_multi.h"

#include <curl/curl.h>

#include <algorithm>
#include <cmath>
#include <thread>

#include "absl/strings/str_cat.h"

namespace fusednorm {

HttpMulti::HttpMulti(const RemoteSettings& settings, HttpCounters* counters)
    : settings_(settings), counters_(counters) {
  InitLibcurl();
  multi_ = curl_multi_init();
  auto* m = static_cast<CURLM*>(multi_);
  if (m == nullptr) return;
  // A connection per GET, as a client of its own has (no HTTP/2 streams
  // sharing one), all of them kept for the GETs that follow: libcurl's
  // default keeps 4 per easy handle in the multi handle, which is none
  // between GETs here.
  curl_multi_setopt(m, CURLMOPT_PIPELINING,
                    static_cast<long>(CURLPIPE_NOTHING));
  curl_multi_setopt(m, CURLMOPT_MAXCONNECTS,
                    static_cast<long>(std::max(1, settings.requests)));
}

HttpMulti::~HttpMulti() {
  Abandon();
  if (multi_ != nullptr) curl_multi_cleanup(static_cast<CURLM*>(multi_));
}

void HttpMulti::Abandon() {
  for (size_t i = 0; i < slots_.size(); ++i) {
    Slot& s = slots_[i];
    if (!s.busy) continue;
    if (!s.waiting) {
      curl_multi_remove_handle(static_cast<CURLM*>(multi_),
                               static_cast<CURL*>(s.client->handle()));
    }
    s.busy = s.waiting = false;
    free_.push_back(i);
  }
  in_flight_ = 0;
  early_.clear();
}

void HttpMulti::set_cancel(const std::atomic<bool>* cancel) {
  cancel_ = cancel;
  for (Slot& s : slots_) s.client->set_cancel(cancel);
}

void HttpMulti::Start(const RemoteUrl& url, const ObjectVersion& version,
                      uint64_t offset, uint64_t size,
                      std::vector<uint8_t>* body, uint64_t tag) {
  if (multi_ == nullptr) {
    early_.push_back(
        {tag, absl::ResourceExhaustedError("curl_multi_init failed")});
    return;
  }
  if (free_.empty()) {
    slots_.emplace_back();
    slots_.back().client = std::make_unique<HttpClient>(settings_, counters_);
    slots_.back().client->set_cancel(cancel_);
    free_.push_back(slots_.size() - 1);
  }
  const size_t i = free_.back();
  free_.pop_back();
  Slot& s = slots_[i];
  s.tag = tag;
  s.busy = true;
  s.waiting = false;
  ++in_flight_;
  s.client->StartRange(url, version, offset, size, body);
  Attempt(i, &early_);
}

void HttpMulti::Attempt(size_t i, Ended* ended) {
  Slot& s = slots_[i];
  absl::Status status;
  void* easy = s.client->BeginAttempt(&status);
  if (easy == nullptr) {
    Finish(i, status, ended);
    return;
  }
  s.waiting = false;
  curl_easy_setopt(static_cast<CURL*>(easy), CURLOPT_PRIVATE,
                   reinterpret_cast<void*>(i));  // for Collect
  const CURLMcode added =
      curl_multi_add_handle(static_cast<CURLM*>(multi_), easy);
  if (added != CURLM_OK) {
    Finish(i,
           absl::ResourceExhaustedError(absl::StrCat(
               "curl_multi_add_handle failed: ", curl_multi_strerror(added))),
           ended);
  }
}

void HttpMulti::Finish(size_t i, const absl::Status& status, Ended* ended) {
  Slot& s = slots_[i];
  s.busy = false;
  s.waiting = false;
  --in_flight_;
  free_.push_back(i);
  ended->push_back({s.tag, status});
}

void HttpMulti::StartDue(Ended* ended) {
  const Clock::time_point now = Clock::now();
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].busy && slots_[i].waiting && slots_[i].due <= now)
      Attempt(i, ended);
  }
}

void HttpMulti::Collect(Ended* ended) {
  auto* m = static_cast<CURLM*>(multi_);
  int left = 0;
  while (CURLMsg* msg = curl_multi_info_read(m, &left)) {
    if (msg->msg != CURLMSG_DONE) continue;
    CURL* easy = msg->easy_handle;
    const CURLcode result = msg->data.result;
    curl_multi_remove_handle(m, easy);
    char* slot = nullptr;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, &slot);
    const auto i = reinterpret_cast<size_t>(slot);
    Slot& s = slots_[i];
    absl::Status status;
    double wait = 0;
    if (s.client->EndAttempt(result, &status, &wait)) {
      Finish(i, status, ended);
    } else {
      s.waiting = true;
      s.due = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(wait));
    }
  }
}

int HttpMulti::UntilDue(int cap) const {
  const Clock::time_point now = Clock::now();
  int ms = cap;
  for (const Slot& s : slots_) {
    if (!s.busy || !s.waiting) continue;
    const double left =
        std::chrono::duration<double, std::milli>(s.due - now).count();
    ms = std::min(ms, std::max(0, static_cast<int>(std::ceil(left))));
  }
  return ms;
}

void HttpMulti::Run(int timeout_ms, Ended* ended) {
  ended->insert(ended->end(), early_.begin(), early_.end());
  early_.clear();
  auto* m = static_cast<CURLM*>(multi_);
  if (m == nullptr) return;
  int running = 0;
  curl_multi_perform(m, &running);
  Collect(ended);
  StartDue(ended);
  if (!ended->empty()) return;
  if (curl_multi_poll(m, nullptr, 0, UntilDue(timeout_ms), nullptr) !=
      CURLM_OK) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // no spin
  }
  curl_multi_perform(m, &running);
  Collect(ended);
  StartDue(ended);
}

void HttpMulti::Wake() {
  if (multi_ != nullptr) curl_multi_wakeup(static_cast<CURLM*>(multi_));
}

}  // namespace fusednorm
