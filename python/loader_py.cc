// The Loader's binding: the standard recipe (pipeline/recipe.h), one epoch
// per iterator, its batches returned as NumPy views of the transfer slots
// (or copies). Safe whatever Python does with them:
//
//   - a view owns its batch's slot lease (a capsule is the array's base), so
//     the slot is refilled only after the array and every view of it are
//     gone: reading an array you hold is always safe and always the batch;
//   - each iter(loader) is an independent epoch; next() on one iterator from
//     several threads is serialized;
//   - close() (also at exit) cancels every epoch; an iterator of a closed
//     Loader raises ValueError;
//   - next() waits in short slices and checks for signals between them, so
//     Ctrl-C stops it within about one sample's time;
//   - state_dict() is where the newest iterator stands (its epoch's batches
//     handed out, pipeline/resume_state.h), load_state_dict() sets where
//     the next iter() starts; older iterators no longer move it;
//   - in a child made by fork() only the forking thread runs, and a lock
//     another thread held stays locked: an iterator from before the fork
//     raises there without touching its locks, and the Loader's first use
//     in the child gives it state of its own (PyLoader::OwnInChild).
#include "python/loader_py.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "core/format_names.h"
#include "core/one_line.h"
#include "core/status.h"
#include "data/remote_url.h"
#include "ops/resize.h"
#include "pipeline/recipe.h"
#include "pipeline/recipe_settings.h"
#include "pipeline/resume_state.h"
#include "python/convert.h"
#include "python/gil.h"
#include "python/settings_py.h"
#include "python/uninitialized.h"

namespace fusednorm {
namespace {

// How long next() waits for a batch before it checks for signals.
constexpr absl::Duration kSignalCheck = absl::Milliseconds(20);
// The most skipped samples a Loader lists over its epochs.
constexpr size_t kMaxLoaderSkips = 10000;

// One epoch's workers, shared by its iterator and the Loader's close().
struct EpochState {
  pid_t process = getpid();  // whose threads the workers are
  std::mutex next_mu;        // serializes next(); never taken with the GIL held
  std::shared_ptr<EpochLoader> loader;
  // The epoch before, when its read-ahead fetched this one's first samples
  // (ReadAheadLinks): kept while this epoch may read them.
  std::shared_ptr<EpochLoader> previous;
  uint32_t epoch = 0;
  uint64_t generation = 0;   // LoaderCore::generation when it was made
  bool interrupted = false;  // a signal arrived while next() waited
  // The last batch next() returned to each thread, until that thread's
  // next call: the thread and the position before and after it (GiveBack).
  // Under the GIL.
  struct Handed {
    std::thread::id thread;
    EpochLoader::Position before, after;
  };
  std::vector<Handed> handed;

  // This thread's entry of `handed`, taken out (nullopt: none).
  std::optional<Handed> TakeHanded() {
    const auto me = std::this_thread::get_id();
    for (auto it = handed.begin(); it != handed.end(); ++it) {
      if (it->thread != me) continue;
      const Handed h = *it;
      handed.erase(it);
      return h;
    }
    return std::nullopt;
  }
  // (index, reason) of this epoch's skips. Plain C++ values: the state may
  // be freed without the GIL.
  std::vector<std::pair<uint64_t, std::string>> skipped;
  // Whether a batch of skipped samples only was warned of (once an epoch).
  bool warned_all_skipped = false;
};

// What the Loader and its iterators share.
struct LoaderCore {
  pid_t process = getpid();  // whose threads use the locks below
  RecipeOptions options;
  bool copy = false;  // owned arrays instead of slot views
  std::shared_ptr<const Dataset> data;
  std::shared_ptr<const Preprocessor> preprocessor;
  std::mutex mu;  // guards the fields below; never taken with the GIL held
  uint32_t next_epoch = 0;
  bool past_last_epoch = false;  // epoch 2^32 - 1 was started: no more
  uint64_t next_start = 0;       // batches of next_epoch already handed out
  // Where the newest iterator stands (or where load_state_dict put the
  // next one): iter() and load_state_dict() start a new generation, and
  // only the current generation's iterator moves the position.
  EpochLoader::Position position;
  uint64_t generation = 0;
  bool closed = false;
  bool exiting = false;  // closed by the interpreter's exit: iterators end
  std::vector<std::weak_ptr<EpochState>> epochs;
  // The loader of the newest epoch once it ended (its workers done), whose
  // read-ahead went on into the first samples of epoch newest_epoch + 1
  // (ReadAheadLinks): an iter() of that epoch hands it to its EpochState;
  // any other iter() drops it.
  std::shared_ptr<EpochLoader> newest;
  uint32_t newest_epoch = 0;
  // (epoch, index, reason) over every epoch, in the order next() saw them:
  // the first kMaxLoaderSkips, so that a run that skips a broken shard's
  // samples every epoch does not grow without end (each epoch's iterator
  // lists all of its own).
  std::vector<std::tuple<uint32_t, uint64_t, std::string>> skipped;
};

// fusednorm.SampleError: a sample that cannot be read (set by BindLoader).
PyObject* g_sample_error = nullptr;

const Setting kCopySetting{
    "copy", SettingType::kBool, "false",
    "give owned arrays instead of views of the transfer slots"};

// The Loader's keywords: the recipe's and copy.
const std::vector<const Setting*>& LoaderRows() {
  static const auto* rows = [] {
    auto* r = new std::vector<const Setting*>(RecipeSettings());
    r->push_back(&kCopySetting);
    return r;
  }();
  return *rows;
}

// Whether the calling thread (holding the GIL) is Python's main thread.
bool OnMainThread() {
  const py::module_ threading = py::module_::import("threading");
  return threading.attr("current_thread")().is(threading.attr("main_thread")());
}

// The open of OpenInterruptibly, on a thread of its own: its result (or
// the exception it threw) once done, and its cancel flag. Leaving the scope
// cancels and joins it, however the caller leaves.
class Opening {
 public:
  explicit Opening(const RecipeOptions& options)
      : thread_([this, &options] { Run(options); }) {}
  ~Opening() {
    cancel_ = true;
    if (thread_.joinable()) WithoutGil([&] { thread_.join(); });
  }

  // Whether it is done, after waiting up to `limit` (without the GIL).
  bool Wait(absl::Duration limit) {
    return WithoutGil([&] {
      std::unique_lock<std::mutex> lock(mu_);
      return done_cv_.wait_for(lock, absl::ToChronoMilliseconds(limit),
                               [&] { return done_; });
    });
  }
  // The dataset, or raises what the open gave (once done).
  std::shared_ptr<const Dataset> Result() {
    WithoutGil([&] { thread_.join(); });
    if (error_) std::rethrow_exception(error_);
    Raise(data_.status(), NotFound::kFile);
    return *std::move(data_);
  }

 private:
  void Run(const RecipeOptions& options) {
    absl::StatusOr<std::shared_ptr<const Dataset>> data;
    std::exception_ptr error;
    try {  // std::bad_alloc, say: raised by the caller, as MemoryError
      data = OpenRecipeDataset(options, &cancel_);
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mu_);
    data_ = std::move(data);
    error_ = error;
    done_ = true;
    done_cv_.notify_one();
  }

  std::atomic<bool> cancel_{false};
  std::mutex mu_;
  std::condition_variable done_cv_;
  bool done_ = false;
  absl::StatusOr<std::shared_ptr<const Dataset>> data_;
  std::exception_ptr error_;
  std::thread thread_;  // last: starts once the fields above exist
};

// Opens the dataset the options name on a thread of its own while this
// one runs Python's signal handlers every kSignalCheck, so that a Ctrl-C
// while remote shards open (a stalled server retried for minutes) stops
// their requests and raises at once. Called with the GIL held.
std::shared_ptr<const Dataset> OpenInterruptibly(const RecipeOptions& options) {
  Opening opening(options);
  while (!opening.Wait(kSignalCheck)) {
    // The handler's exception is raised; leaving cancels the open.
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  }
  return opening.Result();
}

// Raises the exception for an epoch's failed next(): the Loader's state
// (closed, interrupted) first, then the status's kind.
[[noreturn]] void RaiseEpochError(const absl::Status& status, bool closed,
                                  bool interrupted) {
  if (closed) throw py::value_error("the Loader is closed");
  if (interrupted) throw std::runtime_error("the epoch was interrupted");
  if (status.code() == absl::StatusCode::kResourceExhausted) {
    PyErr_SetString(PyExc_MemoryError, OneLine(status.message()).c_str());
    throw py::error_already_set();
  }
  // Cancelled, and what no sample caused: no driver, a fork()ed child,
  // memory the OS will not lock.
  if (status.code() == absl::StatusCode::kCancelled ||
      status.code() == absl::StatusCode::kFailedPrecondition)
    throw std::runtime_error(OneLine(status.message()));
  PyErr_SetString(g_sample_error, OneLine(status.message()).c_str());
  throw py::error_already_set();
}

class PyEpoch {
 public:
  PyEpoch(std::shared_ptr<LoaderCore> core, std::shared_ptr<EpochState> state)
      : core_(std::move(core)), state_(std::move(state)) {}

  // The next batch as (images, labels), or StopIteration.
  py::tuple Next() {
    RaiseIfForked();
    std::shared_ptr<EpochLoader> loader = Loader();
    if (loader == nullptr) Failed({});
    state_->TakeHanded();
    WaitForBatch(*loader);
    // The position moves with the batch taken, under next_mu, so that it
    // only moves forward when threads share the iterator.
    EpochLoader::Position before, after;
    absl::StatusOr<BatchRef> batch = WithoutGil([&] {
      std::lock_guard<std::mutex> lock(state_->next_mu);
      absl::StatusOr<BatchRef> b = loader->Next();
      if (b.ok()) {
        after = loader->resume_position();
        before = MovePosition(after);
      }
      if (b.ok() && *b == nullptr) Ended(loader);
      return b;
    });
    if (!batch.ok()) Failed(batch.status());
    if (*batch == nullptr) throw py::stop_iteration();
    // From here until the caller has it, Python may raise instead (a
    // signal's exception, run by a finalizer the arrays' allocation starts,
    // or at this call's end; MemoryError): GiveBack then undoes the move.
    state_->handed.push_back(
        EpochState::Handed{std::this_thread::get_id(), before, after});
    py::tuple out;
    try {
      out = py::make_tuple(Images(*batch), Labels(*batch));
    } catch (...) {
      GiveBack();
      throw;
    }
    if (PyErr_CheckSignals() != 0 || !WarnIfAllSkipped(**batch)) {
      GiveBack();
      throw py::error_already_set();
    }
    RecordSkipped(**batch);
    return out;
  }

  // The batch next() just returned to this thread did not reach the caller
  // (an exception came first): the epoch is cancelled and the
  // position moves back (unless another thread moved it on), so that a
  // resume yields the batch again. Does nothing after any other outcome.
  void GiveBack() {
    const std::optional<EpochState::Handed> h = state_->TakeHanded();
    if (!h) return;
    WithoutGil([&] { MovePosition(h->before, &h->after); });
    state_->interrupted = true;
    if (std::shared_ptr<EpochLoader> loader = Loader()) loader->Cancel();
  }

  // The batch next() last returned to this thread reached the caller: an
  // exception from now on gives it back no more.
  void CallerHasLast() { state_->TakeHanded(); }

  py::list skipped() const { return py::cast(state_->skipped); }
  uint32_t epoch() const { return state_->epoch; }
  // (pixels decoded, pixels of the whole images) of the JPEG and PNG
  // samples so far: the first is smaller where only the crops' windows were
  // decoded.
  py::tuple decoded_pixels() const {
    RaiseIfForked();
    std::shared_ptr<EpochLoader> loader = Loader();
    if (loader == nullptr) return py::make_tuple(0, 0);
    const EpochLoader::DecodedPixels d = loader->decoded_pixels();
    return py::make_tuple(d.decoded, d.whole);
  }

 private:
  // In a child made by fork() the epoch's workers and the threads that
  // held its locks are the parent's: raises before any lock is taken.
  void RaiseIfForked() const {
    if (state_->process == getpid()) return;
    throw std::runtime_error(absl::StrCat(
        "this epoch was started by process ", state_->process,
        " and this is process ", getpid(),
        ", a child made by fork(): its workers are not here. Start a new "
        "epoch in the child (iter(loader))"));
  }

  std::shared_ptr<EpochLoader> Loader() const {
    return WithoutGil([&] {
      std::lock_guard<std::mutex> lock(state_->next_mu);
      return state_->loader;
    });
  }
  // Raises what a failed next() raises; at the interpreter's exit an
  // iterator in another thread just ends (a daemon thread's traceback
  // printed during the shutdown could take stderr's lock with it), while
  // the main thread (an atexit handler) is told.
  [[noreturn]] void Failed(const absl::Status& status) const {
    const auto [closed, exiting] = WithoutGil([&] {
      std::lock_guard<std::mutex> lock(core_->mu);
      return std::make_pair(core_->closed, core_->exiting);
    });
    if (exiting && !OnMainThread()) throw py::stop_iteration();
    if (exiting) {
      throw py::value_error(
          "the Loader was closed by the interpreter's exit (an atexit "
          "handler registered before fusednorm was imported runs after it)");
    }
    RaiseEpochError(status, closed, state_->interrupted);
  }

  // Waits without the GIL until the batch is ready, running Python's signal
  // handlers every kSignalCheck.
  void WaitForBatch(EpochLoader& loader) {
    while (!WithoutGil([&] { return loader.WaitReady(kSignalCheck); }))
      RaiseIfSignalled(loader);
  }

  // Runs Python's signal handlers; a handler's exception cancels the epoch.
  void RaiseIfSignalled(EpochLoader& loader) {
    if (PyErr_CheckSignals() == 0) return;
    state_->interrupted = true;
    loader.Cancel();
    throw py::error_already_set();
  }

  // The epoch ran to its end: when it is the newest, the next iter() takes
  // the first samples its read-ahead fetched (ReadAheadLinks). Without the
  // GIL.
  void Ended(const std::shared_ptr<EpochLoader>& loader) {
    std::lock_guard<std::mutex> lock(core_->mu);
    if (core_->closed || core_->next_epoch != state_->epoch + 1ull ||
        !loader->reads_ahead()) {
      return;
    }
    core_->newest = loader;
    core_->newest_epoch = state_->epoch;
    loader->ReleaseSlots();  // kept between epochs for its read-ahead alone
  }

  // Sets the loader's position to `to` when this is its newest iterator
  // (and, given `from`, the position is still there); returns the old one.
  // Without the GIL, as the core's lock is always taken.
  EpochLoader::Position MovePosition(
      EpochLoader::Position to, const EpochLoader::Position* from = nullptr) {
    std::lock_guard<std::mutex> lock(core_->mu);
    const EpochLoader::Position old = core_->position;
    const bool at_from = from == nullptr || (old.epoch == from->epoch &&
                                             old.batches == from->batches);
    if (core_->generation == state_->generation && at_from)
      core_->position = to;
    return old;
  }

  // An array of `dtype` and `shape` at `data` inside the batch: a view
  // that owns the batch (or a copy).
  py::array InBatch(const BatchRef& batch, const py::dtype& dtype,
                    const std::vector<py::ssize_t>& shape,
                    const void* data) const {
    if (core_->copy) return py::array(dtype, shape, data);
    py::capsule owner(new BatchRef(batch),
                      [](void* p) { delete static_cast<BatchRef*>(p); });
    return py::array(dtype, shape, data, owner);
  }

  // The batch's images.
  py::array Images(const BatchRef& batch) const {
    const Split split = core_->options.split;
    const FusedNormalization& fused = core_->preprocessor->fused(split);
    const Size2 size = core_->preprocessor->sample_size(split);
    std::vector<py::ssize_t> shape = OutputShape(
        fused, size.height, size.width, core_->preprocessor->channels(split));
    shape.insert(shape.begin(), static_cast<py::ssize_t>(batch->count));
    return InBatch(batch, NumpyDType(fused.dtype()), shape, batch->data);
  }

  // The batch's labels (int64, a copy), or its soft targets (float32
  // (count, num_classes)).
  py::array Labels(const BatchRef& batch) const {
    if (batch->num_classes == 0) return py::array(py::cast(batch->labels));
    return InBatch(batch, py::dtype::of<float>(),
                   {static_cast<py::ssize_t>(batch->count),
                    static_cast<py::ssize_t>(batch->num_classes)},
                   batch->targets.data());
  }

  // A RuntimeWarning, once an epoch, for a batch whose samples were all
  // skipped: a list or data that fails every sample is not left to look
  // like a run. False when the warning was raised as an error.
  bool WarnIfAllSkipped(const Batch& b) {
    if (b.count == 0 || b.skipped < b.count || state_->warned_all_skipped)
      return true;
    state_->warned_all_skipped = true;
    const std::string message = absl::StrCat(
        "fusednorm.Loader: every sample of batch ", b.global_index, " (",
        b.count, ") was skipped (on_error=\"skip\"), the first because: ",
        Shortened(b.errors[0], 400),
        ". Transforms or data that fail every sample give batches of zeros");
    return PyErr_WarnEx(PyExc_RuntimeWarning, message.c_str(), 1) == 0;
  }

  void RecordSkipped(const Batch& b) {
    for (size_t k = 0; k < b.count; ++k) {
      if (b.valid[k]) continue;
      state_->skipped.emplace_back(b.sample_indices[k], b.errors[k]);
      if (core_->skipped.size() < kMaxLoaderSkips) {
        core_->skipped.emplace_back(state_->epoch, b.sample_indices[k],
                                    b.errors[k]);
      }
    }
  }

  std::shared_ptr<LoaderCore> core_;
  std::shared_ptr<EpochState> state_;
};

class PyLoader {
 public:
  explicit PyLoader(const py::kwargs& keywords)
      : core_(std::make_shared<LoaderCore>()) {
    const SettingValues values = FromKeywords(keywords, LoaderRows(), "Loader");
    core_->options = Value(RecipeFromSettings(values));
    Raise(CheckCudaDeviceUsed(values, core_->options.loader.pinning, nullptr,
                              false));
    core_->copy = Value(values.Bool(kCopySetting));
    core_->next_epoch = core_->options.epoch;
    core_->position = {core_->options.epoch, 0};
    core_->data = OpenInterruptibly(core_->options);
    absl::StatusOr<Preprocessor> p =
        WithoutGil([&] { return BuildRecipe(core_->options, core_->data); });
    core_->preprocessor =
        std::make_shared<const Preprocessor>(Value(std::move(p)));
  }
  ~PyLoader() { Close(false); }

  // A new iterator over the next epoch.
  PyEpoch Iter() {
    OwnInChild();
    auto state = std::make_shared<EpochState>();
    bool closed = false;  // not a status: StartEpoch has FailedPreconditions
    const absl::Status status = WithoutGil([&] {
      std::shared_ptr<EpochLoader> dropped;  // freed after the lock, below
      std::lock_guard<std::mutex> lock(core_->mu);
      if (core_->closed) {
        closed = true;
        return absl::OkStatus();
      }
      if (core_->past_last_epoch) {
        return absl::OutOfRangeError(
            "epoch 4294967295 was the last: epoch numbers do not wrap");
      }
      // Nothing moves until the epoch has started: a failed iter() leaves
      // the next one (and state_dict()) where they were.
      state->epoch = core_->next_epoch;
      const uint64_t start = core_->next_start;
      ReadAheadLinks links;
      links.from_previous = start == 0 && core_->newest != nullptr &&
                            core_->newest_epoch + 1 == state->epoch;
      links.into_next = true;  // fetched for the next iter(), if any
      absl::StatusOr<std::unique_ptr<EpochLoader>> loader =
          core_->preprocessor->StartEpoch(core_->options.split, state->epoch,
                                          start, links);
      if (!loader.ok()) return loader.status();
      if (links.from_previous) state->previous = core_->newest;
      dropped = std::move(core_->newest);
      core_->past_last_epoch = state->epoch == UINT32_MAX;
      ++core_->next_epoch;
      core_->next_start = 0;
      core_->position = {state->epoch, start};
      state->generation = ++core_->generation;
      state->loader = *std::move(loader);
      // Iterators long gone leave expired entries: dropped as new ones come.
      core_->epochs.erase(
          std::remove_if(
              core_->epochs.begin(), core_->epochs.end(),
              [](const std::weak_ptr<EpochState>& e) { return e.expired(); }),
          core_->epochs.end());
      core_->epochs.push_back(state);
      return absl::OkStatus();
    });
    if (closed) throw py::value_error("the Loader is closed");
    Raise(status);
    return PyEpoch(core_, std::move(state));
  }

  // Cancels every epoch and stops their workers; later iteration raises
  // (`exiting`: ends).
  void Close(bool exiting) {
    OwnInChild(/*to_run=*/false);
    WithoutGil([&] {
      std::shared_ptr<EpochLoader> ended;  // its read-ahead's, for no one
      std::vector<std::shared_ptr<EpochState>> live;
      {
        std::lock_guard<std::mutex> lock(core_->mu);
        core_->closed = true;
        core_->exiting = core_->exiting || exiting;
        ended = std::move(core_->newest);
        for (const auto& e : core_->epochs) {
          if (auto s = e.lock()) live.push_back(std::move(s));
        }
        core_->epochs.clear();
      }
      ended = nullptr;
      for (const auto& s : live) {
        std::shared_ptr<EpochLoader> loader, previous;
        {
          std::lock_guard<std::mutex> lock(s->next_mu);
          loader = std::move(s->loader);
          previous = std::move(s->previous);
        }
        if (loader != nullptr) loader->Cancel();
      }  // the workers are joined as the last reference goes
    });
  }

  // Test hook: how many iterators close() would look at.
  size_t tracked_epochs() {
    OwnInChild();
    return WithoutGil([&] {
      std::lock_guard<std::mutex> lock(core_->mu);
      return core_->epochs.size();
    });
  }

  size_t batches() const {
    return core_->preprocessor->batches_per_epoch(core_->options.split);
  }
  std::string Describe() const {
    return core_->preprocessor->Describe(core_->options.split);
  }
  py::list skipped() {
    OwnInChild();
    return py::cast(core_->skipped);
  }

  // The resume state's JSON text.
  std::string StateDict() {
    OwnInChild();
    return WithoutGil([&] {
      EpochLoader::Position position;
      {
        std::lock_guard<std::mutex> lock(core_->mu);
        position = core_->position;
      }  // a folder's first digest looks at every file: not under the lock
      return ResumeStateJson(MakeResumeState(*core_->preprocessor,
                                             core_->options.split, position));
    });
  }

  // Checks the state's JSON text; the next iter() starts where it says.
  void LoadStateDict(const std::string& json) {
    OwnInChild();
    const auto closed = [&] {
      std::lock_guard<std::mutex> lock(core_->mu);
      return core_->closed;
    };
    if (WithoutGil(closed)) throw py::value_error("the Loader is closed");
    const ResumeState state = Value(ParseResumeState(json, "the state"));
    Raise(WithoutGil([&] {
      return CheckResumeState(state, *core_->preprocessor,
                              core_->options.split);
    }));
    const bool set = WithoutGil([&] {
      std::lock_guard<std::mutex> lock(core_->mu);
      if (core_->closed) return false;  // by another thread meanwhile
      core_->past_last_epoch = state.epoch == kPastLastEpoch;
      core_->next_epoch = static_cast<uint32_t>(state.epoch);  // 0 when past
      core_->next_start = state.batches;
      core_->position = {state.epoch, state.batches};
      ++core_->generation;  // live iterators no longer move the position
      return true;
    });
    if (!set) throw py::value_error("the Loader is closed");
  }

 private:
  // In a child made by fork(), the first call gives the Loader a core of
  // its own: the parent's fields read without its lock (no other thread
  // runs here yet), a new preprocessor (the parent's transfer slots have
  // locks of their own) and, for remote data, the dataset opened again
  // (its connections are the parent's). The parent's core is left as it
  // is, never unlocked or freed: a lock in it may be held for ever.
  // A Loader the child only closes (`to_run` false) keeps the parent's
  // dataset and preprocessor: no epoch of it starts again.
  void OwnInChild(bool to_run = true) {
    if (core_->process == getpid()) return;
    const LoaderCore& old = *core_;
    auto own = std::make_shared<LoaderCore>();
    own->options = old.options;
    own->copy = old.copy;
    own->data = old.data;
    own->preprocessor = old.preprocessor;
    if (to_run && absl::StrContains(old.options.data, "://")) {
      own->data = Value(OpenRecipeDataset(own->options));
    }
    if (to_run) {
      own->preprocessor = std::make_shared<const Preprocessor>(
          Value(BuildRecipe(own->options, own->data)));
    }
    own->next_epoch = old.next_epoch;
    own->past_last_epoch = old.past_last_epoch;
    own->next_start = old.next_start;
    own->position = old.position;
    own->generation = old.generation;
    own->closed = old.closed;
    own->skipped = old.skipped;
    new std::shared_ptr<LoaderCore>(std::move(core_));  // NOLINT: kept
    core_ = std::move(own);
  }

  std::shared_ptr<LoaderCore> core_;
};

}  // namespace

void BindLoader(py::module_& m) {
  g_sample_error = PyErr_NewExceptionWithDoc(
      "fusednorm.SampleError",
      "A sample that cannot be read (its message names the file).",
      PyExc_RuntimeError, nullptr);
  m.add_object("SampleError", py::handle(g_sample_error));
  m.def(
      "_shown_data",
      [](const std::string& data) { return py::bytes(ShownData(data)); },
      "data= (os.fsencode'd) as messages show it: URLs without credentials "
      "or queries.");
  py::class_<PyEpoch>(m, "Epoch")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &PyEpoch::Next)
      .def("_give_back", &PyEpoch::GiveBack)
      .def("_caller_has_last", &PyEpoch::CallerHasLast)
      .def_property_readonly("epoch", &PyEpoch::epoch)
      .def_property_readonly("skipped", &PyEpoch::skipped)
      .def_property_readonly("decoded_pixels", &PyEpoch::decoded_pixels);
  py::class_<PyLoader>(m, "Loader")
      .def(py::init<const py::kwargs&>())
      .def("__iter__", &PyLoader::Iter, py::keep_alive<0, 1>())
      .def("__len__", &PyLoader::batches)
      .def("close", &PyLoader::Close, py::arg("exiting") = false)
      .def("describe", &PyLoader::Describe)
      .def("_tracked_epochs", &PyLoader::tracked_epochs)
      .def("state_dict", &PyLoader::StateDict)
      .def("load_state_dict", &PyLoader::LoadStateDict, py::arg("json"))
      .def_property_readonly("skipped", &PyLoader::skipped)
      .def_property_readonly_static("settings", [](py::object) {
        return DescribeSettings(LoaderRows());
      });
  RefuseUninitialized<PyEpoch>();
  RefuseUninitialized<PyLoader>();
}

}  // namespace fusednorm
