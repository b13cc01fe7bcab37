// Reading a whole file into memory the caller reuses, with the check that
// the file did not change while it was read (its size and modification
// time before and after): a file rewritten under a running job is an error
// naming it, never a mix of two versions.
#ifndef FUSEDNORM_DATA_READ_FILE_H_
#define FUSEDNORM_DATA_READ_FILE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace fusednorm {

// Reads all of `path` into *out (reusing its storage). NotFound when it
// cannot be opened, InvalidArgument when it is not a regular file (a
// directory, device, pipe or socket: never waited on) or holds more than
// `max_bytes`, DataLoss for a read error or a change while reading,
// ResourceExhausted when the bytes do not fit in memory.
absl::Status ReadFileInto(const std::string& path, std::vector<uint8_t>* out,
                          size_t max_bytes = SIZE_MAX);

// The same into a new vector.
absl::StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path,
                                                   size_t max_bytes = SIZE_MAX);

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_READ_FILE_H_
