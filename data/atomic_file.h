// Writing an output file so that a failed or interrupted run never leaves a
// partial one, and two runs writing the same path never mix: the bytes go
// to a temporary file of this writer's own (PATH.tmp-XXXXXX, created
// exclusively next to PATH), which is flushed to disk and renamed into place
// only when all of them are written. The last writer to finish wins, whole.
// A path that holds something other than a regular file (a symbolic link,
// a device such as /dev/full, a pipe, a directory) is refused, at Create
// and again before the rename: replacing it is never what was meant.
#ifndef FUSEDNORM_DATA_ATOMIC_FILE_H_
#define FUSEDNORM_DATA_ATOMIC_FILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace fusednorm {

// A file written in pieces. Without a successful Commit() (an error, an
// exception, an early return) the destructor removes the temporary file.
class AtomicFile {
 public:
  // Creates the temporary file; the error names the path and the reason.
  static absl::StatusOr<AtomicFile> Create(const std::string& path);
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  ~AtomicFile();

  // Appends `bytes`; DataLoss naming the path on failure (then the file is
  // abandoned: later calls fail too).
  absl::Status Write(absl::Span<const uint8_t> bytes);
  // Flushes the file to disk and renames it to the path.
  absl::Status Commit();
  uint64_t bytes_written() const { return written_; }
  const std::string& temporary_path() const { return temp_; }

 private:
  AtomicFile(std::string path, std::string temp, int fd)
      : path_(std::move(path)), temp_(std::move(temp)), fd_(fd) {}
  absl::Status Fail(const char* step, int error);

  std::string path_, temp_;
  int fd_ = -1;
  uint64_t written_ = 0;
};

// Writes `chunks`, concatenated, to `path`. On failure nothing is left at
// `path` or in a temporary file, and the error names the path and the
// reason.
absl::Status WriteFileAtomically(
    const std::string& path,
    const std::vector<absl::Span<const uint8_t>>& chunks);

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_ATOMIC_FILE_H_
