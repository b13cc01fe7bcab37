// Minimal .npy (NumPy format 1.0/2.0) reading of uint8 arrays and writing of
// arrays, for the command-line program.
#ifndef FUSEDNORM_TOOLS_NPY_H_
#define FUSEDNORM_TOOLS_NPY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace fusednorm {

struct NpyArray {
  std::string descr;  // e.g. "|u1", "<f4"
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;  // C order
};

// Parses .npy bytes; `what` names the file in errors. Only C-order arrays whose
// data size matches the shape exactly; every dimension in 1..2^24 and at most
// 2^34 bytes.
absl::StatusOr<NpyArray> ParseNpy(absl::Span<const uint8_t> bytes,
                                  const std::string& what);

// The .npy bytes of a header for `descr` and `shape`, to be followed by the
// data.
std::string NpyHeader(const std::string& descr,
                      const std::vector<int64_t>& shape);

// Writes the header, then `chunks` concatenated, to `path`
// (WriteFileAtomically: no partial file on failure).
absl::Status WriteNpy(const std::string& path, const std::string& descr,
                      const std::vector<int64_t>& shape,
                      const std::vector<absl::Span<const uint8_t>>& chunks);

}  // namespace fusednorm

#endif  // FUSEDNORM_TOOLS_NPY_H_
