// The flags of every `fusednorm` command, and their parsing from a command
// line. Each command accepts only its own flags (cli.cc's command table lists
// them); a flag's value is checked and turned into library options by
// tools/options.h.
#ifndef FUSEDNORM_TOOLS_FLAGS_H_
#define FUSEDNORM_TOOLS_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/status.h"

ABSL_DECLARE_FLAG(std::string, input);
ABSL_DECLARE_FLAG(std::string, output);
ABSL_DECLARE_FLAG(std::string, preset);
ABSL_DECLARE_FLAG(std::string, mean);
ABSL_DECLARE_FLAG(std::string, std);
ABSL_DECLARE_FLAG(std::string, dtype);
ABSL_DECLARE_FLAG(std::string, layout);
ABSL_DECLARE_FLAG(std::string, mode);
ABSL_DECLARE_FLAG(std::string, flip);
ABSL_DECLARE_FLAG(double, flip_p);
ABSL_DECLARE_FLAG(std::string, erase);
ABSL_DECLARE_FLAG(double, erase_p);
ABSL_DECLARE_FLAG(std::string, erase_scale);
ABSL_DECLARE_FLAG(std::string, erase_ratio);
ABSL_DECLARE_FLAG(uint64_t, seed);
ABSL_DECLARE_FLAG(std::string, kernel);
ABSL_DECLARE_FLAG(bool, print_decisions);
ABSL_DECLARE_FLAG(std::string, data);
ABSL_DECLARE_FLAG(std::string, dataset);
ABSL_DECLARE_FLAG(std::string, path);
ABSL_DECLARE_FLAG(std::string, split);
ABSL_DECLARE_FLAG(int64_t, images);
ABSL_DECLARE_FLAG(int64_t, batch);
ABSL_DECLARE_FLAG(int32_t, threads);
ABSL_DECLARE_FLAG(int32_t, epochs);
ABSL_DECLARE_FLAG(std::string, size);
ABSL_DECLARE_FLAG(std::string, resized_crop);
ABSL_DECLARE_FLAG(std::string, resize_filter);
ABSL_DECLARE_FLAG(std::string, on_error);
ABSL_DECLARE_FLAG(bool, decode_scale);
ABSL_DECLARE_FLAG(int64_t, max_side);
ABSL_DECLARE_FLAG(std::string, encoding);
ABSL_DECLARE_FLAG(int32_t, quality);
ABSL_DECLARE_FLAG(std::string, jpeg_restart);
ABSL_DECLARE_FLAG(std::string, shard_bytes);
ABSL_DECLARE_FLAG(std::string, preview);

namespace fusednorm {

// Sets each flag named in `names` back to its default (the program can run
// several commands in one process, as its tests do).
void ResetFlags(const std::vector<const char*>& names);

// Parses `args` (flags only, `--name=value`, `--name value` or `--name` for
// a bool; dashes and underscores alike) into the flags named in `allowed`.
// Sets *help for --help or -h. A usage error (tools/exit_code.h) names an
// unknown or foreign flag, a missing value or a value of the wrong type;
// `command` names the command in it.
absl::Status ParseFlags(const char* command,
                        const std::vector<const char*>& allowed,
                        const std::vector<std::string>& args, bool* help);

// Returns the help lines of one flag: its name, default and description.
std::string FlagHelp(const char* name);

}  // namespace fusednorm

#endif  // FUSEDNORM_TOOLS_FLAGS_H_
