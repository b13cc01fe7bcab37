// Writing a .npy file as it is produced: the header first (the shape is
// known in advance), then the data in pieces, through an AtomicFile, so a
// failed or interrupted write leaves no file and memory holds only the
// piece being written. Parsing and headers are codecs/npy.h's.
#ifndef FUSEDNORM_DATA_NPY_WRITER_H_
#define FUSEDNORM_DATA_NPY_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "data/atomic_file.h"

namespace fusednorm {

class NpyWriter {
 public:
  // Starts `path` for an array of `descr` ("<f4", "|u1", ...) and `shape`.
  static absl::StatusOr<NpyWriter> Create(const std::string& path,
                                          const std::string& descr,
                                          const std::vector<int64_t>& shape,
                                          size_t item_bytes);
  // Appends data bytes; more than the shape holds is an error.
  absl::Status Write(absl::Span<const uint8_t> bytes);
  // Checks that the data is complete and puts the file in place.
  absl::Status Commit();

 private:
  NpyWriter(AtomicFile file, uint64_t data_bytes)
      : file_(std::move(file)), data_bytes_(data_bytes) {}

  AtomicFile file_;
  uint64_t data_bytes_, written_ = 0;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_NPY_WRITER_H_
