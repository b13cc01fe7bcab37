// PreprocessorBuilder and Preprocessor (preprocessor.h): settings, Commit's
// checks, and the per-split chains an epoch runs.
#include "pipeline/preprocessor.h"

#include <algorithm>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/format_names.h"
#include "core/status.h"
#include "kernels/mix/mix_dispatch.h"
#include "pipeline/chain.h"
#include "pipeline/epoch_order.h"
#include "pipeline/transfer_station.h"

namespace fusednorm {

struct Preprocessor::State {
  std::shared_ptr<const Dataset> dataset;
  Chain train, val;
  LoaderSettings loader;
  // The transfer slots, kept from epoch to epoch (one pool per batch size
  // in bytes: the splits' samples may differ), made by the first epoch.
  std::mutex stations_mu;
  std::vector<std::shared_ptr<TransferStation>> stations;

  const Chain& chain(Split s) const { return s == Split::kTrain ? train : val; }

  // The loader settings an epoch of `s` runs with: shuffled and repeated
  // for training only.
  LoaderSettings Settings(Split s) const {
    LoaderSettings l = loader;
    l.shuffle = l.shuffle && s == Split::kTrain;
    if (s != Split::kTrain) l.repeats = 1;
    return l;
  }

  // The pool of slots of `bytes`, made on first use.
  absl::StatusOr<std::shared_ptr<TransferStation>> Station(size_t bytes) {
    std::lock_guard<std::mutex> lock(stations_mu);
    for (const std::shared_ptr<TransferStation>& t : stations) {
      if (t->slot_bytes() == bytes) return t;
    }
    FUSEDNORM_ASSIGN_OR_RETURN(
        std::shared_ptr<TransferStation> t,
        TransferStation::Create(bytes, loader.pinning, loader.slots,
                                loader.cuda_device));
    stations.push_back(t);
    return t;
  }
};

absl::Span<const Named<Split>> SplitNames() {
  static constexpr Named<Split> kNames[] = {{Split::kTrain, "train"},
                                            {Split::kVal, "val"}};
  return kNames;
}

// ---- builder ----

PreprocessorBuilder::PreprocessorBuilder() { loader_.threads = 0; }
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
  fused_.preset = preset;
  fused_.mean.clear();
  fused_.std.clear();
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::normalization(
    std::vector<float> mean, std::vector<float> std) {
  fused_.mean = std::move(mean);
  fused_.std = std::move(std);
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::mode(Mode m) {
  fused_.mode = m;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::amp(bool on) {
  fused_.dtype = on ? DType::kFloat16 : DType::kFloat32;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::dtype(DType d) {
  fused_.dtype = d;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::layout(Layout l) {
  fused_.layout = l;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::kernel(std::string id) {
  fused_.kernel = std::move(id);
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::loader(const LoaderSettings& l) {
  loader_ = l;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::batch_size(size_t n) {
  loader_.batch_size = n;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::threads(int n) {
  loader_.threads = n;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::seed(uint64_t s) {
  loader_.seed = s;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::sample_size(int64_t h, int64_t w) {
  sample_size_ = Size2{h, w};
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::slots(size_t n) {
  loader_.slots = n;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::pinning(Pinning p, int cuda_device) {
  loader_.pinning = p;
  loader_.cuda_device = cuda_device;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::samples(size_t n) {
  loader_.samples = n;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::shuffle(bool on) {
  loader_.shuffle = on;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::shard(int rank, int world_size) {
  loader_.rank = rank;
  loader_.world = world_size;
  return *this;
}
PreprocessorBuilder& PreprocessorBuilder::decode_scale(bool on) {
  loader_.decode_scale = on;
  return *this;
}

PreprocessorBuilder& PreprocessorBuilder::crop_decode(bool on) {
  loader_.crop_decode = on;
  return *this;
}

PreprocessorBuilder& PreprocessorBuilder::train_transforms(
    std::vector<std::unique_ptr<PreprocessOp>> ops) {
  train_ = std::move(ops);
  return *this;
}

PreprocessorBuilder& PreprocessorBuilder::val_transforms(
    std::vector<std::unique_ptr<PreprocessOp>> ops) {
  val_ = std::move(ops);
  return *this;
}

PreprocessorBuilder& PreprocessorBuilder::setting_names(SettingNames names) {
  names_ = std::move(names);
  return *this;
}

PreprocessorBuilder& PreprocessorBuilder::batch_transform(const BatchOp& op) {
  batch_op_ = op.Clone();
  return *this;
}

PreprocessorBuilder& PreprocessorBuilder::batch_transform(
    std::unique_ptr<BatchOp> op) {
  batch_op_ = std::move(op);
  return *this;
}

PreprocessorBuilder& PreprocessorBuilder::targets(int64_t num_classes,
                                                  double label_smoothing) {
  num_classes_ = num_classes;
  label_smoothing_ = label_smoothing;
  return *this;
}

PreprocessorBuilder& PreprocessorBuilder::repeated_augmentations(int n) {
  loader_.repeats = n;
  return *this;
}

PreprocessorBuilder& PreprocessorBuilder::error_policy(ErrorPolicy p) {
  loader_.policy = p;
  return *this;
}

absl::StatusOr<std::shared_ptr<const Dataset>>
PreprocessorBuilder::OpenDatasetOnce() const {
  if (dataset_ != nullptr) return dataset_;
  if (dataset_kind_.empty()) return MakeSyntheticDataset(1024);
  FUSEDNORM_ASSIGN_OR_RETURN(std::unique_ptr<Dataset> d,
                             OpenDataset(dataset_kind_, dataset_path_));
  return std::shared_ptr<const Dataset>(std::move(d));
}

absl::Status PreprocessorBuilder::AddTargets(Chain* train) const {
  if (!(label_smoothing_ >= 0 && label_smoothing_ <= 1)) {
    return InvalidArgumentCat(names_.label_smoothing, " = ", label_smoothing_,
                              ": must be in [0, 1]");
  }
  if (num_classes_ < 0 || num_classes_ > kMaxClasses) {
    return InvalidArgumentCat(names_.num_classes, " = ", num_classes_,
                              ": must be in 0..", kMaxClasses,
                              " (0: labels, not soft targets)");
  }
  int64_t classes = num_classes_;
  if (batch_op_ != nullptr) {
    FUSEDNORM_RETURN_IF_ERROR(
        PrefixStatus(batch_op_->Validate(), names_.batch + ": "));
    const std::optional<int64_t> own = batch_op_->num_classes();
    if (own && classes != 0 && *own != classes) {
      return InvalidArgumentCat(names_.batch, ": ", batch_op_->name(),
                                " has num_classes = ", *own, " but ",
                                names_.num_classes, " = ", classes);
    }
    if (own) classes = *own;
    if (classes == 0) {
      return InvalidArgumentCat(names_.batch, ": ", batch_op_->name(),
                                " mixes labels into soft targets: set ",
                                names_.num_classes);
    }
    train->batch_op = batch_op_->Clone();
    FUSEDNORM_ASSIGN_OR_RETURN(train->mix_kernel, SelectMixKernel(""));
  }
  if (label_smoothing_ > 0 && classes == 0) {
    return InvalidArgumentCat(names_.label_smoothing, " = ", label_smoothing_,
                              " smooths soft targets: set ",
                              names_.num_classes);
  }
  // classes <= kMaxClasses (checked above, or by the batch op's Validate):
  // the product does not wrap.
  if (classes > 0 && loader_.batch_size >
                         kMaxTargetBytes / (4 * static_cast<size_t>(classes))) {
    return InvalidArgumentCat("num_classes = ", classes,
                              " with batch_size = ", loader_.batch_size,
                              ": a batch's soft targets would take more than ",
                              kMaxTargetBytes, " bytes");
  }
  train->num_classes = classes;
  train->label_smoothing = label_smoothing_;
  return absl::OkStatus();
}

absl::Status PreprocessorBuilder::CheckLabels(const Dataset& dataset,
                                              size_t samples,
                                              int64_t classes) const {
  if (classes == 0) return absl::OkStatus();  // labels, not soft targets
  const std::optional<int64_t> largest = dataset.LargestLabel(samples);
  if (!largest || *largest < classes) return absl::OkStatus();
  const std::string which =
      samples < dataset.size()
          ? absl::StrCat("the first ", samples, " samples of ", dataset.name(),
                         " have")
          : absl::StrCat(dataset.name(), " has");
  return InvalidArgumentCat(names_.num_classes, " = ", classes, " but ", which,
                            " labels up to ", *largest, ": soft targets need ",
                            names_.num_classes,
                            " >= ", static_cast<uint64_t>(*largest) + 1);
}

absl::StatusOr<Preprocessor> PreprocessorBuilder::Commit() {
  if (committed_) {
    return absl::FailedPreconditionError(
        "Commit() was already called on this builder");
  }
  committed_ = true;
  auto st = std::make_unique<Preprocessor::State>();
  FUSEDNORM_ASSIGN_OR_RETURN(st->dataset, OpenDatasetOnce());
  if (st->dataset->size() == 0)
    return InvalidArgumentCat("dataset ", st->dataset->name(), " is empty");
  if (loader_.samples > st->dataset->size()) {
    return InvalidArgumentCat(names_.images, " = ", loader_.samples,
                              " but the dataset ", st->dataset->name(), " has ",
                              st->dataset->size(), " samples");
  }
  FUSEDNORM_RETURN_IF_ERROR(loader_.Validate(0));
  ChainOptions options;
  options.base = fused_;
  options.sample_size = sample_size_;
  options.channels = st->dataset->channels();
  options.image_size = st->dataset->image_size();
  options.list_name = names_.train;
  FUSEDNORM_ASSIGN_OR_RETURN(st->train, BuildChain(train_, options));
  options.list_name = names_.val;
  options.allow_erase = false;
  FUSEDNORM_ASSIGN_OR_RETURN(st->val, BuildChain(val_, options));
  FUSEDNORM_RETURN_IF_ERROR(AddTargets(&st->train));
  FUSEDNORM_RETURN_IF_ERROR(
      CheckLabels(*st->dataset, loader_.epoch_samples(st->dataset->size()),
                  st->train.num_classes));
  FUSEDNORM_RETURN_IF_ERROR(
      CheckRepeats(loader_.repeats, loader_.epoch_samples(st->dataset->size()),
                   loader_.world));
  FUSEDNORM_RETURN_IF_ERROR(loader_.Validate(st->train.sample_bytes));
  FUSEDNORM_RETURN_IF_ERROR(loader_.Validate(st->val.sample_bytes));
  st->loader = loader_;
  if (st->loader.threads == 0) {
    st->loader.threads =
        std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }
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
Size2 Preprocessor::sample_size(Split s) const { return state_->chain(s).size; }
int Preprocessor::channels(Split s) const { return state_->chain(s).channels; }
std::vector<std::string> Preprocessor::op_names(Split s) const {
  std::vector<std::string> names;
  for (const auto& op : state_->chain(s).ops) names.push_back(op->op_name());
  return names;
}
size_t Preprocessor::sample_bytes(Split s) const {
  return state_->chain(s).sample_bytes;
}
int64_t Preprocessor::num_classes(Split s) const {
  return state_->chain(s).num_classes;
}
size_t Preprocessor::batch_size() const { return state_->loader.batch_size; }
size_t Preprocessor::samples_per_epoch() const {
  return state_->loader.epoch_samples(state_->dataset->size());
}
size_t Preprocessor::local_samples_per_epoch(Split split) const {
  return EpochOrder::LocalSamples(state_->Settings(split), samples_per_epoch());
}
int Preprocessor::threads() const { return state_->loader.threads; }
const Dataset& Preprocessor::dataset() const { return *state_->dataset; }
size_t Preprocessor::batches_per_epoch(Split split) const {
  return EpochOrder::LocalBatches(state_->Settings(split), samples_per_epoch());
}

LoaderSettings Preprocessor::loader_settings(Split split) const {
  return state_->Settings(split);
}

namespace {

// "Op(...) -> Op(...) -> `fused`", then " => " and the batch transform
// where the chain has one.
// `pixels`: each op as PixelName() gives it, else as name() does.
std::string ChainText(const Chain& c, const std::string& fused,
                      bool pixels = false) {
  std::vector<std::string> parts;
  for (const auto& op : c.ops)
    parts.push_back(pixels ? op->PixelName() : op->name());
  parts.push_back(fused);
  std::string out = absl::StrJoin(parts, " -> ");
  if (c.batch_op != nullptr) absl::StrAppend(&out, " => ", c.batch_op->name());
  return out;
}

}  // namespace

std::string Preprocessor::PixelRecipe(Split split) const {
  const Chain& c = state_->chain(split);
  const FusedNormalization& f = *c.fused;
  const auto floats = [](const std::vector<float>& v) {
    return absl::StrJoin(v, ",", [](std::string* out, float x) {
      absl::StrAppend(out, absl::StrFormat("%.9g", x));
    });
  };
  const EraseOptions& e = f.erase();
  std::string out = ChainText(
      c,
      absl::StrCat(
          "FusedNormalization(mean=", floats(f.normalization().mean),
          " std=", floats(f.normalization().std), " ", DTypeName(f.dtype()),
          " ", LayoutName(f.layout()), " ", ModeName(f.mode()),
          absl::StrFormat(" flip=%.17g erase=%d p=%.17g scale=%.17g,%.17g "
                          "ratio=%.17g,%.17g value=",
                          f.flip_p(), e.enabled, e.p, e.scale_min, e.scale_max,
                          e.ratio_min, e.ratio_max),
          floats(e.value), ")"),
      /*pixels=*/true);
  absl::StrAppend(&out, absl::StrFormat(" targets=%d,%.17g", c.num_classes,
                                        c.label_smoothing));
  return out;
}

std::string Preprocessor::Describe(Split split) const {
  const Chain& c = state_->chain(split);
  const FusedNormalization& f = *c.fused;
  std::string out = ChainText(
      c,
      absl::StrCat("FusedNormalization(", DTypeName(f.dtype()), " ",
                   LayoutName(f.layout()), " ", ModeName(f.mode()),
                   ", flip p=", f.flip_p(), ", erase ",
                   f.erase().enabled ? absl::StrCat("p=", f.erase().p) : "off",
                   ", kernel ", f.kernel_id(c.channels), ")"));
  if (c.num_classes > 0) {
    absl::StrAppend(&out, " => targets(num_classes=", c.num_classes,
                    ", label_smoothing=", c.label_smoothing, ")");
  }
  return out;
}

absl::StatusOr<std::unique_ptr<EpochLoader>> Preprocessor::StartEpoch(
    Split split, uint32_t epoch, uint64_t start, ReadAheadLinks links) const {
  const LoaderSettings settings = state_->Settings(split);
  const Chain& chain = state_->chain(split);
  FUSEDNORM_RETURN_IF_ERROR(settings.Validate(chain.sample_bytes));
  FUSEDNORM_ASSIGN_OR_RETURN(
      std::shared_ptr<TransferStation> station,
      state_->Station(settings.batch_size * chain.sample_bytes));
  return EpochLoader::Start(*state_->dataset, chain, settings, epoch,
                            std::move(station), start, links);
}

}  // namespace fusednorm
