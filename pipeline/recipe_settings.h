// The standard recipe's settings (core/settings.h): the data, the epoch's
// shape and the loader's resources. `fusednorm run` and Python's Loader
// accept these rows (plus the op's, ops/op_settings.h) and read them with
// RecipeFromSettings, so the two take the same names, defaults and checks.
#ifndef FUSEDNORM_PIPELINE_RECIPE_SETTINGS_H_
#define FUSEDNORM_PIPELINE_RECIPE_SETTINGS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "core/settings.h"
#include "pipeline/recipe.h"

namespace fusednorm {

extern const Setting kDataSetting;
extern const Setting kCacheDirSetting;
extern const Setting kCacheBytesSetting;
extern const Setting kDatasetSetting;
extern const Setting kPathSetting;
extern const Setting kSplitSetting;
extern const Setting kImagesSetting;
extern const Setting kBatchSizeSetting;
extern const Setting kThreadsSetting;
extern const Setting kEpochSetting;
extern const Setting kSizeSetting;
extern const Setting kResizeFilterSetting;
extern const Setting kOnErrorSetting;
extern const Setting kDecodeScaleSetting;
extern const Setting kRankSetting;
extern const Setting kWorldSizeSetting;
extern const Setting kDropLastSetting;
extern const Setting kPinnedSetting;
extern const Setting kCudaDeviceSetting;
extern const Setting kTrainTransformsSetting;
extern const Setting kValTransformsSetting;
extern const Setting kBatchTransformsSetting;
extern const Setting kNumClassesSetting;
extern const Setting kLabelSmoothingSetting;
extern const Setting kRepeatedAugmentationsSetting;

// Every row RecipeFromSettings reads: the recipe's and the op's
// normalization, seed.
std::vector<const Setting*> RecipeSettings();

// The recipe the values describe (paths as given).
absl::StatusOr<RecipeOptions> RecipeFromSettings(const SettingValues& values);

// OK unless cuda_device is given where nothing uses it: pinning other than
// cuda, and no copy to a device (`device_copy`: the interface's own option
// for one, nullptr where it has none, and whether it is on).
absl::Status CheckCudaDeviceUsed(const SettingValues& values, Pinning pinning,
                                 const Setting* device_copy, bool copies);

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_RECIPE_SETTINGS_H_
