// Status and buffer conversions (convert.h).
#include "python/convert.h"

#include <cstdint>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/format_names.h"
#include "core/image.h"
#include "core/one_line.h"
#include "ops/op_args.h"

namespace fusednorm {

void Raise(const absl::Status& status, NotFound not_found) {
  if (status.ok()) return;
  // As one line: a file's name in it may hold control bytes.
  const std::string message = OneLine(status.message());
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
      if (IsTypeError(status)) throw py::type_error(message);
      throw py::value_error(message);
    case absl::StatusCode::kOutOfRange:
      throw py::value_error(message);
    case absl::StatusCode::kResourceExhausted:
      PyErr_SetString(PyExc_MemoryError, message.c_str());
      throw py::error_already_set();
    case absl::StatusCode::kNotFound:
      if (not_found == NotFound::kName) throw py::value_error(message);
      PyErr_SetString(PyExc_FileNotFoundError, message.c_str());
      throw py::error_already_set();
    case absl::StatusCode::kUnimplemented:
      PyErr_SetString(PyExc_NotImplementedError, message.c_str());
      throw py::error_already_set();
    default:
      throw std::runtime_error(message);
  }
}

namespace {

// The text of `v`'s dtype (an array's, a NumPy scalar's, a tensor's), or ""
// for a value without one.
std::string DTypeText(const py::handle& v) {
  if (!PyObject_HasAttrString(v.ptr(), "dtype")) return "";
  return py::str(v.attr("dtype"));
}

// A buffer's element type as NumPy names it ("float64"), else its format.
std::string ElementName(const py::buffer_info& b) {
  try {
    return py::str(py::dtype(b));
  } catch (const std::exception&) {
    PyErr_Clear();
    return "format \"" + b.format + "\"";
  }
}

// Largest image or batch ReadImages copies into rows.
constexpr int64_t kMaxPackedBytes = int64_t{1} << 32;

// Gathers im's pixels, at the buffer's strides (any sign), into rows of
// their own.
void Pack(const py::buffer_info& b, Images* im) {
  const size_t o = im->batched ? 1 : 0;
  const int64_t n = im->n, h = im->h, w = im->w, c = im->c;
  // The shape's product may overflow: each side is checked against what
  // the bound leaves.
  const bool empty = n == 0 || h == 0 || w == 0 || c == 0;
  int64_t left = kMaxPackedBytes;
  for (const int64_t d : {n, h, w, int64_t{c}}) {
    if (!empty && d > left) {
      // The shape as given: (N,) H, W (, C).
      const std::string shape =
          absl::StrCat(im->batched ? absl::StrCat(n, "x") : "", h, "x", w,
                       im->gray ? "" : absl::StrCat("x", c));
      throw py::value_error(absl::StrCat(
          "image of shape ", shape,
          " is not contiguous within rows and too large to copy into rows "
          "(over ",
          kMaxPackedBytes, " bytes)"));
    }
    if (d != 0) left /= d;
  }
  const int64_t row = empty ? 0 : w * c;
  const int64_t sx = b.strides[o + 1], sc = im->gray ? 0 : b.strides[o + 2];
  auto packed = std::make_shared<std::vector<uint8_t>>(empty ? 0 : n * h * row);
  uint8_t* out = packed->data();
  for (int64_t i = 0; i < n && !empty; ++i) {
    for (int64_t y = 0; y < h; ++y) {
      const uint8_t* in = im->data + i * im->image_stride + y * im->row_stride;
      for (int64_t x = 0; x < w; ++x) {
        for (int64_t k = 0; k < c; ++k) *out++ = in[x * sx + k * sc];
      }
    }
  }
  im->packed = packed;
  im->data = packed->data();
  im->row_stride = row;
  im->image_stride = h * row;
}

}  // namespace

Images ReadImages(const py::buffer& image, bool gray_too) {
  Images im;
  im.buffer = std::make_shared<const py::buffer_info>(image.request());
  const py::buffer_info& b = *im.buffer;
  if (b.format != py::format_descriptor<uint8_t>::format() || b.itemsize != 1)
    throw py::type_error("image must hold uint8 values, not " + ElementName(b));
  im.gray = gray_too && b.ndim == 2;
  if (b.ndim != 3 && b.ndim != 4 && !im.gray)
    throw py::value_error(std::string("image must have shape (H, W, C) or ") +
                          (gray_too ? "(H, W)" : "(N, H, W, C)") + ", not " +
                          std::to_string(b.ndim) + " dimensions");
  im.batched = b.ndim == 4;
  const size_t o = im.batched ? 1 : 0;
  im.data = static_cast<const uint8_t*>(b.ptr);
  im.n = im.batched ? b.shape[0] : 1;
  im.h = b.shape[o];
  im.w = b.shape[o + 1];
  im.c = im.gray ? 1 : static_cast<int>(b.shape[o + 2]);
  // A dimension of size 1 may have any stride (NumPy gives new axes 0).
  const bool packed = (im.c == 1 || b.strides[o + 2] == 1) &&
                      (im.w == 1 || b.strides[o + 1] == im.c);
  im.row_stride = b.strides[o];
  im.image_stride = im.batched ? b.strides[0] : 0;
  // Rows that overlap (a stride under a row's bytes: 0 when broadcast) are
  // copied too, as are reversed ones.
  const bool overlapping = im.h > 1 && im.c > 0 && im.row_stride / im.c < im.w;
  if (!packed || overlapping || im.row_stride < 0 || im.image_stride < 0)
    Pack(b, &im);
  im.bytes =
      im.n == 0 || im.h == 0
          ? 0
          : static_cast<size_t>((im.n - 1) * im.image_stride +
                                (im.h - 1) * im.row_stride + im.w * im.c);
  return im;
}

int ArrayDimensions(const py::handle& v) {
  // A class (numpy.float32, numpy.ndarray) has the attributes too, as
  // descriptors: no array.
  if (PyUnicode_Check(v.ptr()) || PyType_Check(v.ptr()) ||
      !py::hasattr(v, "ndim") || !py::hasattr(v, "tolist"))
    return -1;
  const py::object ndim = v.attr("ndim");
  if (!PyLong_Check(ndim.ptr())) return -1;
  return ndim.cast<int>();
}

bool IsBool(const py::handle& v) {
  if (PyBool_Check(v.ptr())) return true;
  // numpy.bool_ (numpy.bool since NumPy 2), without importing NumPy here.
  const std::string type = Py_TYPE(v.ptr())->tp_name;
  if (type == "numpy.bool_" || type == "numpy.bool") return true;
  // A bool array or tensor (whose one value passes for an int otherwise).
  const std::string dtype = DTypeText(v);
  return dtype == "bool" || dtype == "torch.bool";
}

bool IsComplex(const py::handle& v) {
  if (PyComplex_Check(v.ptr())) return true;
  const std::string dtype = DTypeText(v);
  return absl::StartsWith(dtype, "complex") ||
         absl::StartsWith(dtype, "torch.complex");
}

void CheckDecisionSides(const char* call, int64_t height, int64_t width) {
  if (height < 1 || width < 1 || height > kMaxSide || width > kMaxSide) {
    throw py::value_error(absl::StrCat(call, ": height = ", height,
                                       ", width = ", width,
                                       ": both must be in 1..", kMaxSide));
  }
}

py::dtype NumpyDType(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return py::dtype("float32");
    case DType::kFloat16:
      return py::dtype("float16");
    default:
      return py::dtype("uint16");
  }
}

std::vector<py::ssize_t> OutputShape(const FusedNormalization& op, int64_t h,
                                     int64_t w, int c) {
  const std::vector<int64_t> shape = op.OutputShape(h, w, c);
  return std::vector<py::ssize_t>(shape.begin(), shape.end());
}

py::tuple DecisionsTuple(const Augmentation& aug) {
  py::object erase = py::none();
  if (!aug.erase.empty()) {
    erase = py::make_tuple(aug.erase.top, aug.erase.left, aug.erase.height,
                           aug.erase.width);
  }
  return py::make_tuple(aug.flip, erase);
}

namespace {

// The buffer-protocol formats an output of `dtype` may have.
bool FormatFits(const py::buffer_info& b, DType dtype) {
  if (static_cast<size_t>(b.itemsize) != DTypeSize(dtype)) return false;
  switch (dtype) {
    case DType::kFloat32:
      return b.format == "f";
    case DType::kFloat16:
      return b.format == "e";
    default:
      return b.format != "e";
  }
}

const char* FormatNeeded(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "float32";
    case DType::kFloat16:
      return "float16";
    default:
      return "uint16 or int16 (bfloat16 bits)";
  }
}

}  // namespace

py::array CheckOut(const py::buffer& out, DType dtype,
                   const std::vector<py::ssize_t>& shape) {
  py::array a = py::array::ensure(out);
  if (!a)
    throw py::type_error("out must be an array or support the buffer protocol");
  const py::buffer_info b = out.request(/*writable=*/true);
  // NumPy gives an unaligned array's format as "=f": said as what it is.
  if (reinterpret_cast<uintptr_t>(b.ptr) % DTypeSize(dtype) != 0) {
    throw py::value_error(
        "out is not aligned to its " + std::to_string(DTypeSize(dtype)) +
        "-byte elements (a view at an odd byte offset); use an array NumPy "
        "allocated");
  }
  if (!FormatFits(b, dtype))
    throw py::type_error("out has format \"" + b.format + "\"; " +
                         DTypeName(dtype) + " output needs " +
                         FormatNeeded(dtype));
  if (std::vector<py::ssize_t>(b.shape.begin(), b.shape.end()) != shape)
    throw py::value_error("out has the wrong shape for this output");
  if (!(a.flags() & py::array::c_style))
    throw py::value_error("out must be C-contiguous");
  return a;
}

}  // namespace fusednorm
