// `pack`'s settings (core/settings.h): the shard pattern, the encoding and
// the shard size, read the same way by `fusednorm pack` and Python's
// fusednorm.pack (the source is the recipe's data, dataset and path rows).
#ifndef FUSEDNORM_DATA_PACK_SETTINGS_H_
#define FUSEDNORM_DATA_PACK_SETTINGS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "core/settings.h"
#include "data/shard_writer.h"

namespace fusednorm {

extern const Setting kShardPatternSetting;  // "output"
extern const Setting kMaxSideSetting;
extern const Setting kEncodingSetting;
extern const Setting kQualitySetting;
extern const Setting kJpegRestartSetting;
extern const Setting kShardBytesSetting;

// The rows above.
std::vector<const Setting*> PackSettings();

// The options they describe; the output pattern is required and needs one
// %d or %0Nd for the shard number.
absl::StatusOr<PackOptions> PackFromSettings(const SettingValues& values);

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_PACK_SETTINGS_H_
