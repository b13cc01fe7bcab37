// BuildChain (chain.h): the chain rules of docs/design.md, one check per
// function.
#include "pipeline/chain.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace fusednorm {
namespace {

using FusedPart = PreprocessOp::FusedPart;

const char* PartName(FusedPart part) {
  switch (part) {
    case FusedPart::kFlip:
      return "RandomHorizontalFlip";
    case FusedPart::kErase:
      return "RandomErasing";
    default:
      return "Normalize";
  }
}

// Checks one record-only op at `where` against the list so far (`seen`, by
// part).
absl::Status CheckRecordOnly(FusedPart part, const char* list_name,
                             bool allow_erase, const std::string& where,
                             bool seen[4]) {
  if (part == FusedPart::kNormalize) {
    return InvalidArgumentCat(
        where,
        ": Normalize does not belong in a transform list; use the "
        "normalization setting");
  }
  if (part == FusedPart::kErase && !allow_erase) {
    return InvalidArgumentCat(
        where, ": RandomErasing is for training only, not ", list_name);
  }
  bool& s = seen[static_cast<int>(part)];
  if (s)
    return InvalidArgumentCat(where, ": ", PartName(part), " appears twice");
  s = true;
  return absl::OkStatus();
}

// The size every sample has after the real ops: the last op's fixed size, or
// `sample_size`; they must agree when both are given.
absl::StatusOr<Size2> SampleSize(const char* list_name,
                                 const std::optional<Size2>& fixed,
                                 const std::optional<Size2>& sample_size) {
  if (fixed && sample_size &&
      (fixed->height != sample_size->height ||
       fixed->width != sample_size->width)) {
    return InvalidArgumentCat(list_name, " end in ", fixed->height, "x",
                              fixed->width, " but sample_size is ",
                              sample_size->height, "x", sample_size->width);
  }
  if (fixed) return *fixed;
  if (sample_size) return *sample_size;
  return InvalidArgumentCat(
      list_name,
      ": no transform fixes the output size (end the list with a "
      "crop or an exact Resize, or set sample_size)");
}

// The fused op for `options`, checked against the dataset's channels.
absl::Status AddFused(const char* list_name,
                      const FusedNormalizationOptions& options, int channels,
                      Chain* chain) {
  absl::StatusOr<FusedNormalization> fused =
      FusedNormalization::Create(options);
  if (!fused.ok())
    return PrefixStatus(fused.status(), absl::StrCat(list_name, ": "));
  if (fused->channels() != 0 && fused->channels() != channels) {
    return InvalidArgumentCat("the normalization is for ", fused->channels(),
                              " channels but the dataset's images have ",
                              channels);
  }
  FUSEDNORM_ASSIGN_OR_RETURN(
      chain->sample_bytes,
      fused->OutputBytes(chain->size.height, chain->size.width, channels));
  chain->fused.emplace(*std::move(fused));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Chain> BuildChain(
    const std::vector<std::unique_ptr<PreprocessOp>>& list,
    const char* list_name, bool allow_erase,
    const FusedNormalizationOptions& base,
    const std::optional<Size2>& sample_size, int channels) {
  FusedNormalizationOptions options = base;
  options.flip_p = 0.0;
  options.erase.enabled = false;
  bool seen[4] = {};
  std::optional<Size2> fixed;
  Chain chain;
  for (size_t i = 0; i < list.size(); ++i) {
    const PreprocessOp& op = *list[i];
    const std::string where =
        absl::StrCat(list_name, " position ", i, " (", op.name(), ")");
    const FusedPart part = op.fused_part();
    if (part != FusedPart::kNone) {
      FUSEDNORM_RETURN_IF_ERROR(
          CheckRecordOnly(part, list_name, allow_erase, where, seen));
      op.FuseInto(&options);
      continue;
    }
    FUSEDNORM_RETURN_IF_ERROR(PrefixStatus(op.Validate(), where + ": "));
    // A real op without a fixed size (a shorter-side Resize) makes the size
    // depend on the image again.
    fixed = op.FixedOutputSize();
    chain.ops.push_back(op.Clone());
  }
  FUSEDNORM_ASSIGN_OR_RETURN(chain.size,
                             SampleSize(list_name, fixed, sample_size));
  FUSEDNORM_RETURN_IF_ERROR(AddFused(list_name, options, channels, &chain));
  return chain;
}

}  // namespace fusednorm
