// AtomicFile and WriteFileAtomically (atomic_file.h).
#include "data/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "data/file_kind.h"

namespace fusednorm {

namespace {

// OK when `path` is absent or a regular file; a symbolic link, device,
// pipe, socket or directory there would be replaced by the rename (or the
// rename would fail after all the writing), so it is refused up front.
absl::Status CheckReplaceable(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode))
    return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      path, ": cannot write: it exists and is not a regular file (",
      FileKind(st.st_mode), "), which writing whole files would replace"));
}

// The process's umask, read without setting it: /proc/self/status has it
// (Linux 4.7 and later). Else umask(2) is set and put back once, by the
// first caller alone (a static's initialization): two threads doing that
// at once could leave it 0, and every later file world-writable.
mode_t Umask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    absl::string_view v(line);
    if (!absl::ConsumePrefix(&v, "Umask:")) continue;
    v = absl::StripAsciiWhitespace(v);
    mode_t mask = 0;
    bool octal = !v.empty();
    for (const char c : v) {
      octal = octal && c >= '0' && c <= '7';
      mask = mask * 8 + static_cast<mode_t>(c - '0');
    }
    if (octal) return mask & 0777;
    break;  // not the format this reads: the fallback below
  }
  static const mode_t once = [] {
    const mode_t mask = umask(0);
    umask(mask);
    return mask;
  }();
  return once;
}

}  // namespace

absl::StatusOr<AtomicFile> AtomicFile::Create(const std::string& path) {
  if (absl::Status s = CheckReplaceable(path); !s.ok()) return s;
  std::string temp = path + ".tmp-XXXXXX";
  std::vector<char> name(temp.begin(), temp.end());
  name.push_back('\0');
  const int fd = mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot write: cannot make a file beside it (",
                     name.data(), "): ", std::strerror(errno)));
  }
  // mkostemp makes the file 0600; an output file gets the usual mode.
  fchmod(fd, 0666 & ~Umask());
  return AtomicFile(path, name.data(), fd);
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)),
      temp_(std::move(other.temp_)),
      fd_(std::exchange(other.fd_, -1)),
      written_(other.written_) {}

AtomicFile::~AtomicFile() {
  if (fd_ < 0) return;
  close(fd_);
  unlink(temp_.c_str());
}

absl::Status AtomicFile::Fail(const char* step, int error) {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  unlink(temp_.c_str());
  return absl::DataLossError(
      absl::StrCat(path_, ": ", step, " failed: ", std::strerror(error)));
}

absl::Status AtomicFile::Write(absl::Span<const uint8_t> bytes) {
  if (fd_ < 0) return Fail("write", EBADF);
  const uint8_t* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Fail("write", n < 0 ? errno : ENOSPC);
    p += n;
    left -= static_cast<size_t>(n);
  }
  written_ += bytes.size();
  return absl::OkStatus();
}

absl::Status AtomicFile::Commit() {
  if (fd_ < 0) return Fail("write", EBADF);
  if (fsync(fd_) != 0) return Fail("flush to disk", errno);
  const int fd = std::exchange(fd_, -1);
  if (close(fd) != 0) {
    fd_ = -1;
    const int error = errno;
    unlink(temp_.c_str());
    return absl::DataLossError(
        absl::StrCat(path_, ": close failed: ", std::strerror(error)));
  }
  if (absl::Status s = CheckReplaceable(path_); !s.ok()) {
    unlink(temp_.c_str());
    return s;
  }
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    unlink(temp_.c_str());
    return absl::DataLossError(
        absl::StrCat(path_, ": rename failed: ", std::strerror(error)));
  }
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(
    const std::string& path,
    const std::vector<absl::Span<const uint8_t>>& chunks) {
  absl::StatusOr<AtomicFile> file = AtomicFile::Create(path);
  if (!file.ok()) return file.status();
  for (const auto& c : chunks) {
    absl::Status s = file->Write(c);
    if (!s.ok()) return s;
  }
  return file->Commit();
}

}  // namespace fusednorm
