// The recipe `fusednorm run` and the Python Loader both build from their
// settings, so that the two give the same batches for the same settings:
// the transform lists the user wrote (ops/transform_list.h's grammar), or
// where a list is not given the standard ImageNet-style one
//
//   train: RandomResizedCrop(size), RandomHorizontalFlip(), RandomErasing(0.5)
//   val:   Resize(size * 256 / 224), CenterCrop(size)
//
// followed by the one FusedNormalization the Preprocessor appends, and for
// training the batch transform and soft targets. A Normalize in a list
// sets the normalization (the lists and the settings must then agree).
#ifndef FUSEDNORM_PIPELINE_RECIPE_H_
#define FUSEDNORM_PIPELINE_RECIPE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/geometry.h"
#include "data/dataset.h"
#include "data/shard_cache.h"
#include "ops/batch_ops.h"
#include "ops/fused_normalization.h"
#include "ops/resize.h"
#include "ops/transforms.h"
#include "pipeline/epoch_loader.h"
#include "pipeline/preprocessor.h"

namespace fusednorm {

struct RecipeOptions {
  // Normalization, dtype, layout, mode and kernel (flip and erase are the
  // recipe's).
  FusedNormalizationOptions normalization;
  // Shards (a .tar, a list, a brace pattern: data/shards.h) or an image
  // folder; when empty, `dataset` at `path`.
  std::string data;
  ShardCacheOptions cache;            // remote shards' local cache
  std::string dataset = "synthetic";  // a kind OpenDataset knows
  std::string path;
  Split split = Split::kTrain;  // val opens the dataset's test files
  Size2 size{224, 224};         // the standard lists' output height, width
  ResizeFilter resize_filter = ResizeFilter::kPil;  // the crops' resampling
  // Transform lists (empty: the standard one of that split), the training
  // split's batch transform list (empty: none), and its soft targets.
  std::string train_transforms, val_transforms, batch_transforms;
  int64_t num_classes = 0;  // 0: labels
  double label_smoothing = 0;
  // Whether size and the normalization (preset, mean, std) were given:
  // size then may not go with lists, and a list's Normalize must agree.
  bool size_given = false, normalization_given = false;
  // How errors name the settings: as the user gave them
  // (--train-transforms or train_transforms).
  SettingNames names;
  // Batch size, threads (0: all cores), seed, the epoch's samples (the
  // first N; 0: all), rank and world size, the error policy, reduced-size
  // JPEG decoding, pinning.
  LoaderSettings loader = DefaultRecipeLoader();
  uint32_t epoch = 0;  // the first epoch

  static LoaderSettings DefaultRecipeLoader();
};

// Largest output side of the recipe's crops.
inline constexpr int64_t kMaxCropSide = 4096;

// Checks the data settings together, before any file is opened: shards
// listed or patterned well, a dataset kind that reads files needs a path,
// and a cache directory remote data.
absl::Status CheckDataSettings(const RecipeOptions& o);

// Opens the dataset the options name (CheckDataSettings first). Remote
// shards' requests stop once *cancel is true (null: never), and the open
// then fails (Cancelled).
absl::StatusOr<std::shared_ptr<const Dataset>> OpenRecipeDataset(
    const RecipeOptions& options, const std::atomic<bool>* cancel = nullptr);

// The recipe's lists as ops: each split's (the standard one where not
// given), the batch transform (or null), and the normalization with any
// Normalize of the lists in it. Errors name the list, the position and the
// op. A list's output size must be known before a sample is read
// (pipeline/chain.h's ListOutputSize, from `image_size`: the dataset's
// images', when they share one).
struct RecipeLists {
  std::vector<std::unique_ptr<PreprocessOp>> train, val;
  std::unique_ptr<BatchOp> batch;
  FusedNormalizationOptions normalization;
};
absl::StatusOr<RecipeLists> MakeRecipeLists(
    const RecipeOptions& options,
    std::optional<Size2> image_size = std::nullopt);

// MakeRecipeLists' checks that need no dataset (every op and argument, the
// lists' grammar and order; not their output sizes), so that a bad list is
// reported before a missing or slow dataset is opened.
absl::Status CheckRecipeLists(const RecipeOptions& options);

// The Preprocessor of the recipe over `dataset`; its errors are
// MakeRecipeLists' and Commit()'s.
absl::StatusOr<Preprocessor> BuildRecipe(
    const RecipeOptions& options, std::shared_ptr<const Dataset> dataset);

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_RECIPE_H_
