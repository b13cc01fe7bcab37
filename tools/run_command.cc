// `fusednorm run`: builds the Preprocessor the flags describe (training:
// RandomResizedCrop, flip, erase; val: Resize, CenterCrop), runs its epochs,
// and reports throughput and where the workers spent their time; optionally
// keeps every batch for --output and the first samples for --preview.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/dispatch.h"
#include "pipeline/preprocessor.h"
#include "tools/commands.h"
#include "tools/exit_code.h"
#include "tools/options.h"
#include "tools/output_npy.h"
#include "tools/preview.h"
#include "tools/progress.h"
#include "util/status_macros.h"

namespace fusednorm {
namespace {

constexpr size_t kPreviewSamples = 16;

// The first `n` samples of a dataset.
class Prefix : public Dataset {
 public:
  Prefix(std::shared_ptr<const Dataset> d, size_t n)
      : d_(std::move(d)), n_(n) {}
  std::string name() const override {
    return absl::StrCat(d_->name(), "[:", n_, "]");
  }
  size_t size() const override { return n_; }
  int channels() const override { return d_->channels(); }
  absl::StatusOr<Sample> Get(size_t i) const override { return d_->Get(i); }

 private:
  std::shared_ptr<const Dataset> d_;
  size_t n_;
};

absl::StatusOr<std::shared_ptr<const Dataset>> OpenData(const RunOptions& o) {
  FUSEDNORM_ASSIGN_OR_RETURN(
      std::shared_ptr<const Dataset> data,
      !o.data.empty() ? OpenImageFolder(o.data)
                      : OpenDataset(o.dataset, o.path, o.split == Split::kVal));
  if (o.images > 0 && static_cast<size_t>(o.images) < data->size())
    data = std::make_shared<Prefix>(data, static_cast<size_t>(o.images));
  return data;
}

absl::StatusOr<Preprocessor> Build(const RunOptions& o,
                                   std::shared_ptr<const Dataset> data) {
  const FusedNormalizationOptions& n = o.normalization;
  PreprocessorBuilder b;
  b.dataset(std::move(data))
      .dtype(n.dtype)
      .mode(n.mode)
      .kernel(n.kernel)
      .batch_size(o.batch)
      .threads(o.threads)
      .seed(o.seed);
  if (n.layout) b.layout(*n.layout);
  if (n.mean.empty()) {
    b.normalization(n.preset);
  } else {
    b.normalization(n.mean, n.std);
  }
  b.train_transforms(RandomResizedCrop(o.size), RandomHorizontalFlip(),
                     RandomErasing(0.5))
      .val_transforms(Resize(o.size * 256 / 224), CenterCrop(o.size));
  // Everything the builder checks came from a flag.
  absl::StatusOr<Preprocessor> p = b.Commit();
  if (!p.ok()) return AsUsageError(p.status());
  return p;
}

// What the epochs produced: totals, and the bytes kept for --output and
// --preview.
struct Results {
  EpochLoader::StageSeconds stages;
  size_t skipped = 0;
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
                               p.StartEpoch(o.split, e));
    for (;;) {
      FUSEDNORM_ASSIGN_OR_RETURN(const Batch* batch, loader->Next());
      if (batch == nullptr) break;
      r->skipped += batch->skipped;
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
  const FusedNormalization& fused = p.fused(o.split);
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
}

absl::Status WriteFiles(FILE* out, const Preprocessor& p, const RunOptions& o,
                        const Results& r, size_t images) {
  const FusedNormalization& fused = p.fused(o.split);
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

absl::Status RunCommand(FILE* out, FILE* err) {
  FUSEDNORM_ASSIGN_OR_RETURN(const RunOptions o, RunOptionsFromFlags());
  FUSEDNORM_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> data, OpenData(o));
  FUSEDNORM_ASSIGN_OR_RETURN(const Preprocessor p, Build(o, data));
  std::fprintf(out, "dataset %s, %zu images; %s\n", data->name().c_str(),
               data->size(), p.Describe(o.split).c_str());
  Progress progress(err, p.batches_per_epoch() * o.epochs);
  Results r;
  FUSEDNORM_RETURN_IF_ERROR(RunEpochs(p, o, &progress, &r));
  Report(out, p, o, progress, r);
  return WriteFiles(out, p, o, r, progress.images());
}

}  // namespace fusednorm
