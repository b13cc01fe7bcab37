// The recipe's setting rows and their reading (recipe_settings.h).
#include "pipeline/recipe_settings.h"

#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "data/dataset.h"
#include "ops/op_settings.h"
#include "ops/resize.h"
#include "pipeline/epoch_loader.h"
#include "pipeline/epoch_order.h"
#include "pipeline/preprocessor.h"

namespace fusednorm {
namespace {

const RecipeOptions kDefaults;

// Largest batch the settings accept (the batch's bytes are checked too).
constexpr int64_t kMaxBatchSize = int64_t{1} << 24;

}  // namespace

const Setting kDataSetting{
    "data", SettingType::kText, "",
    "an image folder (class sub-folders of JPEG/PNG files) or WebDataset "
    "shards: a.tar,b.tar or train-{000000..000146}.tar; else --dataset"};
const Setting kCacheDirSetting{
    "cache_dir", SettingType::kText, "",
    "a local directory keeping whole remote shards for later reads and runs "
    "(http://, https://, s3:// --data only)"};
const Setting kCacheBytesSetting{
    "cache_bytes", SettingType::kText, "0",
    "the most bytes of this data's copies cache_dir holds, with K, M or G "
    "(powers of 1024); when full, the shard whose next use is furthest away "
    "goes (0: no bound). Copies of other data or versions are left there"};
const Setting kDatasetSetting{
    "dataset", SettingType::kChoice, kDefaults.dataset,
    "a built-in dataset kind (with --path)", DatasetKinds()};
const Setting kPathSetting{"path", SettingType::kText, "",
                           "directory of the --dataset files"};
const Setting kSplitSetting{
    "split", SettingType::kChoice, NameOf(SplitNames(), kDefaults.split),
    "train (random crops) or val (center crops)", Choices(SplitNames())};
const Setting kImagesSetting{
    "images",
    SettingType::kInt,
    absl::StrCat(kDefaults.loader.samples),
    "use the first N samples of the dataset (0: all; no more than it has)",
    {},
    0};
const Setting kBatchSizeSetting{"batch_size",
                                SettingType::kInt,
                                absl::StrCat(kDefaults.loader.batch_size),
                                "samples per batch",
                                {},
                                1,
                                static_cast<double>(kMaxBatchSize)};
const Setting kThreadsSetting{"threads",
                              SettingType::kInt,
                              absl::StrCat(kDefaults.loader.threads),
                              "worker threads (0: all cores)",
                              {},
                              0,
                              kMaxThreads};
const Setting kEpochSetting{
    "epoch",
    SettingType::kInt,
    absl::StrCat(kDefaults.epoch),
    "the first epoch's number (decisions depend on it)",
    {},
    0,
    static_cast<double>(std::numeric_limits<uint32_t>::max())};
const Setting kSizeSetting{"size",
                           SettingType::kSize,
                           absl::StrCat(kDefaults.size.height),
                           "output size N (square) or H,W",
                           {},
                           1,
                           kMaxCropSide};
const Setting kResizeFilterSetting{
    "resize_filter", SettingType::kChoice,
    ResizeFilterName(kDefaults.resize_filter),
    "pil: Pillow's bits (torchvision's PIL route); tensor: torchvision's "
    "tensor route; bilinear: no antialiasing",
    Choices(ResizeFilterNames())};
const Setting kOnErrorSetting{
    "on_error", SettingType::kChoice,
    NameOf(ErrorPolicyNames(), kDefaults.loader.policy),
    "fail: stop at the first sample that cannot be read; skip: zero-fill "
    "it in its batch (label -1) and list it",
    Choices(ErrorPolicyNames())};
const Setting kDecodeScaleSetting{
    "decode_scale", SettingType::kBool, "false",
    "decode JPEGs at 1/2, 1/4 or 1/8 size when the crop allows (faster; "
    "other pixels)"};
const Setting kRankSetting{
    "rank",
    SettingType::kInt,
    "0",
    "this process's rank among world_size",
    {},
    0,
    static_cast<double>(std::numeric_limits<int>::max())};
const Setting kWorldSizeSetting{
    "world_size",
    SettingType::kInt,
    "1",
    "processes sharing each epoch",
    {},
    1,
    static_cast<double>(std::numeric_limits<int>::max())};
const Setting kDropLastSetting{
    "drop_last", SettingType::kBool, "false",
    "with world_size > 1: drop the last round's incomplete batches instead "
    "of padding the ranks that are a batch short (every rank gets as many "
    "batches either way)"};
const Setting kPinnedSetting = [] {
  Setting s{"pinned", SettingType::kChoice,
            NameOf(PinningNames(), kDefaults.loader.pinning),
            "page-lock the transfer slots: mlock (the OS will not swap "
            "them), or cuda (registered with the CUDA driver, for every "
            "context of the process: host-to-device copies from them are "
            "direct and asynchronous; needs an NVIDIA driver); an error if "
            "the OS or the driver refuses",
            Choices(PinningNames())};
  s.aliases = {{"false", "none"}, {"true", "mlock"}};  // once a bool
  return s;
}();
const Setting kCudaDeviceSetting{
    "cuda_device",
    SettingType::kInt,
    absl::StrCat(kDefaults.loader.cuda_device),
    "the CUDA device whose primary context registers the slots (pinned = "
    "cuda) and receives device copies",
    {},
    0,
    kMaxCudaDevice};

const Setting kTrainTransformsSetting{
    "train_transforms", SettingType::kText, "",
    "the training split's transforms, as torchvision's are written: "
    "'RandomResizedCrop(176), RandomHorizontalFlip(), RandomErasing(0.1)' "
    "(the transforms below; default: RandomResizedCrop(size), "
    "RandomHorizontalFlip(), RandomErasing(0.5))"};
const Setting kValTransformsSetting{
    "val_transforms", SettingType::kText, "",
    "the validation split's transforms (default: Resize(size * 256 / 224), "
    "CenterCrop(size))"};
const Setting kBatchTransformsSetting{
    "batch_transforms", SettingType::kText, "",
    "the training split's batch transform, run on each batch after the "
    "fused op: 'RandomChoice([MixUp(0.2), CutMix(1.0)])' (needs "
    "num_classes)"};
const Setting kNumClassesSetting{
    "num_classes",
    SettingType::kInt,
    "0",
    "the training split yields float32 soft targets (batch, num_classes) "
    "instead of labels (0: labels)",
    {},
    0,
    static_cast<double>(kMaxClasses)};
const Setting kLabelSmoothingSetting{
    "label_smoothing",
    SettingType::kFloat,
    "0",
    "soft targets t become t * (1 - e) + e / num_classes, as torch's "
    "cross_entropy smooths them",
    {},
    0,
    1};

const Setting kRepeatedAugmentationsSetting{
    "repeated_augmentations",
    SettingType::kInt,
    "1",
    "torchvision's RASampler for the training split: each sample N times an "
    "epoch, the repeats dealt to different ranks, each with its own "
    "decisions; an epoch keeps floor(samples / 256) * 256 / world_size "
    "samples per rank (1: off)",
    {},
    1,
    kMaxRepeats};

std::vector<const Setting*> RecipeSettings() {
  std::vector<const Setting*> rows = {&kDataSetting,
                                      &kCacheDirSetting,
                                      &kCacheBytesSetting,
                                      &kDatasetSetting,
                                      &kPathSetting,
                                      &kSplitSetting,
                                      &kImagesSetting,
                                      &kBatchSizeSetting,
                                      &kThreadsSetting,
                                      &kEpochSetting,
                                      &kSeedSetting,
                                      &kSizeSetting,
                                      &kResizeFilterSetting,
                                      &kOnErrorSetting,
                                      &kDecodeScaleSetting,
                                      &kRankSetting,
                                      &kWorldSizeSetting,
                                      &kDropLastSetting,
                                      &kPinnedSetting,
                                      &kCudaDeviceSetting,
                                      &kTrainTransformsSetting,
                                      &kValTransformsSetting,
                                      &kBatchTransformsSetting,
                                      &kNumClassesSetting,
                                      &kLabelSmoothingSetting,
                                      &kRepeatedAugmentationsSetting};
  for (const Setting* s : NormalizationSettings()) rows.push_back(s);
  return rows;
}

namespace {

// A transform list's text: refused when given but empty (leaving the
// setting out runs the default list).
absl::StatusOr<std::string> ListText(const SettingValues& v,
                                     const Setting& setting) {
  std::string text = v.Text(setting);
  if (v.Given(setting) &&
      text.find_first_not_of(" \t\r\n") == std::string::npos) {
    const bool batch = &setting == &kBatchTransformsSetting;
    return InvalidArgumentCat(
        SettingName(setting, v.style()),
        " is an empty list: name at least one transform, or leave it out ",
        batch ? "for no batch transform" : "for the default list");
  }
  return text;
}

// The data settings that would do nothing: a path no dataset reads, a
// bound on a cache that is not kept. Said, not ignored.
absl::Status CheckUnusedDataSettings(const SettingValues& v,
                                     const RecipeOptions& o) {
  if (v.Given(kPathSetting) &&
      (!o.data.empty() || !DatasetReadsFiles(o.dataset))) {
    return InvalidArgumentCat(
        SettingName(kPathSetting, v.style()), " \"", o.path, "\": ",
        o.data.empty() ? absl::StrCat(SettingName(kDatasetSetting, v.style()),
                                      " ", o.dataset, " reads no files")
                       : absl::StrCat(SettingName(kDataSetting, v.style()),
                                      " is read instead"));
  }
  if (v.Given(kCacheBytesSetting) && o.cache.dir.empty()) {
    return InvalidArgumentCat(
        SettingName(kCacheBytesSetting, v.style()), " bounds ",
        SettingName(kCacheDirSetting, v.style()), ", which is not given");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RecipeOptions> RecipeFromSettings(const SettingValues& v) {
  RecipeOptions o;
  FUSEDNORM_ASSIGN_OR_RETURN(o.normalization, NormalizationFromSettings(v));
  o.data = v.Text(kDataSetting);
  o.cache.dir = v.Text(kCacheDirSetting);
  FUSEDNORM_ASSIGN_OR_RETURN(o.cache.bytes, v.Bytes(kCacheBytesSetting));
  FUSEDNORM_ASSIGN_OR_RETURN(o.dataset, v.Choice(kDatasetSetting));
  o.path = v.Text(kPathSetting);
  FUSEDNORM_RETURN_IF_ERROR(CheckUnusedDataSettings(v, o));
  FUSEDNORM_ASSIGN_OR_RETURN(o.split, v.Enum(kSplitSetting, SplitNames()));
  FUSEDNORM_ASSIGN_OR_RETURN(o.size, v.Size(kSizeSetting));
  o.size_given = v.Given(kSizeSetting);
  o.normalization_given =
      v.Given(kPresetSetting) || v.Given(kMeanSetting) || v.Given(kStdSetting);
  FUSEDNORM_ASSIGN_OR_RETURN(o.train_transforms,
                             ListText(v, kTrainTransformsSetting));
  FUSEDNORM_ASSIGN_OR_RETURN(o.val_transforms,
                             ListText(v, kValTransformsSetting));
  FUSEDNORM_ASSIGN_OR_RETURN(o.batch_transforms,
                             ListText(v, kBatchTransformsSetting));
  o.names.train = SettingName(kTrainTransformsSetting, v.style());
  o.names.val = SettingName(kValTransformsSetting, v.style());
  o.names.batch = SettingName(kBatchTransformsSetting, v.style());
  o.names.num_classes = SettingName(kNumClassesSetting, v.style());
  o.names.label_smoothing = SettingName(kLabelSmoothingSetting, v.style());
  o.names.dataset = SettingName(kDatasetSetting, v.style());
  o.names.path = SettingName(kPathSetting, v.style());
  o.names.data = SettingName(kDataSetting, v.style());
  o.names.cache_dir = SettingName(kCacheDirSetting, v.style());
  o.names.images = SettingName(kImagesSetting, v.style());
  FUSEDNORM_ASSIGN_OR_RETURN(o.num_classes, v.Int(kNumClassesSetting));
  FUSEDNORM_ASSIGN_OR_RETURN(o.label_smoothing,
                             v.Float(kLabelSmoothingSetting));
  FUSEDNORM_ASSIGN_OR_RETURN(o.resize_filter,
                             v.Enum(kResizeFilterSetting, ResizeFilterNames()));
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t epoch, v.Int(kEpochSetting));
  o.epoch = static_cast<uint32_t>(epoch);
  LoaderSettings& l = o.loader;
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t batch, v.Int(kBatchSizeSetting));
  l.batch_size = static_cast<size_t>(batch);
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t images, v.Int(kImagesSetting));
  l.samples = static_cast<size_t>(images);
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t threads, v.Int(kThreadsSetting));
  l.threads = static_cast<int>(threads);
  FUSEDNORM_ASSIGN_OR_RETURN(l.seed, v.Uint64(kSeedSetting));
  FUSEDNORM_ASSIGN_OR_RETURN(l.policy,
                             v.Enum(kOnErrorSetting, ErrorPolicyNames()));
  FUSEDNORM_ASSIGN_OR_RETURN(l.decode_scale, v.Bool(kDecodeScaleSetting));
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t rank, v.Int(kRankSetting));
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t world, v.Int(kWorldSizeSetting));
  if (rank >= world) {
    return InvalidArgumentCat(
        SettingName(kRankSetting, v.style()), " = ", rank, " must be below ",
        SettingName(kWorldSizeSetting, v.style()), " = ", world);
  }
  l.rank = static_cast<int>(rank);
  l.world = static_cast<int>(world);
  FUSEDNORM_ASSIGN_OR_RETURN(l.drop_last, v.Bool(kDropLastSetting));
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t repeats,
                             v.Int(kRepeatedAugmentationsSetting));
  l.repeats = static_cast<int>(repeats);
  FUSEDNORM_ASSIGN_OR_RETURN(l.pinning, v.Enum(kPinnedSetting, PinningNames()));
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t device, v.Int(kCudaDeviceSetting));
  l.cuda_device = static_cast<int>(device);
  FUSEDNORM_RETURN_IF_ERROR(CheckDataSettings(o));
  return o;
}

absl::Status CheckCudaDeviceUsed(const SettingValues& v, Pinning pinning,
                                 const Setting* device_copy, bool copies) {
  if (!v.Given(kCudaDeviceSetting) || pinning == Pinning::kCuda || copies)
    return absl::OkStatus();
  std::string uses = SettingWithValue(kPinnedSetting, v.style(), "cuda");
  if (device_copy != nullptr)
    absl::StrAppend(&uses, " or ", SettingName(*device_copy, v.style()));
  return v.Error(kCudaDeviceSetting,
                 absl::StrCat("is for ", uses, " only: nothing else uses it"));
}

}  // namespace fusednorm
