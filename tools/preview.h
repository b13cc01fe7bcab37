// The `fusednorm run --preview` picture: a grid of output samples turned back
// into pixels, for a person to look at what the pipeline produced.
#ifndef FUSEDNORM_TOOLS_PREVIEW_H_
#define FUSEDNORM_TOOLS_PREVIEW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ops/fused_normalization.h"
#include "ops/transforms.h"

namespace fusednorm {

// Writes a PNG of `samples` (each an output of `op` for a height x width
// image of `channels` channels) in rows of four, each value de-normalized as
// pixel = (y * std + mean) * 255; one-channel samples are drawn grey.
absl::Status WritePreview(const std::string& path,
                          const std::vector<std::vector<uint8_t>>& samples,
                          const FusedNormalization& op, Size2 size,
                          int channels);

}  // namespace fusednorm

#endif  // FUSEDNORM_TOOLS_PREVIEW_H_
