// The standard recipe (recipe.h).
#include "pipeline/recipe.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "pipeline/shards.h"
#include "util/status_macros.h"

namespace fusednorm {
namespace {

// The first `n` samples of a dataset.
class Prefix : public Dataset {
 public:
  Prefix(std::shared_ptr<const Dataset> d, size_t n)
      : d_(std::move(d)), n_(n) {}
  std::string name() const override {
    return absl::StrCat(d_->name(), "[:", n_, "]");
  }
  size_t size() const override { return n_; }
  int channels() const override { return d_->channels(); }
  absl::StatusOr<Sample> Get(size_t i) const override { return d_->Get(i); }

 private:
  std::shared_ptr<const Dataset> d_;
  size_t n_;
};

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

absl::StatusOr<Split> ParseSplit(absl::string_view name) {
  if (name == "train") return Split::kTrain;
  if (name == "val") return Split::kVal;
  return InvalidArgumentCat("split \"", name, "\" is not one of train, val");
}

absl::StatusOr<ErrorPolicy> ParseErrorPolicy(absl::string_view name) {
  if (name == "fail") return ErrorPolicy::kFail;
  if (name == "skip") return ErrorPolicy::kSkip;
  return InvalidArgumentCat("on-error \"", name, "\" is not one of fail, skip");
}

absl::StatusOr<std::shared_ptr<const Dataset>> OpenRecipeDataset(
    const RecipeOptions& o) {
  if (o.images < 0)
    return InvalidArgumentCat("images = ", o.images, " must be >= 0");
  FUSEDNORM_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> data, OpenData(o));
  if (o.images > 0 && static_cast<size_t>(o.images) < data->size())
    data = std::make_shared<Prefix>(data, static_cast<size_t>(o.images));
  return data;
}

absl::StatusOr<Preprocessor> BuildRecipe(
    const RecipeOptions& o, std::shared_ptr<const Dataset> dataset) {
  if (o.size < 1 || o.size > 4096)
    return InvalidArgumentCat("size = ", o.size, " must be in 1..4096");
  if (o.batch < 1)
    return InvalidArgumentCat("batch = ", o.batch, " must be >= 1");
  const FusedNormalizationOptions& n = o.normalization;
  PreprocessorBuilder b;
  b.dataset(std::move(dataset))
      .dtype(n.dtype)
      .mode(n.mode)
      .kernel(n.kernel)
      .batch_size(o.batch)
      .threads(o.threads)
      .seed(o.seed)
      .shard(o.rank, o.world_size)
      .pinned(o.pinned)
      .error_policy(o.on_error)
      .decode_scale(o.decode_scale);
  if (n.layout) b.layout(*n.layout);
  if (n.mean.empty()) {
    b.normalization(n.preset);
  } else {
    b.normalization(n.mean, n.std);
  }
  b.train_transforms(RandomResizedCrop(o.size, 0.08, 1.0, 3.0 / 4.0, 4.0 / 3.0,
                                       o.resize_filter),
                     RandomHorizontalFlip(), RandomErasing(0.5))
      .val_transforms(Resize(o.size * 256 / 224, o.resize_filter),
                      CenterCrop(o.size));
  return b.Commit();
}

}  // namespace fusednorm
