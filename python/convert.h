// Conversions shared by the extension's bindings: statuses to Python
// exceptions, uint8 arrays to the image views the C++ API reads, and the
// op's outputs to NumPy arrays.
#ifndef FUSEDNORM_PYTHON_CONVERT_H_
#define FUSEDNORM_PYTHON_CONVERT_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ops/fused_normalization.h"

namespace fusednorm {

namespace py = pybind11;

// What a NotFound status means where it comes from: a missing file (opening
// a dataset) or an unknown name (a kernel id).
enum class NotFound { kFile, kName };

// Raises the Python exception that fits `status`: TypeError for a value of
// the wrong kind (ops/op_args.h's payload), ValueError for a bad argument
// or name, FileNotFoundError for a missing file, MemoryError when
// memory ran out, NotImplementedError (a RuntimeError) for what is fused
// away or compiled out, RuntimeError otherwise. Needs the GIL.
void Raise(const absl::Status& status, NotFound not_found = NotFound::kName);

template <typename T>
T Value(absl::StatusOr<T> v) {
  Raise(v.status());
  return *std::move(v);
}

// A uint8 image or batch as the C++ op sees it: pixels contiguous within a
// row, rows and images at any stride. `buffer` keeps the caller's buffer
// exported while this lives (and releases it, with the GIL held, when this
// goes): without it, another thread could free the memory (a memoryview
// released, its mmap closed) while the op reads it without the GIL.
struct Images {
  std::shared_ptr<const py::buffer_info> buffer;
  // The pixels gathered into rows, when the caller's were not contiguous
  // within rows (a reversed, transposed, strided or broadcast view).
  std::shared_ptr<const std::vector<uint8_t>> packed;
  const uint8_t* data;
  int64_t n, h, w;
  int c;
  int64_t row_stride, image_stride;
  size_t bytes;  // from data to the last pixel's end
  bool batched;
  bool gray = false;  // given as (H, W): one channel
};

// Reads a uint8 (H, W, C) or (N, H, W, C) buffer, or with `gray_too` an
// (H, W) one as one channel: TypeError for another element type, ValueError
// for another shape. Pixels not contiguous within rows are copied into
// rows first, as numpy.ascontiguousarray would (ValueError past 4 GiB).
Images ReadImages(const py::buffer& image, bool gray_too = false);

// The dimensions of a NumPy array or scalar or a torch tensor (anything
// with ndim and tolist, a str aside); -1 for anything else.
int ArrayDimensions(const py::handle& v);

// Whether `v` is True or False, NumPy's bools included (as NumPy's
// integers are ints), or a bool array or tensor.
bool IsBool(const py::handle& v);

// Whether `v` is a complex number, NumPy's and torch's included (whose
// __float__ drops the imaginary part with only a warning).
bool IsComplex(const py::handle& v);

// ValueError unless an image's sides for `call`'s decisions are in
// 1..kMaxSide.
void CheckDecisionSides(const char* call, int64_t height, int64_t width);

// The NumPy dtype of `dtype`'s elements (bfloat16: its uint16 bits).
py::dtype NumpyDType(DType dtype);

// The shape of one output of `op` for an h x w x c image, as NumPy's type.
std::vector<py::ssize_t> OutputShape(const FusedNormalization& op, int64_t h,
                                     int64_t w, int c);

// One image's decisions as (flip, (top, left, height, width) or None).
py::tuple DecisionsTuple(const Augmentation& aug);

// `out` as a C-contiguous array of `dtype` and `shape` that outputs can be
// written into; TypeError or ValueError naming what is wrong.
py::array CheckOut(const py::buffer& out, DType dtype,
                   const std::vector<py::ssize_t>& shape);

}  // namespace fusednorm

#endif  // FUSEDNORM_PYTHON_CONVERT_H_
