// EpochLoader (epoch_loader.h): the epoch's order, the worker loop with
// backpressure on the slots, and batches handed out in order.
#include "pipeline/epoch_loader.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/one_line.h"
#include "core/status.h"
#include "pipeline/batch_mixer.h"
#include "pipeline/chain.h"
#include "pipeline/epoch_order.h"
#include "pipeline/runner.h"
#include "pipeline/transfer_station.h"

namespace fusednorm {
namespace {

// A label the soft targets can hold: InvalidArgument naming the sample.
absl::Status CheckLabel(int64_t label, int64_t classes) {
  if (label >= 0 && label < classes) return absl::OkStatus();
  if (label < 0) {
    return InvalidArgumentCat("it has no label (label ", label,
                              "), which soft targets (num_classes = ", classes,
                              ") need");
  }
  return InvalidArgumentCat("label ", label,
                            " is not below num_classes = ", classes);
}

}  // namespace

absl::Span<const Named<ErrorPolicy>> ErrorPolicyNames() {
  static constexpr Named<ErrorPolicy> kNames[] = {{ErrorPolicy::kFail, "fail"},
                                                  {ErrorPolicy::kSkip, "skip"}};
  return kNames;
}

absl::Status LoaderSettings::Validate(size_t sample_bytes) const {
  if (batch_size < 1)
    return InvalidArgumentCat("batch_size = ", batch_size, " must be >= 1");
  if (threads < 0 || threads > kMaxThreads) {
    return InvalidArgumentCat("threads = ", threads, " must be in 0..",
                              kMaxThreads, " (0: all cores)");
  }
  if (slots < 1 || slots > kMaxSlots)
    return InvalidArgumentCat("slots = ", slots, " must be in 1..", kMaxSlots);
  if (cuda_device < 0 || cuda_device > kMaxCudaDevice) {
    return InvalidArgumentCat("cuda_device = ", cuda_device, " must be in 0..",
                              kMaxCudaDevice);
  }
  if (world < 1 || rank < 0 || rank >= world) {
    return InvalidArgumentCat("shard rank = ", rank, ", world size = ", world,
                              ": need 0 <= rank < world size");
  }
  FUSEDNORM_RETURN_IF_ERROR(CheckRepeatCount(repeats));
  if (sample_bytes > 0 && batch_size > kMaxBatchBytes / sample_bytes) {
    return InvalidArgumentCat("batch_size = ", batch_size, " samples of ",
                              sample_bytes, " bytes exceed the ",
                              kMaxBatchBytes, "-byte limit of a batch");
  }
  return absl::OkStatus();
}

size_t LoaderSettings::epoch_samples(size_t dataset_size) const {
  return samples == 0 ? dataset_size : std::min(samples, dataset_size);
}

size_t LoaderSettings::global_batches(size_t samples) const {
  return (samples + batch_size - 1) / batch_size;
}

size_t LoaderSettings::local_batches(size_t samples) const {
  const size_t g = global_batches(samples);
  return drop_last ? g / world : (g + world - 1) / world;
}

std::vector<uint64_t> LoaderSettings::RankBatches(size_t samples) const {
  std::vector<uint64_t> mine;
  for (size_t k = 0; k < local_batches(samples); ++k)
    mine.push_back(static_cast<uint64_t>(rank) + k * world);
  return mine;
}

size_t LoaderSettings::BatchSamples(uint64_t b, size_t samples) const {
  const size_t g = global_batches(samples);
  if (b + 1 < g || b >= g) return batch_size;  // full, or padding
  return samples - b * batch_size;             // the last, maybe short
}

size_t LoaderSettings::local_samples(size_t samples) const {
  size_t n = 0;
  for (uint64_t b : RankBatches(samples)) n += BatchSamples(b, samples);
  return n;
}

struct EpochLoader::Impl {
  pid_t process = getpid();  // the process whose threads are the workers
  const Dataset* dataset = nullptr;
  const Chain* chain = nullptr;
  LoaderSettings s;
  uint32_t epoch = 0;
  std::unique_ptr<EpochOrder> order;  // this rank's batches and samples
  size_t total_tasks = 0;
  std::shared_ptr<TransferStation> station;
  bool using_station = false;  // between BeginUse and EndUse (under mu)

  std::mutex mu;
  std::condition_variable work_cv, done_cv;
  size_t next_task = 0;   // next sample to hand to a worker
  size_t handed_out = 0;  // local batches Next() took from the ring
  size_t delivered = 0;   // of those, the ones it returned (not an error)
  // Per ring position j % slots: the batch being filled, its samples
  // finished, whether its batch work is done (the batch is ready), and the
  // position and status of its first failed sample.
  std::vector<std::unique_ptr<Batch>> filling;
  std::vector<size_t> done;
  std::vector<bool> complete;
  std::vector<size_t> first_error;
  std::vector<absl::Status> first_status;
  std::vector<size_t> opened;  // per ring position: the local batch it holds
  // Per ring position: the batch transform mixing its samples as they land,
  // and whether a thread has taken the batch's finishing work.
  std::vector<BatchMixer> mixers;
  std::vector<bool> finishing;
  absl::Status fatal;  // a batch that could not get a slot or be finished
  bool stop = false;
  size_t max_in_flight = 0;
  StageCounters counters;
  // Bounds what the workers' large samples hold at once; cancelled by a
  // stop, so that no worker waits for it then.
  MemoryBudget budget;
  std::vector<std::thread> workers;

  size_t samples = 0;  // of the epoch, over all ranks
  // The dataset's read-ahead (remote shards), fed this rank's samples in
  // the order the workers take them; ahead_task is its next task, used
  // only by its calls. Last, so that it stops first.
  // With links.into_next it goes on into the next epoch's order (made by
  // its first call past this epoch's tasks).
  ReadAheadLinks links;
  size_t ahead_task = 0;
  std::unique_ptr<EpochOrder> next_order;
  std::unique_ptr<ReadAheadHandle> ahead;

  size_t BatchCount(size_t j) const { return order->BatchSamples(j); }
  // Every batch but the last is full.
  size_t FirstTask(size_t j) const { return j * s.batch_size; }
  size_t BatchOfTask(size_t t) const { return t / s.batch_size; }
  // The batch position of task t: with a batch transform a batch's samples
  // are taken last first (batch_mixer.h says why).
  size_t PosOfTask(size_t t) const { return PosOfTask(*order, t); }
  size_t PosOfTask(const EpochOrder& o, size_t t) const {
    const size_t j = BatchOfTask(t), k = t - FirstTask(j);
    return chain->batch_op != nullptr ? o.BatchSamples(j) - 1 - k : k;
  }

  // The read-ahead's next sample (its calls only): this epoch's tasks in
  // the order workers take them, then with links.into_next the next
  // epoch's first LinkedTasks().
  bool NextAhead(uint64_t* index) {
    if (ahead_task < total_tasks) {
      const size_t t = ahead_task++;
      *index = order->At(BatchOfTask(t), PosOfTask(t)).index;
      return true;
    }
    if (!links.into_next || epoch == UINT32_MAX) return false;
    try {
      if (next_order == nullptr) {
        next_order = std::make_unique<EpochOrder>(s, epoch + 1, samples, 0);
      }
    } catch (const std::bad_alloc&) {
      return false;  // the next epoch's readers fetch its samples
    }
    const size_t t = ahead_task - total_tasks;
    if (t >= ReadAheadLinks::LinkedTasks(s.batch_size, next_order->samples()))
      return false;
    ++ahead_task;
    *index = next_order->At(BatchOfTask(t), PosOfTask(*next_order, t)).index;
    return true;
  }

  // The epoch's order and this rank's batches after the first `start` of
  // the epoch's.
  absl::Status Plan(uint64_t start) {
    samples = s.epoch_samples(dataset->size());
    FUSEDNORM_RETURN_IF_ERROR(EpochOrder::CheckStart(s, samples, start));
    order = std::make_unique<EpochOrder>(s, epoch, samples, start);
    total_tasks = order->samples();
    return absl::OkStatus();
  }

  // Runs one sample into position `pos` of `slot` with the worker's
  // buffers; returns its label. Running out of memory fails the sample.
  absl::StatusOr<int64_t> Process(EpochOrder::Sample sample, const Slot& slot,
                                  size_t pos, Workspace* ws) {
    const uint64_t index = sample.index;
    SampleStream stream(s.seed, epoch, sample.stream);
    try {
      absl::StatusOr<int64_t> label = RunSample(
          *chain, *dataset, index, stream,
          {s.crop_decode, s.decode_scale, &budget},
          {absl::MakeSpan(slot.data(), slot.bytes()), pos}, &counters, ws);
      if (label.ok() && chain->num_classes > 0) {
        const absl::Status fits = CheckLabel(*label, chain->num_classes);
        if (!fits.ok()) {
          return PrefixStatus(fits, absl::StrCat(ws->raw.what, ": "));
        }
      }
      return label;
    } catch (const std::bad_alloc&) {
      // The read names its sample; a read that failed early left another
      // sample's name, unless that was this one in an earlier epoch.
      const bool named = ws->raw.index == index && !ws->raw.what.empty();
      return absl::ResourceExhaustedError(
          absl::StrCat(named ? ws->raw.what : absl::StrCat("sample ", index),
                       ": out of memory"));
    }
  }

  // Opens ring position `r` for local batch j with a slot of its own (under
  // mu). Tasks start in order, so the batch's first task does it.
  absl::Status OpenBatch(size_t j, size_t r) {
    FUSEDNORM_ASSIGN_OR_RETURN(Slot slot, station->Acquire());
    auto b = std::make_unique<Batch>();
    b->global_index = order->BatchNumber(j);
    b->padding = order->Padding(j);
    b->data = slot.data();
    b->slot = std::move(slot);
    b->sample_bytes = chain->sample_bytes;
    b->count = BatchCount(j);
    b->sample_indices.assign(b->count, 0);
    b->labels.assign(b->count, -1);
    b->valid.assign(b->count, false);
    b->errors.assign(b->count, "");
    b->num_classes = chain->num_classes;
    BatchDecision d;
    if (chain->batch_op != nullptr) {
      SampleStream stream = BatchStream(s.seed, epoch, b->global_index);
      d = chain->batch_op->Decide(chain->size, stream);
    }
    try {
      mixers[r].Open(d, chain->batch_shape(), chain->mix_kernel, b->slot.data(),
                     b->count);
    } catch (const std::bad_alloc&) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "cannot allocate the batch transform's copy of a sample for batch ",
          b->global_index, " (", chain->sample_bytes, " bytes)"));
    }
    filling[r] = std::move(b);
    done[r] = 0;
    complete[r] = false;
    finishing[r] = false;
    first_error[r] = SIZE_MAX;
    first_status[r] = absl::OkStatus();
    opened[r] = j;
    max_in_flight = std::max(max_in_flight, j + 1 - handed_out);
    return absl::OkStatus();
  }

  // Records sample `pos` of the batch at ring position `r` (under mu).
  void Record(size_t r, size_t pos, uint64_t index,
              const absl::StatusOr<int64_t>& label) {
    Batch& b = *filling[r];
    b.sample_indices[pos] = index;
    b.valid[pos] = label.ok();
    if (label.ok()) {
      b.labels[pos] = *label;
    } else {
      ++b.skipped;
      b.errors[pos] = OneLine(label.status().message());
      if (pos < first_error[r]) {
        first_error[r] = pos;
        first_status[r] = label.status();
      }
    }
    ++done[r];
    mixers[r].Landed(pos, label.ok());
  }

  // Mixes what the batch at ring position `r` can mix now, unlocking `lock`
  // (on mu) around each sample's work.
  void MixLanded(size_t r, std::unique_lock<std::mutex>* lock) {
    BatchMixer& mixer = mixers[r];
    for (size_t pos; !stop && mixer.Claim(&pos);) {
      lock->unlock();
      StageClock clock;
      mixer.Mix(pos);
      clock.Add(&counters.batch);
      lock->lock();
      mixer.Done(pos);
    }
  }

  // Whether this thread takes the finishing work of the batch at ring
  // position `r`: all its samples are in and mixed, and no thread took it
  // yet (under mu).
  bool ClaimFinish(size_t r) {
    if (finishing[r] || done[r] != filling[r]->count || !mixers[r].finished()) {
      return false;
    }
    finishing[r] = true;
    return true;
  }

  // The soft targets of a batch whose samples are all in and mixed (outside
  // mu: no other thread touches the batch until it is marked complete).
  // A failed allocation is ResourceExhausted.
  absl::Status FinishBatch(Batch* b, const BatchDecision& d) {
    try {
      if (chain->num_classes > 0) {
        b->targets.resize(b->count * static_cast<size_t>(chain->num_classes));
        MakeTargets(d, b->labels, chain->num_classes, chain->label_smoothing,
                    b->targets.data());
      }
    } catch (const std::bad_alloc&) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "cannot allocate the soft targets of batch ", b->global_index, " (",
          b->count, " samples, num_classes = ", chain->num_classes, ")"));
    }
    return absl::OkStatus();
  }

  // The epoch no longer takes slots (once: at its end or destruction).
  void EndUseLocked() {
    if (using_station) station->EndUse(s.slots + 1);
    using_station = false;
  }

  // Stops every worker and wakes every waiter (under mu).
  void StopLocked() {
    stop = true;
    budget.Cancel();
    work_cv.notify_all();
    done_cv.notify_all();
  }

  // `read_ahead`: the read-ahead's token, taken before the workers start
  // (the destructor drops the read-ahead before it joins them).
  void Work(const void* read_ahead) {
    SetThreadReadAhead(read_ahead);
    Workspace ws;  // reused for every sample this worker runs
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      // Backpressure: a sample starts only when its batch is among the
      // `slots` after the last one handed out.
      work_cv.wait(lock, [&] {
        return stop || next_task >= total_tasks ||
               BatchOfTask(next_task) < handed_out + s.slots;
      });
      if (stop || next_task >= total_tasks) return;
      const size_t t = next_task++;
      const size_t j = BatchOfTask(t), pos = PosOfTask(t), r = j % s.slots;
      if (t == FirstTask(j)) {
        if (absl::Status st = OpenBatch(j, r); !st.ok()) {
          fatal = st;
          StopLocked();
          return;
        }
      }
      const EpochOrder::Sample sample = order->At(j, pos);
      const Slot& slot = filling[r]->slot;
      lock.unlock();
      const absl::StatusOr<int64_t> label = Process(sample, slot, pos, &ws);
      if (!label.ok()) {
        std::memset(slot.data() + pos * chain->sample_bytes, 0,
                    chain->sample_bytes);
      }
      mixers[r].SaveIfLast(pos);  // the worker's own sample: no lock needed
      lock.lock();
      Record(r, pos, sample.index, label);
      MixLanded(r, &lock);
      if (!ClaimFinish(r)) continue;
      Batch* batch = filling[r].get();
      if (chain->num_classes > 0) {
        const BatchDecision d = mixers[r].decision();
        lock.unlock();
        StageClock clock;
        const absl::Status finished = FinishBatch(batch, d);
        clock.Add(&counters.batch);
        lock.lock();
        if (!finished.ok()) {
          fatal = finished;
          StopLocked();
          return;
        }
      }
      complete[r] = true;
      done_cv.notify_all();
    }
  }

  // Whether Next() has its answer (under mu).
  bool Ready() const {
    const size_t j = handed_out;
    if (stop || j >= order->batches()) return true;
    const size_t r = j % s.slots;
    return opened[r] == j && complete[r];
  }

  // Starts the workers; ResourceExhausted naming `threads` when the system
  // refuses one (those started are stopped again by the destructor).
  absl::Status StartWorkers() {
    // The previous epoch's loader read the first tasks ahead.
    if (links.from_previous) {
      ahead_task = ReadAheadLinks::LinkedTasks(s.batch_size, total_tasks);
    }
    ahead = dataset->ReadAhead(
        [this](uint64_t* index) { return NextAhead(index); });
    const void* read_ahead = ahead != nullptr ? ahead->token() : nullptr;
    for (int i = 0; i < s.threads; ++i) {
      try {
        workers.emplace_back([this, read_ahead] { Work(read_ahead); });
      } catch (const std::system_error& e) {
        return absl::ResourceExhaustedError(
            absl::StrCat("threads = ", s.threads, ": cannot start worker ",
                         i + 1, ": ", e.what()));
      }
    }
    return absl::OkStatus();
  }
};

absl::StatusOr<std::unique_ptr<EpochLoader>> EpochLoader::Start(
    const Dataset& dataset, const Chain& chain, const LoaderSettings& settings,
    uint32_t epoch, std::shared_ptr<TransferStation> station, uint64_t start,
    ReadAheadLinks links) {
  if (links.from_previous && start != 0) {
    return InvalidArgumentCat("an epoch resumed at batch ", start,
                              " has no previous epoch reading ahead into it");
  }
  auto m = std::make_unique<Impl>();
  m->dataset = &dataset;
  m->chain = &chain;
  m->s = settings;
  m->epoch = epoch;
  m->links = links;
  m->counters.ops = std::vector<std::atomic<int64_t>>(chain.ops.size());
  FUSEDNORM_RETURN_IF_ERROR(settings.Validate(chain.sample_bytes));
  FUSEDNORM_RETURN_IF_ERROR(m->Plan(start));
  const size_t batch_bytes = settings.batch_size * chain.sample_bytes;
  if (station == nullptr) {
    return absl::InvalidArgumentError("an epoch needs a transfer station");
  }
  if (station->slot_bytes() != batch_bytes) {
    return InvalidArgumentCat("the transfer station's slots hold ",
                              station->slot_bytes(), " bytes, a batch ",
                              batch_bytes);
  }
  m->station = std::move(station);
  m->station->BeginUse();
  m->using_station = true;
  m->filling.resize(settings.slots);
  m->done.assign(settings.slots, 0);
  m->complete.assign(settings.slots, false);
  m->first_error.assign(settings.slots, SIZE_MAX);
  m->first_status.assign(settings.slots, absl::OkStatus());
  m->opened.assign(settings.slots, SIZE_MAX);
  m->mixers.resize(settings.slots);
  m->finishing.assign(settings.slots, false);
  // The loader owns the workers from here on: its destructor joins them.
  std::unique_ptr<EpochLoader> loader(new EpochLoader(std::move(m)));
  FUSEDNORM_RETURN_IF_ERROR(loader->impl_->StartWorkers());
  return loader;
}

EpochLoader::EpochLoader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

EpochLoader::~EpochLoader() {
  if (Forked()) {
    impl_.release();  // NOLINT: the parent's; its threads are not here
    return;
  }
  Cancel();
  // The read-ahead first: its requests in flight are cancelled, so that a
  // worker waiting for one of its samples gets an answer at once.
  impl_->ahead.reset();
  for (std::thread& t : impl_->workers) t.join();
  // The slots and one the consumer holds stay for the next epoch.
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->EndUseLocked();
}

bool EpochLoader::Forked() const { return getpid() != impl_->process; }

void EpochLoader::Cancel() {
  if (Forked()) return;
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->StopLocked();
}

size_t EpochLoader::batches() const { return impl_->order->batches(); }

bool EpochLoader::reads_ahead() const { return impl_->ahead != nullptr; }

void EpochLoader::ReleaseSlots() {
  if (Forked()) return;
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->handed_out >= impl_->order->batches()) impl_->EndUseLocked();
}

EpochLoader::Position EpochLoader::resume_position() const {
  size_t j = 0;
  if (Forked()) {
    j = impl_->delivered;  // no thread of the parent's is here to move it
  } else {
    std::lock_guard<std::mutex> lock(impl_->mu);
    j = impl_->delivered;
  }
  return impl_->order->PositionAfter(impl_->epoch, j);
}

size_t EpochLoader::max_in_flight() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->max_in_flight;
}

EpochLoader::StageSeconds EpochLoader::stage_seconds() const {
  const StageCounters& c = impl_->counters;
  StageSeconds s;
  s.load = c.load.load() * 1e-9;
  s.fused = c.fused.load() * 1e-9;
  s.batch = c.batch.load() * 1e-9;
  s.transforms = c.transforms.load() * 1e-9;
  for (const std::atomic<int64_t>& op : c.ops) {
    s.ops.push_back(op.load() * 1e-9);
    s.transforms += s.ops.back();
  }
  return s;
}

EpochLoader::DecodedPixels EpochLoader::decoded_pixels() const {
  const StageCounters& c = impl_->counters;
  return {c.decoded_pixels.load(), c.whole_pixels.load()};
}

bool EpochLoader::WaitReady(absl::Duration timeout) {
  if (Forked()) return true;  // Next() says why at once
  Impl& m = *impl_;
  std::unique_lock<std::mutex> lock(m.mu);
  return m.done_cv.wait_for(lock, absl::ToChronoNanoseconds(timeout),
                            [&] { return m.Ready(); });
}

absl::StatusOr<BatchRef> EpochLoader::Next() {
  if (Forked()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "this epoch was started by process ", impl_->process,
        " and this is process ", getpid(),
        ", a child made by fork(): its workers are not here. Start a new "
        "epoch in the child (iter(loader) in Python)"));
  }
  Impl& m = *impl_;
  std::unique_lock<std::mutex> lock(m.mu);
  m.done_cv.wait(lock, [&] { return m.Ready(); });
  if (!m.fatal.ok()) return m.fatal;
  if (m.stop) return absl::CancelledError("the epoch was cancelled");
  const size_t j = m.handed_out;
  if (j >= m.order->batches()) return nullptr;
  const size_t r = j % m.s.slots;
  BatchRef batch = std::move(m.filling[r]);
  ++m.handed_out;
  m.work_cv.notify_all();
  if (m.s.policy == ErrorPolicy::kFail && m.first_error[r] != SIZE_MAX) {
    m.StopLocked();
    return m.first_status[r];
  }
  ++m.delivered;
  return batch;
}

}  // namespace fusednorm
