// Conversions shared by the extension's bindings: statuses to Python
// exceptions, and uint8 arrays to the image views the C++ API reads.
#ifndef FUSEDNORM_PYTHON_CONVERT_H_
#define FUSEDNORM_PYTHON_CONVERT_H_

#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace fusednorm {

namespace py = pybind11;

// What a NotFound status means where it comes from: a missing file (opening
// a dataset) or an unknown name (a kernel id).
enum class NotFound { kFile, kName };

// Raises the Python exception that fits `status`: ValueError for a bad
// argument or name, FileNotFoundError for a missing file, RuntimeError
// otherwise. Needs the GIL.
void Raise(const absl::Status& status, NotFound not_found = NotFound::kName);

template <typename T>
T Value(absl::StatusOr<T> v) {
  Raise(v.status());
  return *std::move(v);
}

// A uint8 image or batch as the C++ op sees it: pixels contiguous within a
// row, rows and images at any stride.
struct Images {
  const uint8_t* data;
  int64_t n, h, w;
  int c;
  int64_t row_stride, image_stride;
  size_t bytes;  // from data to the last pixel's end
  bool batched;
};

// Reads a uint8 (H, W, C) or (N, H, W, C) buffer: TypeError for another
// element type, ValueError for another shape or pixels not contiguous within
// rows.
Images ReadImages(const py::buffer& image);

}  // namespace fusednorm

#endif  // FUSEDNORM_PYTHON_CONVERT_H_
