// The standard recipe (recipe.h).
#include "pipeline/recipe.h"

#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/status.h"
#include "data/dataset.h"
#include "data/remote_url.h"
#include "data/shards.h"
#include "ops/op_table.h"
#include "pipeline/chain.h"

namespace fusednorm {

namespace {

// A data item written as a URL of a scheme that is not read ("file://",
// "ftp://") and no such path either: refused by name rather than looked
// for as a path.
absl::Status CheckScheme(const RecipeOptions& o) {
  for (absl::string_view item :
       absl::StrSplit(o.data, ',', absl::SkipEmpty())) {
    if (!HasUrlScheme(item) || IsRemotePath(item)) continue;
    struct stat st;
    if (stat(std::string(item).c_str(), &st) == 0) continue;
    return InvalidArgumentCat(
        o.names.data, " \"", ShownUrl(item),
        "\": ", item.substr(0, item.find("://")),
        ":// is not read; data is a local path (without file://), or an "
        "http://, https:// or s3:// URL");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckDataSettings(const RecipeOptions& o) {
  FUSEDNORM_RETURN_IF_ERROR(CheckScheme(o));
  if (IsShardSpec(o.data)) {  // a list or pattern that names no shard well
    FUSEDNORM_RETURN_IF_ERROR(ExpandShardSpec(o.data).status());
  }
  if (o.data.empty()) {
    FUSEDNORM_RETURN_IF_ERROR(CheckDatasetKind(o.dataset));
    if (DatasetReadsFiles(o.dataset) && o.path.empty()) {
      return InvalidArgumentCat(o.names.dataset, " ", o.dataset,
                                " reads its files from ", o.names.path,
                                ", which is not given");
    }
  }
  if (!o.cache.dir.empty() &&
      (o.data.empty() || !IsRemotePath(o.data.substr(0, o.data.find(','))))) {
    return InvalidArgumentCat(
        o.names.cache_dir, " \"", o.cache.dir,
        "\": only remote shards (http://, https://, s3:// data) are cached; "
        "local data is read in place");
  }
  return absl::OkStatus();
}

namespace {

// `data` (shards or an image folder), else `dataset` at `path`.
absl::StatusOr<std::unique_ptr<Dataset>> OpenData(
    const RecipeOptions& o, const std::atomic<bool>* cancel) {
  FUSEDNORM_RETURN_IF_ERROR(CheckDataSettings(o));
  if (o.data.empty())
    return OpenDataset(o.dataset, o.path, o.split == Split::kVal);
  if (!IsShardSpec(o.data)) {
    absl::StatusOr<std::unique_ptr<Dataset>> folder = OpenImageFolder(o.data);
    const std::vector<std::string>& kinds = DatasetKinds();
    if (!folder.ok() && absl::IsNotFound(folder.status()) &&
        std::find(kinds.begin(), kinds.end(), o.data) != kinds.end()) {
      // data = "synthetic": the built-in datasets are `dataset`'s.
      return absl::NotFoundError(
          absl::StrCat("data = \"", o.data, "\": no such folder or shards (",
                       folder.status().message(),
                       "); the built-in datasets are set with "
                       "dataset (--dataset): dataset = \"",
                       o.data, "\""));
    }
    return folder;
  }
  FUSEDNORM_ASSIGN_OR_RETURN(const std::vector<std::string> paths,
                             ExpandShardSpec(o.data));
  return OpenShards(paths, o.cache, cancel);
}

// The standard lists: RandomResizedCrop(size), flip, RandomErasing(0.5) for
// training; the shorter side resized to 256/224 of the longer output side,
// then the central size, for validation.
void StandardLists(const RecipeOptions& o, RecipeLists* lists) {
  const int64_t longer = std::max(o.size.height, o.size.width);
  if (o.train_transforms.empty()) {
    lists->train.push_back(std::make_unique<RandomResizedCrop>(
        o.size, 0.08, 1.0, 3.0 / 4.0, 4.0 / 3.0, o.resize_filter));
    lists->train.push_back(std::make_unique<RandomHorizontalFlip>());
    lists->train.push_back(std::make_unique<RandomErasing>(0.5));
  }
  if (o.val_transforms.empty()) {
    lists->val.push_back(
        std::make_unique<Resize>(longer * 256 / 224, o.resize_filter));
    lists->val.push_back(
        std::make_unique<CenterCrop>(o.size.height, o.size.width));
  }
}

// Reads the Normalize ops of `list` (they stay in it: the chain checks
// where they stand): their mean and std go to `norm`, which must agree
// with any read before (or given as settings). A list that writes out its
// tail (ToTensor) without a Normalize gives ToTensor's [0, 1] values, as
// torchvision does: mean 0 and std 1, unless the settings were given.
// `taken` says what the normalization was read from ("" for nothing yet).
absl::Status TakeNormalize(const std::string& list_name, bool given,
                           std::vector<std::unique_ptr<PreprocessOp>>* list,
                           FusedNormalizationOptions* norm,
                           std::string* taken) {
  std::string first;  // where this list's Normalize is, once read
  for (size_t i = 0; i < list->size(); ++i) {
    const auto* normalize = dynamic_cast<const Normalize*>((*list)[i].get());
    if (normalize == nullptr) continue;
    const std::string where =
        absl::StrCat(list_name, " position ", i, " (", normalize->name(), ")");
    if (!first.empty()) {  // the chain refuses it too, whatever its values
      return InvalidArgumentCat(where, ": a second Normalize (the first is at ",
                                first,
                                "); torchvision would normalize twice, "
                                "fusednorm normalizes once: give one "
                                "Normalize");
    }
    if ((given || !taken->empty()) && !normalize->AgreesWith(*norm)) {
      return InvalidArgumentCat(
          where, ": ",
          given ? "the normalization settings (preset, mean, std) say "
                  "otherwise"
                : absl::StrCat(*taken, " says otherwise"),
          "; give the normalization once");
    }
    normalize->FuseInto(norm);
    first = absl::StrCat(list_name, " position ", i);
    *taken = absl::StrCat("the Normalize at ", first);
  }
  if (!first.empty() || given) return absl::OkStatus();
  for (size_t i = 0; i < list->size(); ++i) {
    const PreprocessOp& op = *(*list)[i];
    if (op.fused_part() != PreprocessOp::FusedPart::kToTensor) continue;
    const Normalize unit({0.0}, {1.0});
    const std::string where = absl::StrCat(list_name, " position ", i, " (",
                                           op.name(), ") with no Normalize");
    if (!taken->empty() && !unit.AgreesWith(*norm)) {
      return InvalidArgumentCat(
          where, ": torchvision's values in [0, 1], where ", *taken,
          " normalizes the other split; the splits share one normalization: "
          "give both lists the same Normalize");
    }
    unit.FuseInto(norm);
    *taken = where;
    break;
  }
  return absl::OkStatus();
}

// Checks that the list's output size is known before a sample is read
// (the builder's sample_size has no setting here: pipeline/chain.h's
// ListOutputSize, from `image_size`), within the recipe's limit.
absl::Status CheckSize(const std::string& list_name,
                       const std::vector<std::unique_ptr<PreprocessOp>>& list,
                       std::optional<Size2> image_size) {
  const absl::StatusOr<std::optional<ListSize>> listed =
      ListOutputSize(list, image_size);
  if (!listed.ok()) return PrefixStatus(listed.status(), list_name + " ");
  const std::optional<ListSize>& fixed = *listed;
  if (!fixed) {
    return InvalidArgumentCat(list_name,
                              ": no transform fixes the output size (end the "
                              "list with a crop or an exact Resize)");
  }
  const Size2 f = fixed->size;
  if (f.height > kMaxCropSide || f.width > kMaxCropSide) {
    const std::string where =
        fixed->position == ListSize::kDatasetSize
            ? " (the dataset's images)"
            : absl::StrCat(" position ", fixed->position, " (",
                           list[fixed->position]->name(), ")");
    return InvalidArgumentCat(list_name, where, ": samples of ", f.height, "x",
                              f.width, " are too large: sides must be in 1..",
                              kMaxCropSide);
  }
  return absl::OkStatus();
}

// MakeRecipeLists but for the lists' output sizes, which may need the
// dataset's image size.
absl::StatusOr<RecipeLists> MakeUnsizedLists(const RecipeOptions& o) {
  if (o.size.height < 1 || o.size.width < 1 || o.size.height > kMaxCropSide ||
      o.size.width > kMaxCropSide) {
    return InvalidArgumentCat("size = ", o.size.height, "x", o.size.width,
                              ": sides must be in 1..", kMaxCropSide);
  }
  if (o.size_given && !o.train_transforms.empty() &&
      !o.val_transforms.empty()) {
    return InvalidArgumentCat("size sets the standard lists' size; ",
                              o.names.train, " and ", o.names.val,
                              " fix their own: give one or the other");
  }
  RecipeLists lists;
  lists.normalization = o.normalization;
  const OpContext context{o.resize_filter};
  if (!o.train_transforms.empty()) {
    FUSEDNORM_ASSIGN_OR_RETURN(
        lists.train,
        MakeTransforms(o.train_transforms, o.names.train, context));
  }
  if (!o.val_transforms.empty()) {
    FUSEDNORM_ASSIGN_OR_RETURN(
        lists.val, MakeTransforms(o.val_transforms, o.names.val, context));
  }
  StandardLists(o, &lists);
  std::string taken;
  FUSEDNORM_RETURN_IF_ERROR(TakeNormalize(o.names.train, o.normalization_given,
                                          &lists.train, &lists.normalization,
                                          &taken));
  FUSEDNORM_RETURN_IF_ERROR(TakeNormalize(o.names.val, o.normalization_given,
                                          &lists.val, &lists.normalization,
                                          &taken));
  if (!o.batch_transforms.empty()) {
    FUSEDNORM_ASSIGN_OR_RETURN(
        std::vector<std::unique_ptr<BatchOp>> batch,
        MakeBatchTransforms(o.batch_transforms, o.names.batch, context));
    if (batch.size() > 1) {
      return InvalidArgumentCat(
          o.names.batch, " has ", batch.size(),
          " transforms: give one (RandomChoice([...]) picks among several)");
    }
    if (!batch.empty()) lists.batch = std::move(batch[0]);
  }
  return lists;
}

}  // namespace

absl::StatusOr<RecipeLists> MakeRecipeLists(const RecipeOptions& o,
                                            std::optional<Size2> image_size) {
  FUSEDNORM_ASSIGN_OR_RETURN(RecipeLists lists, MakeUnsizedLists(o));
  FUSEDNORM_RETURN_IF_ERROR(CheckSize(o.names.train, lists.train, image_size));
  FUSEDNORM_RETURN_IF_ERROR(CheckSize(o.names.val, lists.val, image_size));
  return lists;
}

absl::Status CheckRecipeLists(const RecipeOptions& o) {
  return MakeUnsizedLists(o).status();
}

LoaderSettings RecipeOptions::DefaultRecipeLoader() {
  LoaderSettings l;
  l.batch_size = 64;
  l.threads = 0;  // all cores
  return l;
}

absl::StatusOr<std::shared_ptr<const Dataset>> OpenRecipeDataset(
    const RecipeOptions& o, const std::atomic<bool>* cancel) {
  FUSEDNORM_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> data,
                             OpenData(o, cancel));
  return data;
}

absl::StatusOr<Preprocessor> BuildRecipe(
    const RecipeOptions& o, std::shared_ptr<const Dataset> dataset) {
  FUSEDNORM_ASSIGN_OR_RETURN(RecipeLists lists,
                             MakeRecipeLists(o, dataset->image_size()));
  const FusedNormalizationOptions& n = lists.normalization;
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
  // A list the user did not give is not theirs to fix: named as the default.
  SettingNames names = o.names;
  if (o.train_transforms.empty())
    names.train =
        absl::StrCat("the default train list (", names.train, " not given)");
  if (o.val_transforms.empty())
    names.val =
        absl::StrCat("the default val list (", names.val, " not given)");
  b.train_transforms(std::move(lists.train))
      .val_transforms(std::move(lists.val))
      .targets(o.num_classes, o.label_smoothing)
      .setting_names(std::move(names));
  if (lists.batch != nullptr) b.batch_transform(std::move(lists.batch));
  return b.Commit();
}

}  // namespace fusednorm
