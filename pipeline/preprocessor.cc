#include "pipeline/preprocessor.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "pipeline/transfer_station.h"
#include "util/status_macros.h"

namespace fusednorm {
namespace {

// The epoch's shuffle draws from this sample index's stream, which no sample
// uses (sample indices are dataset indices, far below it).
constexpr uint64_t kShuffleStream = (uint64_t{1} << 63) - 1;

// Adds the time since the last Add (or construction) to a stage's counter.
class Clock {
 public:
  void Add(std::atomic<int64_t>* ns) {
    const auto now = std::chrono::steady_clock::now();
    ns->fetch_add(
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - last_)
            .count(),
        std::memory_order_relaxed);
    last_ = now;
  }

 private:
  std::chrono::steady_clock::time_point last_ =
      std::chrono::steady_clock::now();
};

absl::Status Prefixed(const absl::Status& s, const std::string& prefix) {
  return absl::Status(s.code(), absl::StrCat(prefix, s.message()));
}

}  // namespace

struct Chain {
  std::vector<std::unique_ptr<PreprocessOp>> ops;  // real ops, in order
  std::optional<FusedNormalization> fused;
  Size2 size;
  size_t sample_bytes = 0;
};

struct Preprocessor::State {
  std::shared_ptr<const Dataset> dataset;
  Chain train, val;
  size_t batch_size = 0;
  int threads = 1;
  uint64_t seed = 0;
  size_t slots = 2;
  bool pinned = false;
  bool shuffle = true;
  int rank = 0, world = 1;
  ErrorPolicy policy = ErrorPolicy::kFail;

  const Chain& chain(Split s) const { return s == Split::kTrain ? train : val; }
  size_t global_batches() const {
    return (dataset->size() + batch_size - 1) / batch_size;
  }
};

// ---- builder ----

PreprocessorBuilder::PreprocessorBuilder() = default;
PreprocessorBuilder::~PreprocessorBuilder() = default;
PreprocessorBuilder::PreprocessorBuilder(PreprocessorBuilder&&) = default;
PreprocessorBuilder& PreprocessorBuilder::operator=(PreprocessorBuilder&&) =
    default;

PreprocessorBuilder& PreprocessorBuilder::dataset(
    std::shared_ptr<const Dataset> d) {
  dataset_ = std::move(d);
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::dataset(std::string kind,
                                                  std::string path) {
  dataset_kind_ = std::move(kind);
  dataset_path_ = std::move(path);
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::normalization(Preset preset) {
  preset_ = preset;
  mean_.clear();
  std_.clear();
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::normalization(
    std::vector<float> mean, std::vector<float> std) {
  preset_.reset();
  mean_ = std::move(mean);
  std_ = std::move(std);
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::mode(Mode m) {
  mode_ = m;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::amp(bool on) {
  dtype_ = on ? DType::kFloat16 : DType::kFloat32;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::dtype(DType d) {
  dtype_ = d;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::layout(Layout l) {
  layout_ = l;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::batch_size(size_t n) {
  batch_size_ = n;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::threads(int n) {
  threads_ = n;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::seed(uint64_t s) {
  seed_ = s;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::kernel(std::string id) {
  kernel_ = std::move(id);
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::sample_size(int64_t h, int64_t w) {
  sample_size_ = Size2{h, w};
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::slots(size_t n) {
  slots_ = n;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::pinned(bool on) {
  pinned_ = on;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::shuffle(bool on) {
  shuffle_ = on;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::shard(int rank, int world_size) {
  rank_ = rank;
  world_ = world_size;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::error_policy(ErrorPolicy p) {
  policy_ = p;
  return *this;
}

namespace {

// Splits a transform list into real ops and the fused op's options.
absl::Status BuildChain(const std::vector<std::unique_ptr<PreprocessOp>>& list,
                        Split split, const FusedNormalizationOptions& base,
                        const std::optional<Size2>& sample_size, int channels,
                        Chain* chain) {
  const char* list_name =
      split == Split::kTrain ? "train_transforms" : "val_transforms";
  FusedNormalizationOptions options = base;
  options.flip_p = 0.0;
  options.erase.enabled = false;
  bool flip_seen = false, erase_seen = false;
  std::optional<Size2> fixed;
  for (size_t i = 0; i < list.size(); ++i) {
    const PreprocessOp* op = list[i].get();
    const std::string where =
        absl::StrCat(list_name, " position ", i, " (", op->name(), ")");
    if (dynamic_cast<const Normalize*>(op) != nullptr) {
      return InvalidArgumentCat(
          where,
          ": Normalize does not belong in a transform list; use the "
          "normalization setting");
    }
    if (const auto* flip = dynamic_cast<const RandomHorizontalFlip*>(op)) {
      if (flip_seen)
        return InvalidArgumentCat(where,
                                  ": RandomHorizontalFlip appears twice");
      flip_seen = true;
      options.flip_p = flip->p();
      continue;
    }
    if (const auto* erase = dynamic_cast<const RandomErasing*>(op)) {
      if (split == Split::kVal) {
        return InvalidArgumentCat(
            where, ": RandomErasing is for training only, not val_transforms");
      }
      if (erase_seen)
        return InvalidArgumentCat(where, ": RandomErasing appears twice");
      erase_seen = true;
      options.erase = erase->options();
      continue;
    }
    if (const auto* rrc = dynamic_cast<const RandomResizedCrop*>(op)) {
      FUSEDNORM_RETURN_IF_ERROR(Prefixed(rrc->Validate(), where + ": "));
    }
    if (op->FixedOutputSize()) {
      fixed = op->FixedOutputSize();
    } else if (dynamic_cast<const Resize*>(op) != nullptr) {
      fixed.reset();  // a shorter-side resize: the size depends on the image
                      // again
    }
    chain->ops.push_back(op->Clone());
  }
  if (fixed && sample_size &&
      (fixed->height != sample_size->height ||
       fixed->width != sample_size->width)) {
    return InvalidArgumentCat(list_name, " end in ", fixed->height, "x",
                              fixed->width, " but sample_size is ",
                              sample_size->height, "x", sample_size->width);
  }
  if (!fixed) fixed = sample_size;
  if (!fixed) {
    return InvalidArgumentCat(
        list_name,
        ": no transform fixes the output size (end the list with a "
        "crop or an exact Resize, or set sample_size)");
  }
  chain->size = *fixed;
  absl::StatusOr<FusedNormalization> fused =
      FusedNormalization::Create(options);
  if (!fused.ok())
    return Prefixed(fused.status(), absl::StrCat(list_name, ": "));
  if (fused->channels() != 0 && fused->channels() != channels) {
    return InvalidArgumentCat("the normalization is for ", fused->channels(),
                              " channels but the dataset's images have ",
                              channels);
  }
  FUSEDNORM_ASSIGN_OR_RETURN(
      chain->sample_bytes,
      fused->OutputBytes(fixed->height, fixed->width, channels));
  chain->fused.emplace(*std::move(fused));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Preprocessor> PreprocessorBuilder::Commit() {
  if (committed_) {
    return absl::FailedPreconditionError(
        "Commit() was already called on this builder");
  }
  committed_ = true;
  auto st = std::make_unique<Preprocessor::State>();
  if (dataset_ != nullptr) {
    st->dataset = dataset_;
  } else if (!dataset_kind_.empty()) {
    FUSEDNORM_ASSIGN_OR_RETURN(std::unique_ptr<Dataset> d,
                               OpenDataset(dataset_kind_, dataset_path_));
    st->dataset = std::move(d);
  } else {
    st->dataset = MakeSyntheticDataset(1024);
  }
  if (st->dataset->size() == 0)
    return InvalidArgumentCat("dataset ", st->dataset->name(), " is empty");
  if (batch_size_ < 1)
    return InvalidArgumentCat("batch_size = ", batch_size_, " must be >= 1");
  if (threads_ < 0)
    return InvalidArgumentCat("threads = ", threads_,
                              " must be >= 0 (0: all cores)");
  if (slots_ < 1)
    return InvalidArgumentCat("slots = ", slots_, " must be >= 1");
  if (world_ < 1 || rank_ < 0 || rank_ >= world_) {
    return InvalidArgumentCat("shard rank = ", rank_, ", world size = ", world_,
                              ": need 0 <= rank < world size");
  }
  FusedNormalizationOptions base;
  if (preset_) base.preset = *preset_;
  base.mean = mean_;
  base.std = std_;
  base.dtype = dtype_;
  base.layout = layout_;
  base.mode = mode_;
  base.kernel = kernel_;
  // Transfer slots are written once and read by the device copy: stream past
  // the caches.
  base.stores = FusedNormalizationOptions::Stores::kNontemporal;
  const int channels = st->dataset->channels();
  FUSEDNORM_RETURN_IF_ERROR(BuildChain(train_, Split::kTrain, base,
                                       sample_size_, channels, &st->train));
  FUSEDNORM_RETURN_IF_ERROR(
      BuildChain(val_, Split::kVal, base, sample_size_, channels, &st->val));
  st->batch_size = batch_size_;
  st->threads =
      threads_ > 0
          ? threads_
          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  st->seed = seed_;
  st->slots = slots_;
  st->pinned = pinned_;
  st->shuffle = shuffle_;
  st->rank = rank_;
  st->world = world_;
  st->policy = policy_;
  return Preprocessor(std::move(st));
}

// ---- Preprocessor ----

Preprocessor::Preprocessor(std::unique_ptr<State> state)
    : state_(std::move(state)) {}
Preprocessor::~Preprocessor() = default;
Preprocessor::Preprocessor(Preprocessor&&) = default;
Preprocessor& Preprocessor::operator=(Preprocessor&&) = default;

const FusedNormalization& Preprocessor::fused(Split s) const {
  return *state_->chain(s).fused;
}
Size2 Preprocessor::sample_size() const { return state_->train.size; }
size_t Preprocessor::sample_bytes() const { return state_->train.sample_bytes; }
size_t Preprocessor::batch_size() const { return state_->batch_size; }
int Preprocessor::threads() const { return state_->threads; }
const Dataset& Preprocessor::dataset() const { return *state_->dataset; }
size_t Preprocessor::batches_per_epoch() const {
  const size_t g = state_->global_batches();
  return g / state_->world +
         (static_cast<size_t>(state_->rank) < g % state_->world ? 1 : 0);
}

std::string Preprocessor::Describe(Split split) const {
  const Chain& c = state_->chain(split);
  std::vector<std::string> parts;
  for (const auto& op : c.ops) parts.push_back(op->name());
  const FusedNormalization& f = *c.fused;
  parts.push_back(absl::StrCat(
      "FusedNormalization(", DTypeName(f.dtype()), " ", LayoutName(f.layout()),
      " ", ModeName(f.mode()), ", flip p=", f.flip_p(), ", erase ",
      f.erase().enabled ? absl::StrCat("p=", f.erase().p) : "off", ", kernel ",
      f.kernel_id(state_->dataset->channels()), ")"));
  return absl::StrJoin(parts, " -> ");
}

// ---- EpochLoader ----

struct EpochLoader::Impl {
  const Preprocessor::State* st = nullptr;
  const Chain* chain = nullptr;
  uint32_t epoch = 0;
  std::vector<uint64_t> order;       // dataset indices in epoch order
  std::vector<uint64_t> my_batches;  // global batch numbers of this rank
  std::vector<size_t>
      first_task;  // task number of each local batch's first sample
  size_t total_tasks = 0;
  std::unique_ptr<TransferStation> station;

  std::mutex mu;
  std::condition_variable work_cv, done_cv;
  size_t next_task = 0;      // next sample to hand to a worker
  size_t released = 0;       // local batches whose slot is free again
  size_t handed_out = 0;     // local batches returned by Next()
  std::vector<Batch> batch;  // per slot
  std::vector<size_t> done;  // per slot: samples finished
  std::vector<size_t>
      first_error;  // per slot: position of the first failed sample
  bool stop = false;
  size_t max_in_flight = 0;
  std::atomic<int64_t> ns_load{0}, ns_transforms{0}, ns_fused{0};
  std::vector<std::thread> workers;

  size_t BatchCount(size_t j) const {
    const uint64_t g = my_batches[j];
    return std::min<size_t>(st->batch_size,
                            st->dataset->size() - g * st->batch_size);
  }
  size_t BatchOfTask(size_t t) const {
    return std::upper_bound(first_task.begin(), first_task.end(), t) -
           first_task.begin() - 1;
  }

  // Runs the chain for one sample into `out`; returns its label.
  absl::StatusOr<int64_t> Process(uint64_t index, uint8_t* out) {
    SampleStream stream(st->seed, epoch, index);
    Clock clock;
    absl::StatusOr<Sample> sample = st->dataset->Get(index);
    clock.Add(&ns_load);
    if (!sample.ok())
      return Prefixed(sample.status(), absl::StrCat("sample ", index, ": "));
    Image cur = std::move(sample->image), next;
    for (const auto& op : chain->ops) {
      const absl::Status s = op->Execute(cur.view(), stream, &next);
      if (!s.ok())
        return Prefixed(s,
                        absl::StrCat("sample ", index, ": ", op->name(), ": "));
      std::swap(cur, next);
    }
    clock.Add(&ns_transforms);
    if (cur.height != chain->size.height || cur.width != chain->size.width ||
        cur.channels != st->dataset->channels()) {
      return InvalidArgumentCat(
          "sample ", index, ": after the transforms it is ", cur.height, "x",
          cur.width, "x", cur.channels, " but the batch holds ",
          chain->size.height, "x", chain->size.width, "x",
          st->dataset->channels(), " samples");
    }
    const absl::StatusOr<Augmentation> aug = chain->fused->Execute(
        cur.view(), stream,
        OutputView{absl::MakeSpan(out, chain->sample_bytes)});
    clock.Add(&ns_fused);
    if (!aug.ok())
      return Prefixed(aug.status(), absl::StrCat("sample ", index, ": "));
    return sample->label;
  }

  void Work() {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      // Backpressure: a sample is started only when its batch has a free slot.
      work_cv.wait(lock, [&] {
        return stop || next_task >= total_tasks ||
               BatchOfTask(next_task) < released + st->slots;
      });
      if (stop || next_task >= total_tasks) return;
      const size_t t = next_task++;
      const size_t j = BatchOfTask(t), pos = t - first_task[j],
                   slot = j % st->slots;
      if (pos ==
          0) {  // tasks start in order: the batch's first sample opens its slot
        Batch& b = batch[slot];
        b.global_index = my_batches[j];
        b.data = station->slot(slot);
        b.sample_bytes = chain->sample_bytes;
        b.count = BatchCount(j);
        b.sample_indices.assign(b.count, 0);
        b.labels.assign(b.count, -1);
        b.valid.assign(b.count, false);
        b.errors.assign(b.count, "");
        b.skipped = 0;
        done[slot] = 0;
        first_error[slot] = SIZE_MAX;
        first_status[slot] = absl::OkStatus();
        opened[slot] = j;
        max_in_flight = std::max(max_in_flight, j + 1 - released);
      }
      const uint64_t index = order[my_batches[j] * st->batch_size + pos];
      uint8_t* out = station->slot(slot) + pos * chain->sample_bytes;
      lock.unlock();
      const absl::StatusOr<int64_t> label = Process(index, out);
      if (!label.ok()) std::memset(out, 0, chain->sample_bytes);
      lock.lock();
      Batch& b = batch[slot];
      b.sample_indices[pos] = index;
      b.valid[pos] = label.ok();
      if (label.ok()) {
        b.labels[pos] = *label;
      } else {
        ++b.skipped;
        b.errors[pos] = std::string(label.status().message());
        if (pos < first_error[slot]) {
          first_error[slot] = pos;
          first_status[slot] = label.status();
        }
      }
      if (++done[slot] == b.count) done_cv.notify_all();
    }
  }

  std::vector<absl::Status>
      first_status;            // per slot: the first failure, code and all
  std::vector<size_t> opened;  // per slot: the local batch it holds
};

EpochLoader::EpochLoader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

EpochLoader::~EpochLoader() {
  Cancel();
  for (std::thread& t : impl_->workers) t.join();
}

void EpochLoader::Cancel() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->stop = true;
  impl_->work_cv.notify_all();
  impl_->done_cv.notify_all();
}

size_t EpochLoader::batches() const { return impl_->my_batches.size(); }

size_t EpochLoader::max_in_flight() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->max_in_flight;
}

EpochLoader::StageSeconds EpochLoader::stage_seconds() const {
  return {impl_->ns_load.load() * 1e-9, impl_->ns_transforms.load() * 1e-9,
          impl_->ns_fused.load() * 1e-9};
}

absl::StatusOr<const Batch*> EpochLoader::Next() {
  Impl& m = *impl_;
  std::unique_lock<std::mutex> lock(m.mu);
  if (m.handed_out >
      m.released) {  // the caller is done with the previous batch
    m.released = m.handed_out;
    m.work_cv.notify_all();
  }
  if (m.stop) return absl::CancelledError("the epoch was cancelled");
  const size_t j = m.handed_out;
  if (j >= m.my_batches.size()) return nullptr;
  const size_t slot = j % m.st->slots;
  const size_t count = m.BatchCount(j);
  m.done_cv.wait(lock, [&] {
    return m.stop || (m.opened[slot] == j && m.done[slot] == count);
  });
  if (m.stop) return absl::CancelledError("the epoch was cancelled");
  ++m.handed_out;
  if (m.st->policy == ErrorPolicy::kFail && m.first_error[slot] != SIZE_MAX) {
    const absl::Status s = m.first_status[slot];
    m.stop = true;
    m.work_cv.notify_all();
    return s;
  }
  return &m.batch[slot];
}

absl::StatusOr<std::unique_ptr<EpochLoader>> Preprocessor::StartEpoch(
    Split split, uint32_t epoch) const {
  const State& st = *state_;
  auto m = std::make_unique<EpochLoader::Impl>();
  m->st = &st;
  m->chain = &st.chain(split);
  m->epoch = epoch;
  const size_t n = st.dataset->size();
  m->order.resize(n);
  for (size_t i = 0; i < n; ++i) m->order[i] = i;
  if (st.shuffle && split == Split::kTrain) {
    SampleStream s(st.seed, epoch, kShuffleStream);  // Fisher-Yates
    for (size_t i = n - 1; i > 0; --i) {
      std::swap(m->order[i],
                m->order[s.UniformInt(0, static_cast<int64_t>(i))]);
    }
  }
  for (uint64_t g = st.rank; g < st.global_batches(); g += st.world) {
    m->first_task.push_back(m->total_tasks);
    m->my_batches.push_back(g);
    m->total_tasks += std::min<size_t>(st.batch_size, n - g * st.batch_size);
  }
  FUSEDNORM_ASSIGN_OR_RETURN(
      m->station,
      TransferStation::Create(st.slots, st.batch_size * m->chain->sample_bytes,
                              st.pinned));
  m->batch.resize(st.slots);
  m->done.assign(st.slots, 0);
  m->first_error.assign(st.slots, SIZE_MAX);
  m->first_status.assign(st.slots, absl::OkStatus());
  m->opened.assign(st.slots, SIZE_MAX);
  EpochLoader::Impl* raw = m.get();
  for (int i = 0; i < st.threads; ++i)
    raw->workers.emplace_back([raw] { raw->Work(); });
  return std::unique_ptr<EpochLoader>(new EpochLoader(std::move(m)));
}

}  // namespace fusednorm
