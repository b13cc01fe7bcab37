// `fusednorm run`: builds the Preprocessor the flags describe (the standard
// recipe of pipeline/recipe.h), runs its epochs,
// and reports throughput and where the workers spent their time; optionally
// copies every batch to a CUDA device as it comes (--device-copy, as a
// trainer's loader would), writes it to --output and the first samples to
// --preview. Ctrl-C stops it within about a sample's time, leaving no file.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status.h"
#include "kernels/dispatch.h"
#include "pipeline/device_copier.h"
#include "pipeline/recipe.h"
#include "tools/commands.h"
#include "tools/exit_code.h"
#include "tools/interrupt.h"
#include "tools/options.h"
#include "tools/output_npy.h"
#include "tools/preview.h"
#include "tools/progress.h"

namespace fusednorm {
namespace {

constexpr size_t kPreviewSamples = 16;

// What the epochs produced: totals, the skipped samples, and the first
// samples kept for --preview (--output is written as batches come).
struct Results {
  EpochLoader::StageSeconds stages;
  DeviceCopier::Stats copies;  // --device-copy
  std::string device;
  size_t skipped = 0;
  std::vector<std::string> skip_reasons;  // one per skipped sample
  std::vector<std::vector<uint8_t>> preview;
  EpochLoader::DecodedPixels decoded;
};

void Keep(const Batch& b, const RunOptions& o, Results* r) {
  for (size_t k = 0;
       k < b.count && !o.preview.empty() && r->preview.size() < kPreviewSamples;
       ++k) {
    r->preview.emplace_back(b.data + k * b.sample_bytes,
                            b.data + (k + 1) * b.sample_bytes);
  }
}

// Waits in slices until `source` is ready, checking for Ctrl-C before each
// slice, so that it cancels the epoch whether or not batches keep coming.
template <typename Source>
absl::Status WaitInterruptibly(Source& source) {
  do {
    if (Interruptible::interrupted()) {
      source.Cancel();
      return Interruptible::Status();
    }
  } while (!source.WaitReady(absl::Milliseconds(50)));
  return absl::OkStatus();
}

// The run's batches, epoch by epoch: from the loader, or once copied to
// the device by one copier for the whole run (one context, stream and set
// of device buffers).
class EpochBatches {
 public:
  absl::Status Start(const Preprocessor& p, const RunOptions& o, int e) {
    FUSEDNORM_ASSIGN_OR_RETURN(
        loader_, p.StartEpoch(o.recipe.split,
                              o.recipe.epoch + static_cast<uint32_t>(e)));
    if (!o.device_copy) return absl::OkStatus();
    if (copier_ != nullptr) return copier_->Restart(loader_);
    FUSEDNORM_ASSIGN_OR_RETURN(
        copier_,
        DeviceCopier::Start(loader_, {o.recipe.loader.cuda_device, 2}));
    return absl::OkStatus();
  }

  // The next batch (its device copy, if any, completed and let go).
  absl::StatusOr<BatchRef> Next() {
    if (copier_ == nullptr) {
      FUSEDNORM_RETURN_IF_ERROR(WaitInterruptibly(*loader_));
      return loader_->Next();
    }
    FUSEDNORM_RETURN_IF_ERROR(WaitInterruptibly(*copier_));
    FUSEDNORM_ASSIGN_OR_RETURN(DeviceBatch d, copier_->Next());
    return std::move(d.batch);
  }

  void AddTo(Results* r) const {
    const EpochLoader::StageSeconds s = loader_->stage_seconds();
    r->stages.load += s.load;
    r->stages.transforms += s.transforms;
    r->stages.fused += s.fused;
    r->stages.batch += s.batch;
    r->stages.ops.resize(s.ops.size());
    for (size_t i = 0; i < s.ops.size(); ++i) r->stages.ops[i] += s.ops[i];
    const EpochLoader::DecodedPixels d = loader_->decoded_pixels();
    r->decoded.decoded += d.decoded;
    r->decoded.whole += d.whole;
    if (copier_ == nullptr) return;
    const DeviceCopier::Stats c = copier_->stats();
    r->copies.copies += c.copies;
    r->copies.bytes += c.bytes;
    r->copies.buffers = std::max(r->copies.buffers, c.buffers);
    r->device = copier_->device_name();
    r->copies.copy_wait_seconds += c.copy_wait_seconds;
  }

 private:
  std::shared_ptr<EpochLoader> loader_;
  std::unique_ptr<DeviceCopier> copier_;  // --device-copy
};

// One epoch: every batch to the report, the preview and `output`.
absl::Status RunEpoch(const Preprocessor& p, const RunOptions& o, int e,
                      EpochBatches& batches, NpyWriter* output,
                      Progress* progress, Results* r) {
  FUSEDNORM_RETURN_IF_ERROR(batches.Start(p, o, e));
  for (;;) {
    FUSEDNORM_ASSIGN_OR_RETURN(const BatchRef batch, batches.Next());
    if (batch == nullptr) break;
    r->skipped += batch->skipped;
    for (size_t k = 0; k < batch->count; ++k) {
      if (!batch->valid[k]) r->skip_reasons.push_back(batch->errors[k]);
    }
    if (output != nullptr) {
      FUSEDNORM_RETURN_IF_ERROR(
          output->Write({batch->data, batch->count * batch->sample_bytes}));
    }
    Keep(*batch, o, r);
    progress->Batch(batch->count);
  }
  batches.AddTo(r);
  return absl::OkStatus();
}

// --output: the epochs' samples of this rank, in order.
absl::StatusOr<std::optional<NpyWriter>> OutputFile(const Preprocessor& p,
                                                    const RunOptions& o) {
  if (o.output.empty()) return std::nullopt;
  const int64_t count =
      static_cast<int64_t>(p.local_samples_per_epoch(o.recipe.split)) *
      o.epochs;
  FUSEDNORM_ASSIGN_OR_RETURN(NpyWriter w,
                             OutputNpy(o.output, p.fused(o.recipe.split),
                                       p.sample_size(o.recipe.split),
                                       p.channels(o.recipe.split), count));
  return std::optional<NpyWriter>(std::move(w));
}

absl::Status RunEpochs(const Preprocessor& p, const RunOptions& o,
                       Progress* progress, Results* r) {
  FUSEDNORM_ASSIGN_OR_RETURN(std::optional<NpyWriter> output, OutputFile(p, o));
  EpochBatches batches;
  for (int e = 0; e < o.epochs; ++e) {
    FUSEDNORM_RETURN_IF_ERROR(
        RunEpoch(p, o, e, batches, output ? &*output : nullptr, progress, r));
  }
  progress->Finish();
  if (output) FUSEDNORM_RETURN_IF_ERROR(output->Commit());
  return absl::OkStatus();
}

void Report(FILE* out, const Preprocessor& p, const RunOptions& o,
            const Progress& progress, const Results& r) {
  const FusedNormalization& fused = p.fused(o.recipe.split);
  const absl::StatusOr<const KernelInfo*> kernel =
      FindKernel(fused.kernel_id(p.channels(o.recipe.split)));
  const EpochLoader::StageSeconds& s = r.stages;
  const double work = s.load + s.transforms + s.fused + s.batch;
  const size_t images = progress.images();
  const double secs = progress.seconds();
  // The real ops' parts of the transforms' time, where there are several.
  std::string ops;
  const std::vector<std::string> names = p.op_names(o.recipe.split);
  for (size_t i = 0; i < s.ops.size() && s.ops.size() > 1; ++i) {
    absl::StrAppend(&ops, i ? ", " : " (", names[i], " ",
                    absl::StrFormat("%.0f%%", 100 * s.ops[i] / work),
                    i + 1 == s.ops.size() ? ")" : "");
  }
  const std::string batch =
      s.batch > 0 ? absl::StrFormat(", batch %.0f%%", 100 * s.batch / work)
                  : "";
  std::fprintf(out,
               "%zu images in %.2f s: %.0f images/s with %d threads; %zu "
               "skipped\n"
               "kernel %s; worker time: load %.0f%%, transforms %.0f%%%s, "
               "fused %.0f%%%s (the fused op %.1f us/image)\n",
               images, secs, images / secs, p.threads(), r.skipped,
               kernel.ok() ? DescribeKernel(**kernel).c_str() : "?",
               100 * s.load / work, 100 * s.transforms / work, ops.c_str(),
               100 * s.fused / work, batch.c_str(),
               1e6 * s.fused / std::max<size_t>(1, images));
  if (r.decoded.whole > 0) {
    std::fprintf(out, "decoded %.0f%% of the encoded images' pixels\n",
                 100.0 * r.decoded.decoded / r.decoded.whole);
  }
  if (o.device_copy) {
    const DeviceCopier::Stats& c = r.copies;
    std::fprintf(out,
                 "device copies to CUDA device %d (%s), slots pinned = %s: "
                 "%zu batches, %.3f GB into %zu device buffers; waited "
                 "%.3f s for copies to complete\n",
                 o.recipe.loader.cuda_device, r.device.c_str(),
                 NameOf(PinningNames(), o.recipe.loader.pinning), c.copies,
                 c.bytes * 1e-9, c.buffers, c.copy_wait_seconds);
  }
  // --on-error=skip: each skipped sample and why (the message names its
  // file).
  for (const std::string& reason : r.skip_reasons) {
    std::fprintf(out, "skipped %s\n", reason.c_str());
  }
}

absl::Status WritePreviewFile(FILE* out, const Preprocessor& p,
                              const RunOptions& o, const Results& r) {
  if (!o.output.empty()) std::fprintf(out, "wrote %s\n", o.output.c_str());
  if (o.preview.empty()) return absl::OkStatus();
  FUSEDNORM_RETURN_IF_ERROR(
      WritePreview(o.preview, r.preview, p.fused(o.recipe.split),
                   p.sample_size(o.recipe.split), p.channels(o.recipe.split)));
  std::fprintf(out, "wrote %s (%zu samples)\n", o.preview.c_str(),
               r.preview.size());
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
               p.samples_per_epoch(), p.Describe(o.recipe.split).c_str());
  Progress progress(err, p.batches_per_epoch(o.recipe.split) * o.epochs);
  Results r;
  const Interruptible interruptible;  // Ctrl-C cancels the epoch
  FUSEDNORM_RETURN_IF_ERROR(RunEpochs(p, o, &progress, &r));
  Report(out, p, o, progress, r);
  return WritePreviewFile(out, p, o, r);
}

}  // namespace fusednorm
