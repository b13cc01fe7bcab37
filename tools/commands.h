// The `fusednorm` commands, one file each (kernels_command.cc,
// normalize_command.cc, pack_command.cc, index_command.cc, run_command.cc).
// Each reads the values of its flags through tools/options.h, does its
// work, writes its report to `out` and progress to `err`, and returns a
// Status that cli.cc turns into the exit status (tools/exit_code.h).
#ifndef FUSEDNORM_TOOLS_COMMANDS_H_
#define FUSEDNORM_TOOLS_COMMANDS_H_

#include <cstdio>

#include "absl/status/status.h"
#include "core/settings.h"

namespace fusednorm {

// `fusednorm kernels`: the dispatch table, what this CPU supports, and the
// default choice.
absl::Status KernelsCommand(const SettingValues& flags, FILE* out, FILE* err);

// `fusednorm normalize`: one fused op over uint8 images (.npy or PNG/JPEG)
// into a .npy.
absl::Status NormalizeCommand(const SettingValues& flags, FILE* out, FILE* err);

// `fusednorm pack`: a dataset into WebDataset shards.
absl::Status PackCommand(const SettingValues& flags, FILE* out, FILE* err);

// `fusednorm index`: writes each shard's index beside it
// (tools/index_command.cc).
absl::Status IndexCommand(const SettingValues& flags, FILE* out, FILE* err);

// `fusednorm run`: the training or val pipeline over a dataset, with a
// report (and optionally the batches as .npy and a preview PNG).
absl::Status RunCommand(const SettingValues& flags, FILE* out, FILE* err);

}  // namespace fusednorm

#endif  // FUSEDNORM_TOOLS_COMMANDS_H_
