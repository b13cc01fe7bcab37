// Writing an output file so that a failed or interrupted run never leaves a
// partial one: the bytes go to path + ".tmp", which is renamed into place
// only when all of them are written.
#ifndef FUSEDNORM_DATA_ATOMIC_FILE_H_
#define FUSEDNORM_DATA_ATOMIC_FILE_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace fusednorm {

// A file written in pieces. Without a successful Commit() (an error, an
// exception, an early return) the destructor removes path.tmp.
class AtomicFile {
 public:
  // Opens path.tmp; the error names the path and the reason.
  static absl::StatusOr<AtomicFile> Create(const std::string& path);
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  ~AtomicFile();

  absl::Status Write(absl::Span<const uint8_t> bytes);
  // Closes and renames path.tmp to path.
  absl::Status Commit();
  uint64_t bytes_written() const { return written_; }

 private:
  AtomicFile(std::string path, FILE* f) : path_(std::move(path)), f_(f) {}
  absl::Status Fail(int error);

  std::string path_;
  FILE* f_ = nullptr;
  uint64_t written_ = 0;
};

// Writes `chunks`, concatenated, to `path`. On failure nothing is left at
// `path` or `path.tmp`, and the error names the path and the reason.
absl::Status WriteFileAtomically(
    const std::string& path,
    const std::vector<absl::Span<const uint8_t>>& chunks);

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_ATOMIC_FILE_H_
