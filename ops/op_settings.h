// The fused op's settings (core/settings.h): normalization, output format,
// kernel, flip and erase probabilities and ranges, and the seed. Every
// interface that makes a FusedNormalization (the `normalize` and `run`
// commands, Python's FusedNormalization, FusedTail and Loader) reads them
// through these rows and functions; defaults come from the C++ options'
// own defaults (EraseOptions, FusedNormalizationOptions).
#ifndef FUSEDNORM_OPS_OP_SETTINGS_H_
#define FUSEDNORM_OPS_OP_SETTINGS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "core/settings.h"
#include "ops/fused_normalization.h"

namespace fusednorm {

extern const Setting kPresetSetting;
extern const Setting kMeanSetting;
extern const Setting kStdSetting;
extern const Setting kDTypeSetting;
extern const Setting kLayoutSetting;
extern const Setting kModeSetting;
extern const Setting kKernelSetting;
extern const Setting kFlipPSetting;
extern const Setting kErasePSetting;
extern const Setting kEraseScaleSetting;
extern const Setting kEraseRatioSetting;
extern const Setting kSeedSetting;

// preset/mean/std, dtype, layout, mode and kernel: the rows
// NormalizationFromSettings reads.
std::vector<const Setting*> NormalizationSettings();

// The options those rows describe (flip off, erase off: each interface adds
// its own). mean and std go together; given either, both are parsed (an
// empty list is an error, never the preset).
absl::StatusOr<FusedNormalizationOptions> NormalizationFromSettings(
    const SettingValues& values);

// Erasing on, with erase_p, erase_scale and erase_ratio.
absl::StatusOr<EraseOptions> EraseFromSettings(const SettingValues& values);

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_OP_SETTINGS_H_
