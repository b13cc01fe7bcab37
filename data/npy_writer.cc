// NpyWriter (npy_writer.h).
#include "data/npy_writer.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "codecs/npy.h"
#include "core/status.h"

namespace fusednorm {

absl::StatusOr<NpyWriter> NpyWriter::Create(const std::string& path,
                                            const std::string& descr,
                                            const std::vector<int64_t>& shape,
                                            size_t item_bytes) {
  uint64_t bytes = item_bytes;
  for (int64_t d : shape) bytes *= static_cast<uint64_t>(d);
  FUSEDNORM_ASSIGN_OR_RETURN(AtomicFile file, AtomicFile::Create(path));
  const std::string header = NpyHeader(descr, shape);
  FUSEDNORM_RETURN_IF_ERROR(file.Write(
      {reinterpret_cast<const uint8_t*>(header.data()), header.size()}));
  return NpyWriter(std::move(file), bytes);
}

absl::Status NpyWriter::Write(absl::Span<const uint8_t> bytes) {
  if (bytes.size() > data_bytes_ - written_) {
    return absl::InternalError(
        absl::StrCat("npy data of ", written_ + bytes.size(),
                     " bytes exceeds the ", data_bytes_, " its shape holds"));
  }
  written_ += bytes.size();
  return file_.Write(bytes);
}

absl::Status NpyWriter::Commit() {
  if (written_ != data_bytes_) {
    return absl::InternalError(absl::StrCat(
        "npy data of ", written_, " bytes, its shape holds ", data_bytes_));
  }
  return file_.Commit();
}

}  // namespace fusednorm
