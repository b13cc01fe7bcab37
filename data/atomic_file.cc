// AtomicFile and WriteFileAtomically (atomic_file.h).
#include "data/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace fusednorm {

absl::StatusOr<AtomicFile> AtomicFile::Create(const std::string& path) {
  FILE* f = std::fopen((path + ".tmp").c_str(), "wb");
  if (f == nullptr) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot write: ", std::strerror(errno)));
  }
  return AtomicFile(path, f);
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)),
      f_(std::exchange(other.f_, nullptr)),
      written_(other.written_) {}

AtomicFile::~AtomicFile() {
  if (f_ == nullptr) return;
  std::fclose(f_);
  std::remove((path_ + ".tmp").c_str());
}

absl::Status AtomicFile::Fail(int error) {
  if (f_ != nullptr) std::fclose(f_);
  f_ = nullptr;
  std::remove((path_ + ".tmp").c_str());
  return absl::DataLossError(
      absl::StrCat(path_, ": write failed: ", std::strerror(error)));
}

absl::Status AtomicFile::Write(absl::Span<const uint8_t> bytes) {
  if (f_ == nullptr) return Fail(EBADF);
  if (std::fwrite(bytes.data(), 1, bytes.size(), f_) != bytes.size())
    return Fail(errno);
  written_ += bytes.size();
  return absl::OkStatus();
}

absl::Status AtomicFile::Commit() {
  if (f_ == nullptr) return Fail(EBADF);
  FILE* f = std::exchange(f_, nullptr);
  if (std::fclose(f) != 0 ||
      std::rename((path_ + ".tmp").c_str(), path_.c_str()) != 0) {
    return Fail(errno);
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
