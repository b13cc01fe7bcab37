// Writing an output file so that a failed or interrupted run never leaves a
// partial one: the bytes go to path + ".tmp", which is renamed into place.
#ifndef FUSEDNORM_TOOLS_ATOMIC_FILE_H_
#define FUSEDNORM_TOOLS_ATOMIC_FILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace fusednorm {

// Writes `chunks`, concatenated, to `path`. On failure nothing is left at
// `path` or `path.tmp`, and the error names the path and the reason.
absl::Status WriteFileAtomically(
    const std::string& path,
    const std::vector<absl::Span<const uint8_t>>& chunks);

}  // namespace fusednorm

#endif  // FUSEDNORM_TOOLS_ATOMIC_FILE_H_
