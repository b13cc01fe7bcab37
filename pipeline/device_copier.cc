// DeviceCopier (device_copier.h): the copy thread, the queue of copies in
// flight, and batches handed out once their events have completed.
#include "pipeline/device_copier.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "cuda/context.h"

namespace fusednorm {
namespace {

// A queued copy. `batch` keeps the slot it reads until the event completes.
struct Copy {
  BatchRef batch;
  DeviceBuffer buffer;
  std::unique_ptr<CudaEvent> event;
};

}  // namespace

struct DeviceCopier::Impl {
  std::shared_ptr<EpochLoader> loader;
  DeviceCopyOptions options;
  std::shared_ptr<const CudaContext> context;
  std::unique_ptr<CudaStream> stream;

  std::mutex mu;
  std::condition_variable cv;
  std::shared_ptr<DeviceBufferPool> pool;  // sized by the first batch
  std::deque<Copy> queued;                 // in order
  std::vector<std::unique_ptr<CudaEvent>> free_events;
  bool stop = false;
  bool finished = false;  // the copy thread is done; `end` says why
  absl::Status end;       // OK: the epoch's end
  absl::Status failed;    // an error Next() returned: returned again
  Stats stats;
  std::thread thread;

  // Under mu.
  std::shared_ptr<DeviceBufferPool> PoolFor(const Batch& b, absl::Status* st) {
    // Restart() may bring larger batches: a new pool (the old buffers go
    // with their last leases).
    if (pool == nullptr || pool->buffer_bytes() < b.slot.bytes()) {
      absl::StatusOr<std::shared_ptr<DeviceBufferPool>> p =
          DeviceBufferPool::Create(context, b.slot.bytes());
      if (!p.ok()) {
        *st = p.status();
        return nullptr;
      }
      pool = *std::move(p);
    }
    return pool;
  }

  absl::StatusOr<std::unique_ptr<CudaEvent>> TakeEvent() {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!free_events.empty()) {
        std::unique_ptr<CudaEvent> e = std::move(free_events.back());
        free_events.pop_back();
        return e;
      }
    }
    return CudaEvent::Create(context);
  }

  // Queues the copy of `batch` and the event after it.
  absl::Status Issue(BatchRef batch) {
    absl::Status st;
    std::shared_ptr<DeviceBufferPool> p;
    {
      std::lock_guard<std::mutex> lock(mu);
      p = PoolFor(*batch, &st);
    }
    FUSEDNORM_RETURN_IF_ERROR(st);
    Copy c;
    c.batch = std::move(batch);
    FUSEDNORM_ASSIGN_OR_RETURN(c.buffer, p->Acquire());
    // A buffer handed back with ReleaseAfter(stream): the copy into it
    // waits, on the device, for the consumer's work on that stream.
    FUSEDNORM_RETURN_IF_ERROR(c.buffer.OrderWritesAfterRelease(*stream));
    FUSEDNORM_ASSIGN_OR_RETURN(c.event, TakeEvent());
    const size_t bytes = c.batch->count * c.batch->sample_bytes;
    FUSEDNORM_RETURN_IF_ERROR(
        stream->CopyToDevice(c.buffer.ptr(), c.batch->data, bytes));
    if (absl::Status r = c.event->Record(*stream); !r.ok()) {
      // The copy may be running: the slot stays held until it has finished.
      stream->Synchronize().IgnoreError();
      return r;
    }
    std::lock_guard<std::mutex> lock(mu);
    queued.push_back(std::move(c));
    ++stats.copies;
    stats.bytes += bytes;
    stats.buffers = p->allocated();
    cv.notify_all();
    return absl::OkStatus();
  }

  // The copy thread: batches from the loader, copies queued, `ahead` at most.
  void Loop() {
    absl::Status why;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return stop || queued.size() < options.ahead; });
        if (stop) break;
      }
      absl::StatusOr<BatchRef> b = loader->Next();
      if (!b.ok() || *b == nullptr) {
        why = b.status();
        break;
      }
      why = Issue(*std::move(b));
      if (!why.ok()) break;
    }
    std::lock_guard<std::mutex> lock(mu);
    finished = true;
    end = stop && why.ok() ? absl::CancelledError("the epoch was cancelled")
                           : why;
    cv.notify_all();
  }

  void CancelAll() {
    std::shared_ptr<EpochLoader> current;
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
      cv.notify_all();
      current = loader;  // Restart() may replace it meanwhile
    }
    current->Cancel();
  }

  // Cancels the epoch and waits for the copy thread and every queued copy.
  void StopAndDrain() {
    CancelAll();
    if (thread.joinable()) thread.join();
    // Every queued copy completes before its batch (and slot) goes.
    stream->Synchronize().IgnoreError();
    std::deque<Copy> drained;
    std::lock_guard<std::mutex> lock(mu);
    drained.swap(queued);
  }

  absl::Status StartThread() {
    try {
      thread = std::thread([this] { Loop(); });
    } catch (const std::system_error& e) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "device copies: cannot start the copy thread: ", e.what()));
    }
    return absl::OkStatus();
  }
};

absl::StatusOr<std::unique_ptr<DeviceCopier>> DeviceCopier::Start(
    std::shared_ptr<EpochLoader> loader, const DeviceCopyOptions& options) {
  if (loader == nullptr) return InvalidArgumentCat("DeviceCopier: no loader");
  if (options.ahead < 1 || options.ahead > kMaxSlots) {
    return InvalidArgumentCat("device copies ahead = ", options.ahead,
                              " must be in 1..", kMaxSlots);
  }
  auto m = std::make_unique<Impl>();
  m->loader = std::move(loader);
  m->options = options;
  absl::StatusOr<std::shared_ptr<const CudaContext>> c =
      CudaContext::Retain(options.cuda_device);
  if (!c.ok()) return PrefixStatus(c.status(), "device copies: ");
  m->context = *std::move(c);
  FUSEDNORM_ASSIGN_OR_RETURN(m->stream, CudaStream::Create(m->context));
  Impl* impl = m.get();
  std::unique_ptr<DeviceCopier> copier(new DeviceCopier(std::move(m)));
  FUSEDNORM_RETURN_IF_ERROR(impl->StartThread());
  return copier;
}

absl::Status DeviceCopier::Restart(std::shared_ptr<EpochLoader> loader) {
  if (loader == nullptr) return InvalidArgumentCat("DeviceCopier: no loader");
  Impl& m = *impl_;
  m.StopAndDrain();
  {
    std::lock_guard<std::mutex> lock(m.mu);
    if (!m.failed.ok()) return m.failed;
    m.loader = std::move(loader);
    m.stop = m.finished = false;
    m.end = absl::OkStatus();
    const size_t buffers = m.stats.buffers;
    m.stats = Stats{};
    m.stats.buffers = buffers;
  }
  absl::Status started = m.StartThread();
  if (!started.ok()) {  // Next() returns the error rather than wait
    std::lock_guard<std::mutex> lock(m.mu);
    m.finished = true;
    m.end = started;
  }
  return started;
}

DeviceCopier::DeviceCopier(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}

DeviceCopier::~DeviceCopier() {
  Impl& m = *impl_;
  m.StopAndDrain();
  m.free_events.clear();
  m.stream.reset();
}

void DeviceCopier::Cancel() { impl_->CancelAll(); }

bool DeviceCopier::WaitReady(absl::Duration timeout) {
  Impl& m = *impl_;
  std::unique_lock<std::mutex> lock(m.mu);
  return m.cv.wait_for(lock, absl::ToChronoNanoseconds(timeout), [&] {
    return m.stop || m.finished || !m.queued.empty() || !m.failed.ok();
  });
}

absl::StatusOr<DeviceBatch> DeviceCopier::Next() {
  Impl& m = *impl_;
  Copy c;
  {
    std::unique_lock<std::mutex> lock(m.mu);
    m.cv.wait(lock, [&] {
      return m.stop || m.finished || !m.queued.empty() || !m.failed.ok();
    });
    if (!m.failed.ok()) return m.failed;
    if (m.stop) return absl::CancelledError("the epoch was cancelled");
    if (m.queued.empty()) {
      if (!m.end.ok()) return m.end;
      return DeviceBatch{};
    }
    c = std::move(m.queued.front());
    m.queued.pop_front();
    m.cv.notify_all();  // room for the next copy
  }
  const auto queued = std::chrono::steady_clock::now();
  if (absl::Status st = c.event->Synchronize(); !st.ok()) {
    m.stream->Synchronize().IgnoreError();  // nothing may still read the slot
    std::lock_guard<std::mutex> lock(m.mu);
    m.failed = st;
    m.cv.notify_all();
    return st;
  }
  const auto done = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(m.mu);
  m.free_events.push_back(std::move(c.event));
  m.stats.copy_wait_seconds +=
      std::chrono::duration<double>(done - queued).count();
  return DeviceBatch{std::move(c.batch), std::move(c.buffer)};
}

std::string DeviceCopier::device_name() const {
  return impl_->context->device_name();
}

DeviceCopier::Stats DeviceCopier::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->stats;
}

}  // namespace fusednorm
