// OutputNpy (output_npy.h): the dtype and shape of the op's outputs.
#include "tools/output_npy.h"

#include <vector>

namespace fusednorm {

absl::StatusOr<NpyWriter> OutputNpy(const std::string& path,
                                    const FusedNormalization& op, Size2 size,
                                    int channels,
                                    std::optional<int64_t> count) {
  std::vector<int64_t> shape =
      op.OutputShape(size.height, size.width, channels);
  if (count) shape.insert(shape.begin(), *count);
  const char* descr = op.dtype() == DType::kFloat32   ? "<f4"
                      : op.dtype() == DType::kFloat16 ? "<f2"
                                                      : "<u2";
  return NpyWriter::Create(path, descr, shape, DTypeSize(op.dtype()));
}

}  // namespace fusednorm
