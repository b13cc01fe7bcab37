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
#include "ops/fused_normalization.h"
#include "ops/resize.h"
#include "pipeline/dataset.h"
#include "pipeline/preprocessor.h"

namespace fusednorm {

struct RecipeOptions {
  // Normalization, dtype, layout, mode and kernel (flip and erase are the
  // recipe's).
  FusedNormalizationOptions normalization;
  // Shards (a .tar, a list, a brace pattern: pipeline/shards.h) or an image
  // folder; when empty, `dataset` at `path`.
  std::string data;
  std::string dataset = "synthetic";  // a kind OpenDataset knows
  std::string path;
  Split split = Split::kTrain;  // val opens the dataset's test files
  int64_t images = 512;         // the first N samples; 0: all
  int64_t batch = 64;
  int threads = 0;  // 0: all cores
  uint64_t seed = 0;
  int64_t size = 224;                               // output height and width
  ResizeFilter resize_filter = ResizeFilter::kPil;  // the crops' resampling
  ErrorPolicy on_error = ErrorPolicy::kFail;  // a sample that cannot be read
  bool decode_scale = false;  // reduced-size JPEG decoding (other pixels)
  int rank = 0, world_size = 1;
  bool pinned = false;
};

// "train" or "val"; else InvalidArgument naming the value.
absl::StatusOr<Split> ParseSplit(absl::string_view name);

// "fail" or "skip"; else InvalidArgument naming the value.
absl::StatusOr<ErrorPolicy> ParseErrorPolicy(absl::string_view name);

// Opens the dataset the options name, cut to its first `images` samples.
absl::StatusOr<std::shared_ptr<const Dataset>> OpenRecipeDataset(
    const RecipeOptions& options);

// The Preprocessor of the recipe over `dataset`; its errors are Commit()'s.
absl::StatusOr<Preprocessor> BuildRecipe(
    const RecipeOptions& options, std::shared_ptr<const Dataset> dataset);

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_RECIPE_H_
