// Writing .npy files for the command-line program; parsing and headers are
// codecs/npy.h's.
#ifndef FUSEDNORM_DATA_NPY_WRITER_H_
#define FUSEDNORM_DATA_NPY_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "codecs/npy.h"

namespace fusednorm {

// Writes the header, then `chunks` concatenated, to `path`
// (WriteFileAtomically: no partial file on failure).
absl::Status WriteNpy(const std::string& path, const std::string& descr,
                      const std::vector<int64_t>& shape,
                      const std::vector<absl::Span<const uint8_t>>& chunks);

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_NPY_WRITER_H_
