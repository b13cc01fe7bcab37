// resized_crop: one image's box resized with a chosen filter, the step
// RandomResizedCrop takes, so that Python users can compare it with
// torchvision and Pillow themselves.
#include "python/resize_py.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "kernels/resize/resize_dispatch.h"
#include "ops/resize.h"
#include "python/convert.h"
#include "python/gil.h"

namespace fusednorm {
namespace {

py::array ResizedCrop(const py::buffer& image, int64_t top, int64_t left,
                      int64_t height, int64_t width,
                      std::pair<int64_t, int64_t> size,
                      const std::string& filter, const std::string& kernel) {
  const Images im = ReadImages(image);
  if (im.batched) throw py::value_error("image must have shape (H, W, C)");
  const ResizeFilter f = Value(ParseResizeFilter(filter));
  const ImageView view{absl::MakeConstSpan(im.data, im.bytes), im.h, im.w, im.c,
                       im.row_stride};
  const Resizer resizer = Value(Resizer::Create(f, kernel));
  Image out;
  Raise(WithoutGil([&] {
    // A Python thread that calls this in a loop keeps its weights and
    // buffers from call to call, as a loader's worker does.
    thread_local ResizeWorkspace ws;
    return resizer.Resize(view, {top, left, height, width},
                          {size.first, size.second}, &ws, &out);
  }));
  py::array_t<uint8_t> result(
      {out.height, out.width, static_cast<int64_t>(out.channels)});
  std::copy(out.pixels.begin(), out.pixels.end(), result.mutable_data());
  return std::move(result);
}

// The ids of the resize rows this CPU can run.
std::vector<std::string> SupportedResizeKernels() {
  std::vector<std::string> ids;
  for (const ResizeKernelInfo& row : ResizeKernelTable()) {
    if (ResizeKernels().supported(row)) ids.push_back(row.id);
  }
  return ids;
}

}  // namespace

void BindResize(py::module_& m) {
  m.def("resized_crop", &ResizedCrop, py::arg("image"), py::arg("top"),
        py::arg("left"), py::arg("height"), py::arg("width"), py::arg("size"),
        py::kw_only(), py::arg("filter") = "pil", py::arg("kernel") = "");
  m.def("resize_kernels", &SupportedResizeKernels);
}

}  // namespace fusednorm
