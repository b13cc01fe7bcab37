// `fusednorm pack`: writes a dataset (an image folder, shards, or a built-in
// dataset) as WebDataset shards any tar reader can open
// (data/shard_writer.h), with a progress line and a report.
#include <string>

#include "core/one_line.h"
#include "core/status.h"
#include "data/shard_writer.h"
#include "pipeline/recipe.h"
#include "tools/commands.h"
#include "tools/interrupt.h"
#include "tools/options.h"
#include "tools/progress.h"

namespace fusednorm {

absl::Status PackCommand(const SettingValues& flags, FILE* out, FILE* err) {
  FUSEDNORM_ASSIGN_OR_RETURN(const PackCommandOptions o,
                             PackOptionsFromFlags(flags));
  FUSEDNORM_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> data,
                             OpenRecipeDataset(o.source));
  Progress progress(err, data->size(), "samples", "samples");
  const Interruptible interruptible;  // Ctrl-C stops after the sample
  FUSEDNORM_ASSIGN_OR_RETURN(const PackReport report,
                             PackDataset(*data, o.pack, [&](size_t) {
                               progress.Batch(1);
                               return !Interruptible::interrupted();
                             }));
  progress.Finish();
  for (const std::string& w : report.warnings)
    std::fprintf(err, "fusednorm pack: warning: %s\n", OneLine(w).c_str());
  std::fprintf(out, "packed %zu samples of %s into %zu shards (%llu bytes): %s",
               report.samples, OneLine(data->name()).c_str(),
               report.shards.size(),
               static_cast<unsigned long long>(report.bytes),
               OneLine(report.shards.front()).c_str());
  if (report.shards.size() > 1)
    std::fprintf(out, " .. %s", OneLine(report.shards.back()).c_str());
  std::fprintf(out, "\n");
  if (report.restarts_added + report.restarts_kept > 0) {
    std::fprintf(out, "%zu JPEGs given restart markers, %zu kept as they are\n",
                 report.restarts_added, report.restarts_kept);
  }
  return absl::OkStatus();
}

}  // namespace fusednorm
