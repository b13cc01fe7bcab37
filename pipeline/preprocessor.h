// Preprocessor: the training-loader pipeline around FusedNormalization.
//
//   absl::StatusOr<Preprocessor> p =
//       PreprocessorBuilder()
//           .dataset(MakeSyntheticDataset(1024))
//           .normalization(Preset::kImagenet)
//           .train_transforms(RandomResizedCrop(224), RandomHorizontalFlip(),
//                             RandomErasing(0.5))
//           .val_transforms(Resize(256), CenterCrop(224))
//           .batch_size(64)
//           .threads(8)
//           .seed(1)
//           .Commit();
//   auto epoch = p->StartEpoch(Split::kTrain, /*epoch=*/0);
//   for (;;) {
//     absl::StatusOr<BatchRef> batch = (*epoch)->Next();
//     if (!batch.ok() || *batch == nullptr) break;
//     ...
//   }
//
// Commit() keeps each list's real ops in order and appends ONE
// FusedNormalization that does the fused ops' work (erasing, the last
// horizontal flip where what follows it commutes with it: pipeline/
// chain.h; erasing is refused in val); the training split then runs the
// batch transform (MixUp, CutMix) and makes soft targets. Each sample's
// random decisions come from the stream (seed, epoch, sample index), and a
// batch's from (seed, epoch, batch number), so batches are byte-identical
// for any thread count,
// and a sharded run (rank, world size) delivers exactly the single-process
// batches whose global batch number is rank modulo world size, every rank
// as many (LoaderSettings::drop_last says how). The epochs
// themselves run in pipeline/epoch_loader.h.
#ifndef FUSEDNORM_PIPELINE_PREPROCESSOR_H_
#define FUSEDNORM_PIPELINE_PREPROCESSOR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/names.h"
#include "data/dataset.h"
#include "ops/batch_ops.h"
#include "ops/fused_normalization.h"
#include "ops/transforms.h"
#include "pipeline/epoch_loader.h"

namespace fusednorm {

struct Chain;  // pipeline/chain.h

// Most bytes one batch's soft targets (float32) may take.
inline constexpr size_t kMaxTargetBytes = size_t{1} << 31;

enum class Split { kTrain, kVal };

// train, val.
absl::Span<const Named<Split>> SplitNames();

// How errors name what the user set: the keywords (C++ and Python) by
// default, the flags on the command line.
struct SettingNames {
  std::string train = "train_transforms", val = "val_transforms",
              batch = "batch_transforms", num_classes = "num_classes",
              label_smoothing = "label_smoothing", dataset = "dataset",
              path = "path", cache_dir = "cache_dir", images = "images",
              data = "data";
};

class Preprocessor {
 public:
  // Defined where State is complete, so that users can move it.
  Preprocessor(Preprocessor&&);
  Preprocessor& operator=(Preprocessor&&);
  ~Preprocessor();

  // Starts an epoch's workers. The loader must not outlive the Preprocessor.
  // Every epoch fills the Preprocessor's pool of transfer slots: the first
  // maps (and pins or registers) them, later ones reuse them; between
  // epochs the pool keeps slots + 1 (transfer_station.h's EndUse).
  // With `start` > 0 the epoch resumes after that many of its batches
  // (over all ranks): EpochLoader::Start. `links`: ReadAheadLinks.
  absl::StatusOr<std::unique_ptr<EpochLoader>> StartEpoch(
      Split split, uint32_t epoch, uint64_t start = 0,
      ReadAheadLinks links = {}) const;

  // The transform chain of a split, e.g. "RandomResizedCrop(size=(224,
  // 224), ...) -> FusedNormalization(float32 hwc fast, flip p=0.5, ...)",
  // and its batch transform after " => " where it has one.
  std::string Describe(Split split) const;
  // A split's transforms as text, every parameter that changes pixels
  // written out: each op, the fused op's settings (its kernel aside), the
  // batch transform and the targets. What a resume state digests
  // (pipeline/resume_state.h); the loader settings that change the order
  // or the pixels (seed, batch size, shuffle, repeats, reduced-size
  // decoding, the epoch's samples) it keeps by name.
  std::string PixelRecipe(Split split) const;
  // The loader settings a split's epochs run with.
  LoaderSettings loader_settings(Split split) const;
  const FusedNormalization& fused(Split split) const;
  // The class names of a split's real ops, in chain order (what the
  // epoch loader's per-op stage times are for).
  std::vector<std::string> op_names(Split split) const;
  // A split's samples: size, channels and bytes (the splits' may differ).
  Size2 sample_size(Split split) const;
  int channels(Split split) const;
  size_t sample_bytes(Split split) const;
  // The soft targets' classes of a split (0: it hands out labels).
  int64_t num_classes(Split split) const;
  size_t batch_size() const;
  int threads() const;
  const Dataset& dataset() const;
  // Batches of a split's epoch for this rank.
  size_t batches_per_epoch(Split split) const;
  // Samples of an epoch, over all ranks (the dataset's first `samples`), and
  // those of this rank's batches of a split (with repeated augmentations,
  // training's differ).
  size_t samples_per_epoch() const;
  size_t local_samples_per_epoch(Split split) const;

 private:
  friend class PreprocessorBuilder;
  struct State;
  explicit Preprocessor(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

class PreprocessorBuilder {
 public:
  PreprocessorBuilder();
  ~PreprocessorBuilder();
  PreprocessorBuilder(PreprocessorBuilder&&);
  PreprocessorBuilder& operator=(PreprocessorBuilder&&);

  PreprocessorBuilder& dataset(std::shared_ptr<const Dataset> dataset);
  // Opens a dataset by kind ("synthetic", "folder", "mnist", "cifar10") at
  // Commit().
  PreprocessorBuilder& dataset(std::string kind, std::string path);
  PreprocessorBuilder& normalization(Preset preset);
  PreprocessorBuilder& normalization(std::vector<float> mean,
                                     std::vector<float> std);
  PreprocessorBuilder& mode(Mode mode);
  // amp(true) selects float16 output (HWC4 unless a layout is set).
  PreprocessorBuilder& amp(bool on);
  PreprocessorBuilder& dtype(DType dtype);
  PreprocessorBuilder& layout(Layout layout);

  // Copies of the ops are kept: the caller's objects are not modified.
  template <typename... Ops>
  PreprocessorBuilder& train_transforms(const Ops&... ops) {
    train_.clear();
    (train_.push_back(ops.Clone()), ...);
    return *this;
  }
  template <typename... Ops>
  PreprocessorBuilder& val_transforms(const Ops&... ops) {
    val_.clear();
    (val_.push_back(ops.Clone()), ...);
    return *this;
  }
  // Lists as the op table makes them (ops/op_table.h).
  PreprocessorBuilder& train_transforms(
      std::vector<std::unique_ptr<PreprocessOp>> ops);
  PreprocessorBuilder& val_transforms(
      std::vector<std::unique_ptr<PreprocessOp>> ops);
  // The training split's batch transform (one; RandomChoice for
  // alternatives), run on each batch after the fused op.
  PreprocessorBuilder& batch_transform(const BatchOp& op);
  PreprocessorBuilder& batch_transform(std::unique_ptr<BatchOp> op);
  // Soft targets for the training split: float32 (batch, num_classes),
  // one-hot, mixed as the batch transform mixes the images, smoothed by
  // label_smoothing in [0, 1]. num_classes 0: labels as they are (a batch
  // transform then needs num_classes from here or from itself).
  PreprocessorBuilder& targets(int64_t num_classes,
                               double label_smoothing = 0.0);

  // Every loader setting at once (epoch_loader.h), replacing batch_size,
  // threads, seed, slots, pinning, shuffle, shard, error_policy, crop_decode
  // and decode_scale.
  PreprocessorBuilder& loader(const LoaderSettings& settings);
  PreprocessorBuilder& batch_size(size_t n);
  // 0 (the default): std::thread::hardware_concurrency().
  PreprocessorBuilder& threads(int n);
  PreprocessorBuilder& seed(uint64_t seed);
  PreprocessorBuilder& kernel(std::string id);
  // Output size when no transform fixes it (no crop at the end of the chain).
  PreprocessorBuilder& sample_size(int64_t height, int64_t width);
  // TransferStation slots in flight (2: double buffering).
  PreprocessorBuilder& slots(size_t n);
  // How slots are page-locked (pipeline/transfer_station.h); kCuda
  // registers them with the primary context of `cuda_device`.
  PreprocessorBuilder& pinning(Pinning p, int cuda_device = 0);
  PreprocessorBuilder& shuffle(bool on);
  // An epoch is the dataset's first `n` samples (0, the default: all).
  PreprocessorBuilder& samples(size_t n);
  PreprocessorBuilder& shard(int rank, int world_size);
  PreprocessorBuilder& error_policy(ErrorPolicy policy);
  // torchvision's RASampler for the training split: each sample `n` times
  // an epoch, dealt to different ranks, each repeat with its own
  // decisions (pipeline/epoch_order.h); 1 (the default): off.
  PreprocessorBuilder& repeated_augmentations(int n);
  // Whether JPEGs are decoded only over the first op's window (default on;
  // byte-identical batches either way: pipeline/real_ops.h).
  PreprocessorBuilder& crop_decode(bool on);
  // Decodes JPEGs at 1/2, 1/4 or 1/8 of their size when the crop is that
  // many times the output size: faster, but other pixels (off by default).
  PreprocessorBuilder& decode_scale(bool on);

  // How errors name the settings (the command line names them by its flags).
  PreprocessorBuilder& setting_names(SettingNames names);

  // Validates everything and builds the chains; a second call is
  // FailedPrecondition.
  absl::StatusOr<Preprocessor> Commit();

 private:
  // The dataset given, or the one named, or the default synthetic one.
  absl::StatusOr<std::shared_ptr<const Dataset>> OpenDatasetOnce() const;
  // Checks the batch transform and the targets and adds them to `train`.
  absl::Status AddTargets(Chain* train) const;
  // InvalidArgument if the first `samples` of `dataset` have a label that
  // soft targets of `classes` (> 0) cannot hold, where the dataset knows its
  // labels before reading (Dataset::LargestLabel): refused here, not after
  // half an epoch.
  absl::Status CheckLabels(const Dataset& dataset, size_t samples,
                           int64_t classes) const;

  std::shared_ptr<const Dataset> dataset_;
  std::string dataset_kind_, dataset_path_;
  // Normalization, dtype, layout, mode and kernel; each chain adds its flip
  // and erase.
  FusedNormalizationOptions fused_;
  std::vector<std::unique_ptr<PreprocessOp>> train_, val_;
  SettingNames names_;
  std::unique_ptr<BatchOp> batch_op_;
  int64_t num_classes_ = 0;
  double label_smoothing_ = 0.0;
  std::optional<Size2> sample_size_;
  LoaderSettings loader_;  // threads 0 until Commit: all cores
  bool committed_ = false;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_PREPROCESSOR_H_
