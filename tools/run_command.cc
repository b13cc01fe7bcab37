// `fusednorm run`: builds the Preprocessor the flags describe (the standard
// recipe of pipeline/recipe.h), runs its epochs,
// and reports throughput and where the workers spent their time; optionally
// keeps every batch for --output and the first samples for --preview.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "kernels/dispatch.h"
#include "pipeline/recipe.h"
#include "tools/commands.h"
#include "tools/exit_code.h"
#include "tools/options.h"
#include "tools/output_npy.h"
#include "tools/preview.h"
#include "tools/progress.h"

namespace fusednorm {
namespace {

constexpr size_t kPreviewSamples = 16;

// What the epochs produced: totals, and the bytes kept for --output and
// --preview.
struct Results {
  EpochLoader::StageSeconds stages;
  size_t skipped = 0;
  std::vector<std::string> skip_reasons;  // one per skipped sample
  std::vector<std::vector<uint8_t>> batches, preview;
};

void Keep(const Batch& b, const RunOptions& o, Results* r) {
  if (!o.output.empty()) {
    r->batches.emplace_back(b.data, b.data + b.count * b.sample_bytes);
  }
  for (size_t k = 0;
       k < b.count && !o.preview.empty() && r->preview.size() < kPreviewSamples;
       ++k) {
    r->preview.emplace_back(b.data + k * b.sample_bytes,
                            b.data + (k + 1) * b.sample_bytes);
  }
}

absl::Status RunEpochs(const Preprocessor& p, const RunOptions& o,
                       Progress* progress, Results* r) {
  for (int e = 0; e < o.epochs; ++e) {
    FUSEDNORM_ASSIGN_OR_RETURN(std::unique_ptr<EpochLoader> loader,
                               p.StartEpoch(o.recipe.split, e));
    for (;;) {
      FUSEDNORM_ASSIGN_OR_RETURN(const BatchRef batch, loader->Next());
      if (batch == nullptr) break;
      r->skipped += batch->skipped;
      for (size_t k = 0; k < batch->count; ++k) {
        if (!batch->valid[k]) r->skip_reasons.push_back(batch->errors[k]);
      }
      Keep(*batch, o, r);
      progress->Batch(batch->count);
    }
    const EpochLoader::StageSeconds s = loader->stage_seconds();
    r->stages.load += s.load;
    r->stages.transforms += s.transforms;
    r->stages.fused += s.fused;
  }
  progress->Finish();
  return absl::OkStatus();
}

void Report(FILE* out, const Preprocessor& p, const RunOptions& o,
            const Progress& progress, const Results& r) {
  const FusedNormalization& fused = p.fused(o.recipe.split);
  const absl::StatusOr<const KernelInfo*> kernel =
      FindKernel(fused.kernel_id(p.dataset().channels()));
  const EpochLoader::StageSeconds& s = r.stages;
  const double work = s.load + s.transforms + s.fused;
  const size_t images = progress.images();
  const double secs = progress.seconds();
  std::fprintf(out,
               "%zu images in %.2f s: %.0f images/s with %d threads; %zu "
               "skipped\n"
               "kernel %s; worker time: load %.0f%%, transforms %.0f%%, "
               "fused %.0f%% (%.1f us/image)\n",
               images, secs, images / secs, p.threads(), r.skipped,
               kernel.ok() ? DescribeKernel(**kernel).c_str() : "?",
               100 * s.load / work, 100 * s.transforms / work,
               100 * s.fused / work,
               1e6 * s.fused / std::max<size_t>(1, images));
  // --on-error=skip: each skipped sample and why (the message names its
  // file).
  for (const std::string& reason : r.skip_reasons) {
    std::fprintf(out, "skipped %s\n", reason.c_str());
  }
}

absl::Status WriteFiles(FILE* out, const Preprocessor& p, const RunOptions& o,
                        const Results& r, size_t images) {
  const FusedNormalization& fused = p.fused(o.recipe.split);
  const int channels = p.dataset().channels();
  if (!o.output.empty()) {
    FUSEDNORM_RETURN_IF_ERROR(
        WriteOutputNpy(o.output, fused, p.sample_size(), channels, images,
                       std::vector<absl::Span<const uint8_t>>(
                           r.batches.begin(), r.batches.end())));
    std::fprintf(out, "wrote %s\n", o.output.c_str());
  }
  if (!o.preview.empty()) {
    FUSEDNORM_RETURN_IF_ERROR(
        WritePreview(o.preview, r.preview, fused, p.sample_size(), channels));
    std::fprintf(out, "wrote %s (%zu samples)\n", o.preview.c_str(),
                 r.preview.size());
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunCommand(const SettingValues& flags, FILE* out, FILE* err) {
  FUSEDNORM_ASSIGN_OR_RETURN(const RunOptions o, RunOptionsFromFlags(flags));
  FUSEDNORM_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> data,
                             OpenRecipeDataset(o.recipe));
  // Everything the builder checks came from a flag.
  absl::StatusOr<Preprocessor> built = BuildRecipe(o.recipe, data);
  if (!built.ok()) return AsUsageError(built.status());
  const Preprocessor& p = *built;
  std::fprintf(out, "dataset %s, %zu images; %s\n", data->name().c_str(),
               data->size(), p.Describe(o.recipe.split).c_str());
  Progress progress(err, p.batches_per_epoch() * o.epochs);
  Results r;
  FUSEDNORM_RETURN_IF_ERROR(RunEpochs(p, o, &progress, &r));
  Report(out, p, o, progress, r);
  return WriteFiles(out, p, o, r, progress.images());
}

}  // namespace fusednorm
