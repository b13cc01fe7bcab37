// The standard recipe (recipe.h).
#include "pipeline/recipe.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "data/shards.h"

namespace fusednorm {
namespace {

// `data` (shards or an image folder), else `dataset` at `path`.
absl::StatusOr<std::unique_ptr<Dataset>> OpenData(const RecipeOptions& o) {
  if (o.data.empty())
    return OpenDataset(o.dataset, o.path, o.split == Split::kVal);
  if (!IsShardSpec(o.data)) return OpenImageFolder(o.data);
  FUSEDNORM_ASSIGN_OR_RETURN(const std::vector<std::string> paths,
                             ExpandShardSpec(o.data));
  return OpenShards(paths);
}

}  // namespace

LoaderSettings RecipeOptions::DefaultRecipeLoader() {
  LoaderSettings l;
  l.batch_size = 64;
  l.threads = 0;  // all cores
  return l;
}

absl::StatusOr<std::shared_ptr<const Dataset>> OpenRecipeDataset(
    const RecipeOptions& o) {
  FUSEDNORM_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> data, OpenData(o));
  return data;
}

absl::StatusOr<Preprocessor> BuildRecipe(
    const RecipeOptions& o, std::shared_ptr<const Dataset> dataset) {
  if (o.size.height < 1 || o.size.width < 1 || o.size.height > kMaxCropSide ||
      o.size.width > kMaxCropSide) {
    return InvalidArgumentCat("size = ", o.size.height, "x", o.size.width,
                              ": sides must be in 1..", kMaxCropSide);
  }
  const FusedNormalizationOptions& n = o.normalization;
  // The validation crop: the shorter side resized to 256/224 of the longer
  // output side, then the central size.height x size.width.
  const int64_t longer = std::max(o.size.height, o.size.width);
  PreprocessorBuilder b;
  b.dataset(std::move(dataset))
      .dtype(n.dtype)
      .mode(n.mode)
      .kernel(n.kernel)
      .loader(o.loader);
  if (n.layout) b.layout(*n.layout);
  if (n.mean.empty()) {
    b.normalization(n.preset);
  } else {
    b.normalization(n.mean, n.std);
  }
  b.train_transforms(RandomResizedCrop(o.size, 0.08, 1.0, 3.0 / 4.0, 4.0 / 3.0,
                                       o.resize_filter),
                     RandomHorizontalFlip(), RandomErasing(0.5))
      .val_transforms(Resize(longer * 256 / 224, o.resize_filter),
                      CenterCrop(o.size.height, o.size.width));
  return b.Commit();
}

}  // namespace fusednorm
