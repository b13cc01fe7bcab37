// WriteFileAtomically (atomic_file.h).
#include "tools/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace fusednorm {

absl::Status WriteFileAtomically(
    const std::string& path,
    const std::vector<absl::Span<const uint8_t>>& chunks) {
  const std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot write: ", std::strerror(errno)));
  }
  bool ok = true;
  for (const auto& c : chunks)
    ok = ok && std::fwrite(c.data(), 1, c.size(), f) == c.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(tmp.c_str());
    return absl::DataLossError(
        absl::StrCat(path, ": write failed: ", std::strerror(error)));
  }
  return absl::OkStatus();
}

}  // namespace fusednorm
