// Writing outputs of a FusedNormalization as one .npy file with the dtype
// and shape NumPy users expect of them, as they are produced.
#ifndef FUSEDNORM_TOOLS_OUTPUT_NPY_H_
#define FUSEDNORM_TOOLS_OUTPUT_NPY_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "core/geometry.h"
#include "data/npy_writer.h"
#include "ops/fused_normalization.h"

namespace fusednorm {

// A writer for `count` outputs of `op` for images of `size` with `channels`
// channels: shape (count, ...) or, without a count, one output's shape;
// (H, W, C), (H, W, 4) or (C, H, W) by layout; dtype <f4, <f2, or <u2
// (bfloat16 bits).
absl::StatusOr<NpyWriter> OutputNpy(const std::string& path,
                                    const FusedNormalization& op, Size2 size,
                                    int channels, std::optional<int64_t> count);

}  // namespace fusednorm

#endif  // FUSEDNORM_TOOLS_OUTPUT_NPY_H_
