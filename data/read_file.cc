// ReadFileInto (read_file.h).
#include "data/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "data/file_kind.h"

namespace fusednorm {
namespace {

bool SameVersion(const struct stat& a, const struct stat& b) {
  return a.st_size == b.st_size && a.st_ino == b.st_ino &&
         a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
         a.st_mtim.tv_nsec == b.st_mtim.tv_nsec;
}

// Reads exactly `n` bytes at `dst` from `fd`: "" when it did, else why not
// (the read's error, or where the file ended).
std::string ReadFully(int fd, uint8_t* dst, size_t n) {
  const size_t wanted = n;
  while (n > 0) {
    const ssize_t r = read(fd, dst, n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return absl::StrCat("read error: ", std::strerror(errno));
    if (r == 0) {
      return absl::StrCat("the file ended after ", wanted - n, " of its ",
                          wanted, " bytes (shortened while read?)");
    }
    dst += r;
    n -= static_cast<size_t>(r);
  }
  return "";
}

absl::Status ReadOpen(int fd, const std::string& path,
                      std::vector<uint8_t>* out, size_t max_bytes) {
  struct stat before, after;
  if (fstat(fd, &before) != 0) {
    return absl::DataLossError(
        absl::StrCat(path, ": cannot stat: ", std::strerror(errno)));
  }
  if (!S_ISREG(before.st_mode)) {
    return InvalidArgumentCat(path, ": not a regular file (",
                              FileKind(before.st_mode), ")");
  }
  const size_t size = static_cast<size_t>(before.st_size);
  if (size > max_bytes) {
    return InvalidArgumentCat(path, ": ", size, " bytes, more than the ",
                              max_bytes, " it may hold");
  }
  try {
    out->resize(size);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        absl::StrCat(path, ": cannot allocate ", size, " bytes to read it"));
  }
  if (const std::string why = ReadFully(fd, out->data(), size); !why.empty())
    return absl::DataLossError(absl::StrCat(path, ": ", why));
  uint8_t extra;
  const ssize_t more = read(fd, &extra, 1);
  if (more != 0 || fstat(fd, &after) != 0 || !SameVersion(before, after)) {
    return absl::DataLossError(
        absl::StrCat(path, ": the file changed while it was read"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadFileInto(const std::string& path, std::vector<uint8_t>* out,
                          size_t max_bytes) {
  // Non-blocking: opening a pipe must not wait for a writer (regular files
  // ignore the flag).
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  }
  const absl::Status s = ReadOpen(fd, path, out, max_bytes);
  close(fd);
  return s;
}

absl::StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path,
                                                   size_t max_bytes) {
  std::vector<uint8_t> bytes;
  FUSEDNORM_RETURN_IF_ERROR(ReadFileInto(path, &bytes, max_bytes));
  return bytes;
}

}  // namespace fusednorm
