// The command line's flags: each command accepts a list of setting rows
// (core/settings.h; cli.cc's command table lists them), and a command line
// is parsed into their values. Flags are --name=value, --name value, or a
// bare --name for a bool (or a choice that takes bools, before another flag
// or at the end); dashes and underscores alike. The rows only the
// commands take (files, epochs, normalize's decisions) are defined here.
#ifndef FUSEDNORM_TOOLS_FLAGS_H_
#define FUSEDNORM_TOOLS_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/settings.h"

namespace fusednorm {

extern const Setting kInputFlag;
extern const Setting kOutputFlag;
extern const Setting kPreviewFlag;
extern const Setting kEpochsFlag;
extern const Setting kDeviceCopyFlag;
extern const Setting kStateOutFlag;
extern const Setting kResumeFlag;
extern const Setting kIndexDataFlag;  // index's --data
extern const Setting kFlipFlag;
extern const Setting kEraseFlag;
extern const Setting kPrintDecisionsFlag;
extern const Setting kResizedCropFlag;
extern const Setting kResizeToFlag;  // normalize's --size (none by default)

// Parses `args` into values of `accepted`. Sets *help for --help or -h. A
// usage error (tools/exit_code.h) names an unknown or foreign flag or a
// missing value; `command` names the command in it. Values are checked when
// read (tools/options.h).
absl::StatusOr<SettingValues> ParseFlags(
    const char* command, const std::vector<const Setting*>& accepted,
    const std::vector<std::string>& args, bool* help);

}  // namespace fusednorm

#endif  // FUSEDNORM_TOOLS_FLAGS_H_
