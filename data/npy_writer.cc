// Writing .npy files (npy.h).
#include "data/npy_writer.h"

#include "data/atomic_file.h"

namespace fusednorm {

absl::Status WriteNpy(const std::string& path, const std::string& descr,
                      const std::vector<int64_t>& shape,
                      const std::vector<absl::Span<const uint8_t>>& chunks) {
  const std::string header = NpyHeader(descr, shape);
  std::vector<absl::Span<const uint8_t>> all = {absl::MakeConstSpan(
      reinterpret_cast<const uint8_t*>(header.data()), header.size())};
  all.insert(all.end(), chunks.begin(), chunks.end());
  return WriteFileAtomically(path, all);
}

}  // namespace fusednorm
