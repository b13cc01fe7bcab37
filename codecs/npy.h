// Minimal .npy (NumPy format 1.0/2.0): parsing in place, and headers for
// writing. Used by shards (.npy samples) and the command-line program.
#ifndef FUSEDNORM_CODECS_NPY_H_
#define FUSEDNORM_CODECS_NPY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace fusednorm {

struct NpyArray {
  std::string descr;  // e.g. "|u1", "<f4"
  std::vector<int64_t> shape;
  absl::Span<const uint8_t> data;  // C order, inside the parsed bytes
};

// Parses .npy bytes (the array's data stays where it is); `what` names the
// file in errors. Only C-order arrays whose data size matches the shape
// exactly; every dimension in 1..2^24 and at most 2^34 bytes.
absl::StatusOr<NpyArray> ParseNpy(absl::Span<const uint8_t> bytes,
                                  const std::string& what);

// ParseNpy for an image: also checks that it is a uint8 (H, W, C) array with
// C in 1..4.
absl::StatusOr<NpyArray> ParseNpyImage(absl::Span<const uint8_t> bytes,
                                       const std::string& what);

// The .npy bytes of a header for `descr` and `shape`, to be followed by the
// data.
std::string NpyHeader(const std::string& descr,
                      const std::vector<int64_t>& shape);

}  // namespace fusednorm

#endif  // FUSEDNORM_CODECS_NPY_H_
