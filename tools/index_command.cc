// `fusednorm index`: writes the index of each shard of --data beside it
// (SHARD.fnidx, data/shard_index.h), for shards that other tools made;
// `fusednorm pack` writes its own. Each shard is read once, in order.
#include <cinttypes>
#include <string>
#include <vector>

#include "core/status.h"
#include "data/remote_url.h"
#include "data/shard_index.h"
#include "data/shards.h"
#include "tools/commands.h"
#include "tools/exit_code.h"
#include "tools/flags.h"
#include "tools/interrupt.h"
#include "tools/options.h"
#include "tools/progress.h"

namespace fusednorm {

absl::Status IndexCommand(const SettingValues& flags, FILE* out, FILE* err) {
  const std::string data = flags.Text(kIndexDataFlag);
  // (Resolved first: whether it is a folder is the working directory's.)
  if (data.empty() || !IsShardSpec(ResolveDataPath(data))) {
    return UsageError(absl::StrCat("--data = \"", data,
                                   "\": give WebDataset shards (a.tar,b.tar or "
                                   "train-{000000..000146}.tar)"));
  }
  if (IsRemotePath(data)) {
    return UsageError(absl::StrCat(
        "--data = \"", ShownUrl(data),
        "\": index writes SHARD.fnidx beside each shard, so it takes local "
        "shards; index a copy and put its SHARD.fnidx beside the remote "
        "shard"));
  }
  absl::StatusOr<std::vector<std::string>> paths =
      ExpandShardSpec(ResolveDataPath(data));
  if (!paths.ok()) return AsUsageError(paths.status());
  Progress progress(err, paths->size(), "shards", "samples");
  const Interruptible interruptible;  // Ctrl-C stops after the shard
  uint64_t samples = 0, bytes = 0;
  for (const std::string& path : *paths) {
    if (Interruptible::interrupted()) return Interruptible::Status();
    FUSEDNORM_ASSIGN_OR_RETURN(const ShardIndex index, WriteShardIndex(path));
    samples += index.samples.size();
    bytes += index.bytes;
    progress.Batch(index.samples.size());
  }
  progress.Finish();
  std::fprintf(out,
               "indexed %zu shards (%" PRIu64 " samples, %" PRIu64
               " bytes): %s beside each\n",
               paths->size(), samples, bytes, ShardIndexPath("SHARD").c_str());
  return absl::OkStatus();
}

}  // namespace fusednorm
