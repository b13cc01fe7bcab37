// Status and buffer conversions (convert.h).
#include "python/convert.h"

#include <string>

namespace fusednorm {

void Raise(const absl::Status& status, NotFound not_found) {
  if (status.ok()) return;
  const std::string message(status.message());
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
      throw py::value_error(message);
    case absl::StatusCode::kNotFound:
      if (not_found == NotFound::kName) throw py::value_error(message);
      PyErr_SetString(PyExc_FileNotFoundError, message.c_str());
      throw py::error_already_set();
    default:
      throw std::runtime_error(message);
  }
}

Images ReadImages(const py::buffer& image) {
  const py::buffer_info b = image.request();
  if (b.format != py::format_descriptor<uint8_t>::format() || b.itemsize != 1)
    throw py::type_error("image must hold uint8 values, not format \"" +
                         b.format + "\"");
  if (b.ndim != 3 && b.ndim != 4)
    throw py::value_error(
        "image must have shape (H, W, C) or (N, H, W, C), "
        "not " +
        std::to_string(b.ndim) + " dimensions");
  Images im;
  im.batched = b.ndim == 4;
  const size_t o = im.batched ? 1 : 0;
  im.data = static_cast<const uint8_t*>(b.ptr);
  im.n = im.batched ? b.shape[0] : 1;
  im.h = b.shape[o];
  im.w = b.shape[o + 1];
  im.c = static_cast<int>(b.shape[o + 2]);
  // A dimension of size 1 may have any stride (NumPy gives new axes 0).
  const bool packed = (im.c == 1 || b.strides[o + 2] == 1) &&
                      (im.w == 1 || b.strides[o + 1] == im.c);
  if (!packed || b.strides[o] < 0 || (im.batched && b.strides[0] < 0)) {
    throw py::value_error(
        "image pixels must be contiguous within each row (strides (..., C, 1))"
        "; use numpy.ascontiguousarray");
  }
  im.row_stride = b.strides[o];
  im.image_stride = im.batched ? b.strides[0] : 0;
  im.bytes =
      im.n == 0 || im.h == 0
          ? 0
          : static_cast<size_t>((im.n - 1) * im.image_stride +
                                (im.h - 1) * im.row_stride + im.w * im.c);
  return im;
}

}  // namespace fusednorm
