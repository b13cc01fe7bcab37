// MappedFile: a read-only memory mapping of a whole file that survives the
// file being truncated or rewritten while it is mapped.
//
// Reading a page of a mapping past the file's new end raises SIGBUS, which
// would kill the process. A process-wide SIGBUS handler (installed with the
// first mapping, chaining to any handler installed before it) puts a page
// of zeros in place of such a page and marks its file, so the read goes on.
// Whoever used the bytes then asks CheckUnchanged(), which fails when a
// page was replaced or when the file's size, inode version or modification
// time differ from those at open (a file rewritten in place). A file
// replaced by rename keeps the mapped version intact and passes the check.
// Faults of addresses that are not in a MappedFile reach the previous
// handler (by default: the signal kills the process, as without us).
#ifndef FUSEDNORM_DATA_MAPPED_FILE_H_
#define FUSEDNORM_DATA_MAPPED_FILE_H_

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace fusednorm {

class MappedFile {
 public:
  // Maps `path`: NotFound when it does not exist, InvalidArgument when it
  // cannot be opened or mapped, ResourceExhausted when too many files are
  // mapped at once (65536).
  static absl::StatusOr<std::unique_ptr<MappedFile>> Open(
      const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // The file's bytes as mapped (empty for an empty file).
  absl::Span<const uint8_t> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }
  // The file's modification time when it was opened, in ns since 1970.
  int64_t mtime_ns() const {
    return int64_t{opened_.st_mtim.tv_sec} * 1000000000 +
           opened_.st_mtim.tv_nsec;
  }

  // The file itself (device, inode) when it was opened: two paths to one
  // file (a link, "./a.tar" and "a.tar") have the same.
  std::pair<uint64_t, uint64_t> identity() const {
    return {static_cast<uint64_t>(opened_.st_dev),
            static_cast<uint64_t>(opened_.st_ino)};
  }

  // OK while the mapping still shows the file as it was opened; DataLoss
  // naming the file once it was truncated or rewritten in place.
  absl::Status CheckUnchanged() const;

 private:
  MappedFile() = default;

  std::string path_;
  int fd_ = -1;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  struct stat opened_ = {};
  int slot_ = -1;  // in the fault handler's table of mappings
};

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_MAPPED_FILE_H_
