// A split's transform chain as the workers run it: the real ops in order,
// then ONE FusedNormalization that carries the record-only ops' parameters
// (docs/design.md, "The sample path"). Internal to pipeline/.
#ifndef FUSEDNORM_PIPELINE_CHAIN_H_
#define FUSEDNORM_PIPELINE_CHAIN_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ops/fused_normalization.h"
#include "ops/transforms.h"

namespace fusednorm {

struct Chain {
  std::vector<std::unique_ptr<PreprocessOp>> ops;  // real ops, in order
  std::optional<FusedNormalization> fused;
  Size2 size;               // every sample's size after the real ops
  size_t sample_bytes = 0;  // the fused op's output per sample
};

// Builds the chain of transform list `list` (named `list_name` in errors):
// copies of its real ops, and the fused op made from `base` plus the flip and
// erase the list's record-only ops carry (none of either when absent).
// Normalize in the list, a record-only op given twice, erasing when
// `allow_erase` is false, or an output size that neither the list nor
// `sample_size` fixes, are InvalidArgument naming the list and position.
// `channels` is the dataset's.
absl::StatusOr<Chain> BuildChain(
    const std::vector<std::unique_ptr<PreprocessOp>>& list,
    const char* list_name, bool allow_erase,
    const FusedNormalizationOptions& base,
    const std::optional<Size2>& sample_size, int channels);

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_CHAIN_H_
