// The CUDA driver double (fake_cuda.h): the entry points cuda/driver.h
// resolves, implemented on the host, every call logged.
#include "cuda/testing/fake_cuda.h"

#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cuda/driver_types.h"

namespace {

using Result = int;
using Clock = std::chrono::steady_clock;
constexpr Result kOk = 0, kInvalidValue = 1, kOutOfMemory = 2,
                 kNotInitialized = 3, kInvalidDevice = 101,
                 kInvalidContext = 201, kInvalidHandle = 400, kNotReady = 600,
                 kAlreadyRegistered = 712, kNotRegistered = 713;

struct ErrorText {
  Result code;
  const char* name;
  const char* text;
};
// The driver's names and descriptions of the codes the double returns.
constexpr ErrorText kErrors[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {600, "CUDA_ERROR_NOT_READY", "device not ready"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
     "part or all of the requested memory range is already mapped"},
    {713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
     "pointer does not correspond to a registered memory region"},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

struct Event;
struct Stream;
// One queued operation: a copy, a read of device memory (a stand-in for a
// kernel), an event's mark, or a wait for another stream's mark.
struct Op {
  long number = 0;  // copies: the count of queued copies when queued
  uintptr_t dst = 0;
  const unsigned char* src = nullptr;
  size_t bytes = 0;
  bool read = false;                    // reads: device src into host dst
  std::vector<unsigned char> snapshot;  // the source when queued
  Clock::time_point ready;              // copies: when the device is done
  Event* event = nullptr;               // marks: the event, or null
  long generation = 0;                  // marks: the recording
  long mark = 0;                        // marks: a number of its own
  Stream* wait_stream = nullptr;        // waits: the stream and its mark
  long wait_mark = 0;
};
struct Stream {
  std::deque<Op> ops;
};
struct Event {
  unsigned flags = 0;
  Stream* stream = nullptr;
  bool done = true;  // never recorded: complete
  int queries = 0;
  long generation = 0;
  long mark = 0;  // the last recording's mark
};
struct Context {
  int device = 0;
  long retains = 0;
};

struct State {
  std::mutex mu;
  bool initialized = false;
  int event_delay = 2;
  int copy_ms = 0;  // how long a queued copy takes on the "device"
  long marks = 0;   // marks queued so far
  std::vector<Context> contexts;  // one per device, never resized
  std::deque<std::string> log;
  FILE* log_file = nullptr;
  std::map<std::string, long> calls;                      // per name
  std::map<std::string, std::map<long, Result>> fail_at;  // call number
  std::map<uintptr_t, size_t> registered, allocations;    // start -> bytes
  std::set<Stream*> streams;
  std::set<Event*> events;
  Stream legacy;  // the null stream
  FakeCudaCounts counts{};
};

// "call:n:code,..." into st->fail_at.
void ParseFailures(const char* spec, State* st) {
  std::string s = spec;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    const std::string item = s.substr(start, end - start);
    const size_t a = item.find(':'), b = item.rfind(':');
    if (a != std::string::npos && b != a) {
      st->fail_at[item.substr(0, a)][std::atol(item.c_str() + a + 1)] =
          std::atoi(item.c_str() + b + 1);
    }
    start = end + 1;
  }
}

State& S() {
  static State* st = [] {
    auto* s = new State();
    const char* devices = std::getenv("FAKE_CUDA_DEVICES");
    s->contexts.resize(devices != nullptr ? std::atoi(devices) : 1);
    for (size_t i = 0; i < s->contexts.size(); ++i)
      s->contexts[i].device = static_cast<int>(i);
    if (const char* d = std::getenv("FAKE_CUDA_EVENT_DELAY"))
      s->event_delay = std::atoi(d);
    if (const char* ms = std::getenv("FAKE_CUDA_COPY_MS"))
      s->copy_ms = std::atoi(ms);
    if (const char* f = std::getenv("FAKE_CUDA_FAIL")) ParseFailures(f, s);
    if (const char* path = std::getenv("FAKE_CUDA_LOG"))
      s->log_file = std::fopen(path, "a");
    return s;
  }();
  return *st;
}

thread_local std::vector<Context*> current;  // the context stack

void Log(const char* fmt, ...) {
  char line[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(line, sizeof(line), fmt, args);
  va_end(args);
  State& st = S();
  st.log.emplace_back(line);
  if (st.log_file != nullptr) {
    std::fprintf(st.log_file, "%s\n", line);
    std::fflush(st.log_file);
  }
}

enum Needs { kNothing, kInit, kCurrentContext };

// Counts the call; an injected failure, or what the driver would refuse
// before looking at the arguments (under mu).
Result Begin(const char* call, Needs needs) {
  State& st = S();
  const long n = ++st.calls[call];
  const auto f = st.fail_at.find(call);
  if (f != st.fail_at.end()) {
    const auto it = f->second.find(n);
    if (it != f->second.end()) return it->second;
  }
  if (needs >= kInit && !st.initialized) return kNotInitialized;
  if (needs >= kCurrentContext && current.empty()) return kInvalidContext;
  return kOk;
}

// The range of `ranges` holding [p, p + bytes), or end().
std::map<uintptr_t, size_t>::const_iterator Holding(
    const std::map<uintptr_t, size_t>& ranges, uintptr_t p, size_t bytes) {
  auto it = ranges.upper_bound(p);
  if (it == ranges.begin()) return ranges.end();
  --it;
  if (p + bytes > it->first + it->second) return ranges.end();
  return it;
}

bool Queued(const Stream& s, long mark) {
  for (const Op& op : s.ops) {
    if (op.mark == mark) return true;
  }
  return false;
}

// Runs `s`'s queued operations, up to the mark numbered `until` (all when
// 0). A wait runs the other stream up to its mark first.
void Run(Stream* s, long until) {
  State& st = S();
  while (!s->ops.empty()) {
    Op op = std::move(s->ops.front());
    s->ops.pop_front();
    if (op.wait_stream != nullptr) {
      if (Queued(*op.wait_stream, op.wait_mark))
        Run(op.wait_stream, op.wait_mark);
    } else if (op.read) {
      std::memcpy(reinterpret_cast<void*>(op.dst), op.src, op.bytes);
      Log("run read of %zu bytes", op.bytes);
    } else if (op.event == nullptr && op.src != nullptr) {
      if (std::memcmp(op.snapshot.data(), op.src, op.bytes) != 0) {
        ++st.counts.violations;
        Log("VIOLATION copy %ld: its source changed while it was queued",
            op.number);
      }
      std::memcpy(reinterpret_cast<void*>(op.dst), op.src, op.bytes);
      ++st.counts.copies_done;
      Log("run copy %ld", op.number);
    } else if (op.mark != 0) {
      if (op.event != nullptr && op.event->generation == op.generation)
        op.event->done = true;
      if (op.mark == until) return;
    }
  }
}

// When the device finishes `s`'s copies queued before the mark numbered
// `until` (all when 0).
Clock::time_point Deadline(const Stream& s, long until) {
  Clock::time_point last{};
  for (const Op& op : s.ops) {
    if (until != 0 && op.mark == until) break;
    if (op.src != nullptr && op.ready > last) last = op.ready;
  }
  return last;
}

// Waits, with S().mu unlocked, until `deadline` as the driver does: a
// blocking-sync event sleeps; otherwise the thread spins, as the primary
// context's default schedule does.
void WaitUntil(std::unique_lock<std::mutex>* lock, Clock::time_point deadline,
               bool blocking) {
  if (Clock::now() >= deadline) return;
  lock->unlock();
  if (blocking) {
    std::this_thread::sleep_until(deadline);
  } else {
    while (Clock::now() < deadline) {
    }
  }
  lock->lock();
}

Stream* StreamOf(void* handle) {
  State& st = S();
  if (handle == nullptr) return &st.legacy;
  Stream* s = static_cast<Stream*>(handle);
  return st.streams.count(s) != 0 ? s : nullptr;
}

Event* EventOf(void* handle) {
  Event* e = static_cast<Event*>(handle);
  return S().events.count(e) != 0 ? e : nullptr;
}

Context* ContextOf(void* handle) {
  for (Context& c : S().contexts) {
    if (&c == handle && c.retains > 0) return &c;
  }
  return nullptr;
}

const ErrorText* Find(Result r) {
  for (const ErrorText& e : kErrors) {
    if (e.code == r) return &e;
  }
  return nullptr;
}

// Queues (registered source) or runs (pageable source) one copy (under mu).
Result QueueCopy(uintptr_t dst, const void* src, size_t bytes, Stream* s) {
  State& st = S();
  if (Holding(st.allocations, dst, bytes) == st.allocations.end())
    return kInvalidValue;
  Op op;
  op.number = ++st.counts.copies_queued;
  op.dst = dst;
  op.src = static_cast<const unsigned char*>(src);
  op.bytes = bytes;
  op.snapshot.assign(op.src, op.src + bytes);
  op.ready = Clock::now() + std::chrono::milliseconds(st.copy_ms);
  const bool pinned = Holding(st.registered, reinterpret_cast<uintptr_t>(src),
                              bytes) != st.registered.end();
  s->ops.push_back(std::move(op));
  if (!pinned) Run(s, 0);  // staged: the source is free on return
  return kOk;
}

}  // namespace

using CUresult = fusednorm::CuResult;
using fusednorm::CuContext;
using fusednorm::CuEvent;
using fusednorm::CuStream;

extern "C" {

#define FAKE_EXPORT __attribute__((visibility("default")))

FAKE_EXPORT CUresult cuInit(unsigned flags) {
  std::lock_guard<std::mutex> lock(S().mu);
  Result r = Begin("cuInit", kNothing);
  if (r == kOk && flags != 0) r = kInvalidValue;
  if (r == kOk) S().initialized = true;
  Log("cuInit flags=%u -> %d", flags, r);
  return r;
}

FAKE_EXPORT CUresult cuGetErrorName(CUresult error, const char** out) {
  const ErrorText* e = Find(error);
  *out = e != nullptr ? e->name : nullptr;
  return e != nullptr ? kOk : kInvalidValue;
}

FAKE_EXPORT CUresult cuGetErrorString(CUresult error, const char** out) {
  const ErrorText* e = Find(error);
  *out = e != nullptr ? e->text : nullptr;
  return e != nullptr ? kOk : kInvalidValue;
}

FAKE_EXPORT CUresult cuDeviceGetCount(int* count) {
  std::lock_guard<std::mutex> lock(S().mu);
  const Result r = Begin("cuDeviceGetCount", kInit);
  if (r == kOk) *count = static_cast<int>(S().contexts.size());
  Log("cuDeviceGetCount -> %d", r);
  return r;
}

FAKE_EXPORT CUresult cuDeviceGet(int* device, int ordinal) {
  std::lock_guard<std::mutex> lock(S().mu);
  Result r = Begin("cuDeviceGet", kInit);
  if (r == kOk &&
      (ordinal < 0 || ordinal >= static_cast<int>(S().contexts.size())))
    r = kInvalidDevice;
  if (r == kOk) *device = ordinal;
  Log("cuDeviceGet ordinal=%d -> %d", ordinal, r);
  return r;
}

FAKE_EXPORT CUresult cuDeviceGetName(char* name, int len, int device) {
  std::lock_guard<std::mutex> lock(S().mu);
  Result r = Begin("cuDeviceGetName", kInit);
  if (r == kOk &&
      (device < 0 || device >= static_cast<int>(S().contexts.size())))
    r = kInvalidDevice;
  if (r == kOk) std::snprintf(name, len, "fusednorm fake device %d", device);
  return r;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(CuContext* ctx, int device) {
  std::lock_guard<std::mutex> lock(S().mu);
  State& st = S();
  Result r = Begin("cuDevicePrimaryCtxRetain", kInit);
  if (r == kOk &&
      (device < 0 || device >= static_cast<int>(st.contexts.size())))
    r = kInvalidDevice;
  if (r == kOk) {
    ++st.contexts[device].retains;
    ++st.counts.contexts;
    *ctx = reinterpret_cast<CuContext>(&st.contexts[device]);
  }
  Log("cuDevicePrimaryCtxRetain device=%d -> %d", device, r);
  return r;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  std::lock_guard<std::mutex> lock(S().mu);
  State& st = S();
  Result r = Begin("cuDevicePrimaryCtxRelease_v2", kInit);
  if (r == kOk &&
      (device < 0 || device >= static_cast<int>(st.contexts.size())))
    r = kInvalidDevice;
  if (r == kOk && st.contexts[device].retains == 0) {
    ++st.counts.violations;
    r = kInvalidContext;
  }
  if (r == kOk) {
    --st.contexts[device].retains;
    --st.counts.contexts;
  }
  Log("cuDevicePrimaryCtxRelease_v2 device=%d -> %d", device, r);
  return r;
}

FAKE_EXPORT CUresult cuCtxPushCurrent_v2(CuContext ctx) {
  std::lock_guard<std::mutex> lock(S().mu);
  Result r = Begin("cuCtxPushCurrent_v2", kInit);
  Context* c = ContextOf(ctx);
  if (r == kOk && c == nullptr) r = kInvalidContext;
  if (r == kOk) current.push_back(c);
  return r;  // not logged: every call pushes and pops
}

FAKE_EXPORT CUresult cuCtxPopCurrent_v2(CuContext* ctx) {
  std::lock_guard<std::mutex> lock(S().mu);
  Result r = Begin("cuCtxPopCurrent_v2", kInit);
  if (r == kOk && current.empty()) r = kInvalidContext;
  if (r == kOk) {
    if (ctx != nullptr) *ctx = reinterpret_cast<CuContext>(current.back());
    current.pop_back();
  }
  return r;
}

FAKE_EXPORT CUresult cuMemHostRegister_v2(void* p, size_t bytes,
                                          unsigned flags) {
  std::lock_guard<std::mutex> lock(S().mu);
  State& st = S();
  Result r = Begin("cuMemHostRegister_v2", kCurrentContext);
  const uintptr_t start = reinterpret_cast<uintptr_t>(p);
  if (r == kOk && (p == nullptr || bytes == 0)) r = kInvalidValue;
  if (r == kOk) {
    auto next = st.registered.lower_bound(start);
    const bool overlaps =
        (next != st.registered.end() && next->first < start + bytes) ||
        (next != st.registered.begin() &&
         std::prev(next)->first + std::prev(next)->second > start);
    if (overlaps) r = kAlreadyRegistered;
  }
  if (r == kOk) {
    st.registered[start] = bytes;
    ++st.counts.registered;
  }
  Log("cuMemHostRegister_v2 p=%p bytes=%zu flags=%u -> %d", p, bytes, flags, r);
  return r;
}

FAKE_EXPORT CUresult cuMemHostUnregister(void* p) {
  std::lock_guard<std::mutex> lock(S().mu);
  State& st = S();
  Result r = Begin("cuMemHostUnregister", kCurrentContext);
  const auto it = st.registered.find(reinterpret_cast<uintptr_t>(p));
  if (r == kOk && it == st.registered.end()) r = kNotRegistered;
  if (r == kOk) {
    st.registered.erase(it);
    --st.counts.registered;
  }
  Log("cuMemHostUnregister p=%p -> %d", p, r);
  return r;
}

FAKE_EXPORT CUresult cuMemAlloc_v2(unsigned long long* dptr, size_t bytes) {
  std::lock_guard<std::mutex> lock(S().mu);
  State& st = S();
  Result r = Begin("cuMemAlloc_v2", kCurrentContext);
  if (r == kOk && bytes == 0) r = kInvalidValue;
  void* p = nullptr;
  if (r == kOk && (p = std::malloc(bytes)) == nullptr) r = kOutOfMemory;
  if (r == kOk) {
    std::memset(p, 0xCD, bytes);  // never-written device bytes show
    *dptr = reinterpret_cast<uintptr_t>(p);
    st.allocations[*dptr] = bytes;
    ++st.counts.allocations;
  }
  Log("cuMemAlloc_v2 bytes=%zu dptr=0x%llx -> %d", bytes,
      r == kOk ? *dptr : 0ull, r);
  return r;
}

FAKE_EXPORT CUresult cuMemFree_v2(unsigned long long dptr) {
  std::lock_guard<std::mutex> lock(S().mu);
  State& st = S();
  Result r = Begin("cuMemFree_v2", kCurrentContext);
  const auto it = st.allocations.find(dptr);
  if (r == kOk && it == st.allocations.end()) r = kInvalidValue;
  if (r == kOk) {
    std::free(reinterpret_cast<void*>(dptr));
    st.allocations.erase(it);
    --st.counts.allocations;
  }
  Log("cuMemFree_v2 dptr=0x%llx -> %d", dptr, r);
  return r;
}

FAKE_EXPORT CUresult cuMemcpyHtoDAsync_v2(unsigned long long dst,
                                          const void* src, size_t bytes,
                                          CuStream stream) {
  std::lock_guard<std::mutex> lock(S().mu);
  Result r = Begin("cuMemcpyHtoDAsync_v2", kCurrentContext);
  Stream* s = StreamOf(stream);
  if (r == kOk && s == nullptr) r = kInvalidHandle;
  if (r == kOk && (src == nullptr || bytes == 0)) r = kInvalidValue;
  const int registered =
      r == kOk && Holding(S().registered, reinterpret_cast<uintptr_t>(src),
                          bytes) != S().registered.end();
  if (r == kOk) r = QueueCopy(dst, src, bytes, s);
  Log("cuMemcpyHtoDAsync_v2 dst=0x%llx src=%p bytes=%zu stream=%p "
      "registered=%d -> %d",
      dst, src, bytes, stream, registered, r);
  return r;
}

FAKE_EXPORT CUresult cuMemcpyDtoH_v2(void* dst, unsigned long long src,
                                     size_t bytes) {
  std::lock_guard<std::mutex> lock(S().mu);
  State& st = S();
  Result r = Begin("cuMemcpyDtoH_v2", kCurrentContext);
  if (r == kOk && Holding(st.allocations, src, bytes) == st.allocations.end())
    r = kInvalidValue;
  if (r == kOk) std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
  Log("cuMemcpyDtoH_v2 src=0x%llx bytes=%zu -> %d", src, bytes, r);
  return r;
}

FAKE_EXPORT CUresult cuStreamCreate(CuStream* stream, unsigned flags) {
  std::lock_guard<std::mutex> lock(S().mu);
  Result r = Begin("cuStreamCreate", kCurrentContext);
  if (r == kOk) {
    Stream* s = new Stream();
    S().streams.insert(s);
    ++S().counts.streams;
    *stream = reinterpret_cast<CuStream>(s);
  }
  Log("cuStreamCreate flags=%u -> %d", flags, r);
  return r;
}

FAKE_EXPORT CUresult cuStreamDestroy_v2(CuStream stream) {
  std::lock_guard<std::mutex> lock(S().mu);
  State& st = S();
  Result r = Begin("cuStreamDestroy_v2", kInit);
  Stream* s = stream == nullptr ? nullptr : StreamOf(stream);
  if (r == kOk && s == nullptr) r = kInvalidHandle;
  if (r == kOk) {
    st.counts.pending_at_destroy += static_cast<long>(s->ops.size());
    Run(s, 0);  // the device finishes the work, as the driver says
    for (Stream* other : st.streams) {
      for (Op& op : other->ops) {
        if (op.wait_stream == s) op.wait_stream = nullptr;  // it all ran
      }
    }
    for (Op& op : st.legacy.ops) {
      if (op.wait_stream == s) op.wait_stream = nullptr;
    }
    for (Event* e : st.events) {
      if (e->stream == s) e->stream = nullptr;
    }
    st.streams.erase(s);
    --st.counts.streams;
    delete s;
  }
  Log("cuStreamDestroy_v2 stream=%p -> %d", stream, r);
  return r;
}

FAKE_EXPORT CUresult cuStreamSynchronize(CuStream stream) {
  std::unique_lock<std::mutex> lock(S().mu);
  Result r = Begin("cuStreamSynchronize", kInit);
  Stream* s = StreamOf(stream);
  if (r == kOk && s == nullptr) r = kInvalidHandle;
  if (r == kOk) WaitUntil(&lock, Deadline(*s, 0), /*blocking=*/false);
  if (r == kOk && (s = StreamOf(stream)) != nullptr) Run(s, 0);
  Log("cuStreamSynchronize stream=%p -> %d", stream, r);
  return r;
}

FAKE_EXPORT CUresult cuEventCreate(CuEvent* event, unsigned flags) {
  std::lock_guard<std::mutex> lock(S().mu);
  Result r = Begin("cuEventCreate", kCurrentContext);
  if (r == kOk) {
    Event* e = new Event();
    e->flags = flags;
    S().events.insert(e);
    ++S().counts.events;
    *event = reinterpret_cast<CuEvent>(e);
  }
  Log("cuEventCreate flags=%u -> %d", flags, r);
  return r;
}

FAKE_EXPORT CUresult cuEventRecord(CuEvent event, CuStream stream) {
  std::lock_guard<std::mutex> lock(S().mu);
  Result r = Begin("cuEventRecord", kInit);
  Event* e = EventOf(event);
  Stream* s = StreamOf(stream);
  if (r == kOk && (e == nullptr || s == nullptr)) r = kInvalidHandle;
  if (r == kOk) {
    e->stream = s;
    e->done = false;
    e->queries = 0;
    Op mark;
    mark.event = e;
    mark.generation = ++e->generation;
    mark.mark = e->mark = ++S().marks;
    s->ops.push_back(std::move(mark));
  }
  Log("cuEventRecord event=%p stream=%p -> %d", event, stream, r);
  return r;
}

FAKE_EXPORT CUresult cuStreamWaitEvent(CuStream stream, CuEvent event,
                                       unsigned flags) {
  std::lock_guard<std::mutex> lock(S().mu);
  Result r = Begin("cuStreamWaitEvent", kInit);
  Stream* s = StreamOf(stream);
  Event* e = EventOf(event);
  if (r == kOk && (s == nullptr || e == nullptr)) r = kInvalidHandle;
  if (r == kOk && flags != 0) r = kInvalidValue;
  if (r == kOk && !e->done && e->stream != nullptr && e->stream != s) {
    Op wait;
    wait.wait_stream = e->stream;
    wait.wait_mark = e->mark;
    s->ops.push_back(std::move(wait));
  }
  Log("cuStreamWaitEvent stream=%p event=%p -> %d", stream, event, r);
  return r;
}

#ifndef FAKE_CUDA_WITHOUT_EVENT_QUERY
FAKE_EXPORT CUresult cuEventQuery(CuEvent event) {
  std::lock_guard<std::mutex> lock(S().mu);
  Result r = Begin("cuEventQuery", kInit);
  Event* e = EventOf(event);
  if (r == kOk && e == nullptr) r = kInvalidHandle;
  if (r == kOk && !e->done) {
    if (++e->queries > S().event_delay && e->stream != nullptr &&
        Clock::now() >= Deadline(*e->stream, e->mark)) {
      Run(e->stream, e->mark);
    } else {
      r = kNotReady;
    }
  }
  Log("cuEventQuery event=%p -> %d", event, r);
  return r;
}
#endif

FAKE_EXPORT CUresult cuEventSynchronize(CuEvent event) {
  std::unique_lock<std::mutex> lock(S().mu);
  Result r = Begin("cuEventSynchronize", kInit);
  Event* e = EventOf(event);
  if (r == kOk && e == nullptr) r = kInvalidHandle;
  if (r == kOk && !e->done && e->stream != nullptr) {
    WaitUntil(&lock, Deadline(*e->stream, e->mark), (e->flags & 1) != 0);
    e = EventOf(event);  // destroyed meanwhile: nothing left to wait for
  }
  if (r == kOk && e != nullptr && !e->done && e->stream != nullptr)
    Run(e->stream, e->mark);
  Log("cuEventSynchronize event=%p -> %d", event, r);
  return r;
}

FAKE_EXPORT CUresult cuEventDestroy_v2(CuEvent event) {
  std::lock_guard<std::mutex> lock(S().mu);
  State& st = S();
  Result r = Begin("cuEventDestroy_v2", kInit);
  Event* e = EventOf(event);
  if (r == kOk && e == nullptr) r = kInvalidHandle;
  if (r == kOk) {
    for (Stream* s : st.streams) {
      for (Op& op : s->ops) {
        if (op.event == e) op.event = nullptr;  // a mark no one waits for
      }
    }
    for (Op& op : st.legacy.ops) {
      if (op.event == e) op.event = nullptr;
    }
    st.events.erase(e);
    --st.counts.events;
    delete e;
  }
  Log("cuEventDestroy_v2 event=%p -> %d", event, r);
  return r;
}

// ---- control (fake_cuda.h) ----

FAKE_EXPORT long fake_cuda_log_size() {
  std::lock_guard<std::mutex> lock(S().mu);
  return static_cast<long>(S().log.size());
}

FAKE_EXPORT const char* fake_cuda_log_line(long i) {
  std::lock_guard<std::mutex> lock(S().mu);
  const std::deque<std::string>& log = S().log;
  return i >= 0 && i < static_cast<long>(log.size()) ? log[i].c_str() : nullptr;
}

FAKE_EXPORT void fake_cuda_clear_log() {
  std::lock_guard<std::mutex> lock(S().mu);
  S().log.clear();
}

FAKE_EXPORT void fake_cuda_fail(const char* call, int nth, int code) {
  std::lock_guard<std::mutex> lock(S().mu);
  State& st = S();
  st.fail_at[call][st.calls[call] + nth] = code;
}

FAKE_EXPORT void fake_cuda_set_event_delay(int queries) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().event_delay = queries;
}

FAKE_EXPORT int fake_cuda_queue_read(CuStream stream, unsigned long long src,
                                     size_t bytes, void* out) {
  std::lock_guard<std::mutex> lock(S().mu);
  State& st = S();
  Stream* s = StreamOf(stream);
  if (s == nullptr ||
      Holding(st.allocations, src, bytes) == st.allocations.end())
    return kInvalidValue;
  Op read;
  read.read = true;
  read.src = reinterpret_cast<const unsigned char*>(src);
  read.dst = reinterpret_cast<uintptr_t>(out);
  read.bytes = bytes;
  s->ops.push_back(std::move(read));
  return kOk;
}

FAKE_EXPORT void fake_cuda_set_copy_ms(int ms) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().copy_ms = ms;
}

FAKE_EXPORT void fake_cuda_counts(FakeCudaCounts* out) {
  std::lock_guard<std::mutex> lock(S().mu);
  *out = S().counts;
}

FAKE_EXPORT int fake_cuda_is_registered(const void* p, size_t bytes) {
  std::lock_guard<std::mutex> lock(S().mu);
  return Holding(S().registered, reinterpret_cast<uintptr_t>(p), bytes) !=
         S().registered.end();
}

}  // extern "C"
