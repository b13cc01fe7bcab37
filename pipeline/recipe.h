// The standard ImageNet-style recipe that `fusednorm run` and the Python
// Loader both offer, so that the two give the same batches for the same
// settings:
//
//   train: RandomResizedCrop(size), RandomHorizontalFlip(), RandomErasing(0.5)
//   val:   Resize(size * 256 / 224), CenterCrop(size)
//
// followed by the one FusedNormalization the Preprocessor appends.
#ifndef FUSEDNORM_PIPELINE_RECIPE_H_
#define FUSEDNORM_PIPELINE_RECIPE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/geometry.h"
#include "data/dataset.h"
#include "ops/fused_normalization.h"
#include "ops/resize.h"
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
  std::string dataset = "synthetic";  // a kind OpenDataset knows
  std::string path;
  Split split = Split::kTrain;  // val opens the dataset's test files
  Size2 size{224, 224};         // output height and width
  ResizeFilter resize_filter = ResizeFilter::kPil;  // the crops' resampling
  // Batch size, threads (0: all cores), seed, the epoch's samples (the
  // first N; 0: all), rank and world size, the error policy, reduced-size
  // JPEG decoding, pinning.
  LoaderSettings loader = DefaultRecipeLoader();
  uint32_t epoch = 0;  // the first epoch

  static LoaderSettings DefaultRecipeLoader();
};

// Largest output side of the recipe's crops.
inline constexpr int64_t kMaxCropSide = 4096;

// Opens the dataset the options name.
absl::StatusOr<std::shared_ptr<const Dataset>> OpenRecipeDataset(
    const RecipeOptions& options);

// The Preprocessor of the recipe over `dataset`; its errors are Commit()'s.
absl::StatusOr<Preprocessor> BuildRecipe(
    const RecipeOptions& options, std::shared_ptr<const Dataset> dataset);

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_RECIPE_H_
