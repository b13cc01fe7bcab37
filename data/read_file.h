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
                          size_t max_bytes);

// The same into a new vector.
absl::StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path,
                                                   size_t max_bytes);

// The bounds the readers of whole files use, so that a file that claims
// (or sparsely holds) gigabytes is refused before its memory is taken.
// One image file: 2^28 pixels of 4 channels (more than the decoders'
// largest image, codecs' kMaxDecodedPixels), as an .npy's bytes or more
// than any compressed file of it, plus 1 MiB.
inline constexpr size_t kMaxImageFileBytes = (size_t{1} << 30) + (1 << 20);
// One file of a built-in dataset (an MNIST idx file, a CIFAR-10 batch):
// 2 GiB, some 40 times MNIST's largest.
inline constexpr size_t kMaxDatasetFileBytes = size_t{2} << 30;

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_READ_FILE_H_
