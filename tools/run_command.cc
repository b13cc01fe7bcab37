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
#include "core/one_line.h"
#include "core/status.h"
#include "data/atomic_file.h"
#include "data/read_file.h"
#include "kernels/dispatch.h"
#include "pipeline/device_copier.h"
#include "pipeline/epoch_order.h"
#include "pipeline/recipe.h"
#include "pipeline/resume_state.h"
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
// The most skipped samples the report lists, with why.
constexpr size_t kMaxListedSkips = 1000;

// What the epochs produced: totals, the skipped samples, and the first
// samples kept for --preview (--output is written as batches come).
struct Results {
  EpochLoader::StageSeconds stages;
  DeviceCopier::Stats copies;  // --device-copy
  std::string device;
  size_t skipped = 0;
  // Why each skipped sample was skipped: the first kMaxListedSkips (a
  // broken shard skipped every epoch would fill the memory).
  std::vector<std::string> skip_reasons;
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
// of device buffers). An epoch with `another` after it in the run reads
// ahead into that one's first samples (ReadAheadLinks), and its loader is
// kept through that epoch when it reads ahead.
class EpochBatches {
 public:
  absl::Status Start(const Preprocessor& p, const RunOptions& o, uint32_t epoch,
                     uint64_t start, bool another) {
    previous_ = nullptr;
    if (loader_ != nullptr && loader_->reads_ahead())
      previous_ = std::move(loader_);
    ReadAheadLinks links;
    links.from_previous = previous_ != nullptr;
    links.into_next = another;
    FUSEDNORM_ASSIGN_OR_RETURN(
        loader_, p.StartEpoch(o.recipe.split, epoch, start, links));
    if (previous_ != nullptr) previous_->ReleaseSlots();
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
  // Its read-ahead serves loader_: destroyed first, so that a worker of
  // loader_ waiting for one of its samples is answered at once.
  std::shared_ptr<EpochLoader> previous_;
  std::unique_ptr<DeviceCopier> copier_;  // --device-copy
};

// The epochs the run goes through: the flags', or from a --resume state's
// epoch and batch to the end of the flags' last epoch.
struct RunSpan {
  uint64_t first = 0;  // epoch (2^32 when past the last: no epochs)
  uint64_t start = 0;  // batches of the first epoch already handed out
  int epochs = 0;
  // The epoch and start of the span's e-th epoch (e < epochs).
  uint32_t epoch(int e) const { return static_cast<uint32_t>(first + e); }
  uint64_t start_of(int e) const { return e == 0 ? start : 0; }
};

// This rank's epoch from `start` on (which batches and samples are left).
EpochOrder Rest(const Preprocessor& p, const RunOptions& o, uint64_t start) {
  return EpochOrder(p.loader_settings(o.recipe.split), 0, p.samples_per_epoch(),
                    start);
}

// This rank's batches (or samples) over the span.
template <typename Count>
uint64_t Total(const Preprocessor& p, const RunOptions& o, const RunSpan& span,
               Count count) {
  if (span.epochs == 0) return 0;
  return count(Rest(p, o, span.start)) +
         uint64_t(span.epochs - 1) * count(Rest(p, o, 0));
}

absl::StatusOr<RunSpan> Span(const Preprocessor& p, const RunOptions& o) {
  RunSpan span{o.recipe.epoch, 0, o.epochs};
  if (o.resume.empty()) return span;
  FUSEDNORM_ASSIGN_OR_RETURN(const std::vector<uint8_t> bytes,
                             ReadFileBytes(o.resume, kMaxResumeStateBytes));
  FUSEDNORM_ASSIGN_OR_RETURN(
      const ResumeState state,
      ParseResumeState(
          absl::string_view(reinterpret_cast<const char*>(bytes.data()),
                            bytes.size()),
          o.resume));
  FUSEDNORM_RETURN_IF_ERROR(
      PrefixStatus(CheckResumeState(state, p, o.recipe.split),
                   absl::StrCat(o.resume, ": ")));
  if (state.epoch < o.recipe.epoch) {
    return InvalidArgumentCat(
        o.resume, ": the state is at epoch ", state.epoch,
        ", before this run's first (--epoch = ", o.recipe.epoch, ")");
  }
  // The state's epoch is in [epoch, epoch + epochs], or the run is over.
  const uint64_t end = uint64_t{o.recipe.epoch} + uint64_t(o.epochs);
  span.first = state.epoch;
  span.start = state.batches;
  span.epochs = state.epoch >= end ? 0 : static_cast<int>(end - state.epoch);
  return span;
}

// --state-out: the run's state (its digests made once), written whole or
// not at all wherever the run stands.
class StateOut {
 public:
  StateOut(const Preprocessor& p, const RunOptions& o) : path_(o.state_out) {
    if (!path_.empty()) state_ = MakeResumeState(p, o.recipe.split, {});
  }
  absl::Status Write(EpochLoader::Position position) {
    if (path_.empty()) return absl::OkStatus();
    state_.MoveTo(position);
    const std::string json = ResumeStateJson(state_) + "\n";
    return WriteFileAtomically(
        path_, {{reinterpret_cast<const uint8_t*>(json.data()), json.size()}});
  }

 private:
  std::string path_;
  ResumeState state_;
};

// One epoch: every batch to the report, the preview, `output` and the
// state.
absl::Status RunEpoch(const Preprocessor& p, const RunOptions& o,
                      const RunSpan& span, int e, EpochBatches& batches,
                      StateOut& state, NpyWriter* output, Progress* progress,
                      Results* r) {
  const EpochOrder rest = Rest(p, o, span.start_of(e));
  FUSEDNORM_RETURN_IF_ERROR(batches.Start(p, o, span.epoch(e), span.start_of(e),
                                          e + 1 < span.epochs));
  for (size_t j = 0;; ++j) {
    FUSEDNORM_ASSIGN_OR_RETURN(const BatchRef batch, batches.Next());
    if (batch == nullptr) break;
    r->skipped += batch->skipped;
    for (size_t k = 0; k < batch->count; ++k) {
      if (!batch->valid[k] && r->skip_reasons.size() < kMaxListedSkips)
        r->skip_reasons.push_back(batch->errors[k]);
    }
    if (output != nullptr) {
      FUSEDNORM_RETURN_IF_ERROR(
          output->Write({batch->data, batch->count * batch->sample_bytes}));
    }
    Keep(*batch, o, r);
    progress->Batch(batch->count);
    FUSEDNORM_RETURN_IF_ERROR(
        state.Write(rest.PositionAfter(span.epoch(e), j + 1)));
  }
  batches.AddTo(r);
  return absl::OkStatus();
}

// --output: this rank's samples of the span's epochs, in order.
absl::StatusOr<std::optional<NpyWriter>> OutputFile(const Preprocessor& p,
                                                    const RunOptions& o,
                                                    const RunSpan& span) {
  if (o.output.empty()) return std::nullopt;
  const int64_t count = static_cast<int64_t>(
      Total(p, o, span, [](const EpochOrder& rest) { return rest.samples(); }));
  FUSEDNORM_ASSIGN_OR_RETURN(NpyWriter w,
                             OutputNpy(o.output, p.fused(o.recipe.split),
                                       p.sample_size(o.recipe.split),
                                       p.channels(o.recipe.split), count));
  return std::optional<NpyWriter>(std::move(w));
}

absl::Status RunEpochs(const Preprocessor& p, const RunOptions& o,
                       const RunSpan& span, Progress* progress, Results* r) {
  FUSEDNORM_ASSIGN_OR_RETURN(std::optional<NpyWriter> output,
                             OutputFile(p, o, span));
  StateOut state(p, o);
  FUSEDNORM_RETURN_IF_ERROR(state.Write({span.first, span.start}));
  EpochBatches batches;
  for (int e = 0; e < span.epochs; ++e) {
    FUSEDNORM_RETURN_IF_ERROR(RunEpoch(p, o, span, e, batches, state,
                                       output ? &*output : nullptr, progress,
                                       r));
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
  // At least a nanosecond: a run with nothing to do prints 0%, not NaN.
  const double work = std::max(1e-9, s.load + s.transforms + s.fused + s.batch);
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
  const double per_image = 1e6 / std::max<size_t>(1, images);  // us
  const std::string batch =
      s.batch > 0 ? absl::StrFormat(", batch %.0f%%", 100 * s.batch / work)
                  : "";
  const std::string batch_us =
      s.batch > 0
          ? absl::StrFormat(", the batch op %.1f us/image", per_image * s.batch)
          : "";
  std::fprintf(out,
               "%zu images in %.2f s: %.0f images/s with %d threads; %zu "
               "skipped\n"
               "kernel %s; worker time: load %.0f%%, transforms %.0f%%%s, "
               "fused %.0f%%%s (the fused op %.1f us/image%s)\n",
               images, secs, images / secs, p.threads(), r.skipped,
               kernel.ok() ? DescribeKernel(**kernel).c_str() : "?",
               100 * s.load / work, 100 * s.transforms / work, ops.c_str(),
               100 * s.fused / work, batch.c_str(), per_image * s.fused,
               batch_us.c_str());
  if (r.decoded.whole > 0) {
    std::fprintf(out, "decoded %.0f%% of the encoded images' pixels\n",
                 100.0 * r.decoded.decoded / r.decoded.whole);
  }
  const NetworkCounters net = p.dataset().network();
  if (net.requests > 0) {
    std::fprintf(out,
                 "network: %llu requests, %.3f MB fetched, %llu retries, "
                 "%llu samples from cache_dir; the read-ahead stopped at its "
                 "memory bound %llu times and used %.2f s of CPU; workers "
                 "waited %.2f s for bytes\n",
                 static_cast<unsigned long long>(net.requests),
                 net.bytes * 1e-6, static_cast<unsigned long long>(net.retries),
                 static_cast<unsigned long long>(net.from_cache),
                 static_cast<unsigned long long>(net.bound_stops),
                 net.fetch_cpu_seconds, net.wait_seconds);
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
  if (r.skipped > r.skip_reasons.size()) {
    std::fprintf(out,
                 "skipped %zu more samples, not listed (the first %zu are)\n",
                 r.skipped - r.skip_reasons.size(), r.skip_reasons.size());
  }
}

absl::Status WritePreviewFile(FILE* out, const Preprocessor& p,
                              const RunOptions& o, const Results& r) {
  if (!o.output.empty())
    std::fprintf(out, "wrote %s\n", OneLine(o.output).c_str());
  if (o.preview.empty()) return absl::OkStatus();
  FUSEDNORM_RETURN_IF_ERROR(
      WritePreview(o.preview, r.preview, p.fused(o.recipe.split),
                   p.sample_size(o.recipe.split), p.channels(o.recipe.split)));
  std::fprintf(out, "wrote %s (%zu samples)\n", OneLine(o.preview).c_str(),
               r.preview.size());
  return absl::OkStatus();
}

}  // namespace

absl::Status RunCommand(const SettingValues& flags, FILE* out, FILE* err) {
  FUSEDNORM_ASSIGN_OR_RETURN(const RunOptions o, RunOptionsFromFlags(flags));
  // The lists came from flags: checked before the data is opened.
  if (absl::Status lists = CheckRecipeLists(o.recipe); !lists.ok())
    return AsUsageError(lists);
  FUSEDNORM_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> data,
                             OpenRecipeDataset(o.recipe));
  // Everything the builder checks came from a flag.
  absl::StatusOr<Preprocessor> built = BuildRecipe(o.recipe, data);
  if (!built.ok()) return AsUsageError(built.status());
  const Preprocessor& p = *built;
  std::fprintf(out, "dataset %s, %zu images; %s\n",
               OneLine(data->name()).c_str(), p.samples_per_epoch(),
               p.Describe(o.recipe.split).c_str());
  FUSEDNORM_ASSIGN_OR_RETURN(const RunSpan span, Span(p, o));
  if (!o.resume.empty() && span.epochs == 0) {
    std::fprintf(out,
                 "nothing left to run: the state is at epoch %llu, past this "
                 "run's last\n",
                 static_cast<unsigned long long>(span.first));
  } else if (!o.resume.empty()) {
    std::fprintf(out, "resuming epoch %llu after %llu of its batches\n",
                 static_cast<unsigned long long>(span.first),
                 static_cast<unsigned long long>(span.start));
  }
  Progress progress(err, Total(p, o, span, [](const EpochOrder& rest) {
                      return rest.batches();
                    }));
  Results r;
  const Interruptible interruptible;  // Ctrl-C cancels the epoch
  FUSEDNORM_RETURN_IF_ERROR(RunEpochs(p, o, span, &progress, &r));
  Report(out, p, o, progress, r);
  return WritePreviewFile(out, p, o, r);
}

}  // namespace fusednorm
