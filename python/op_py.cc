// The op's binding: one image or a batch per call, read through the buffer
// protocol and written into a new array or the caller's `out=`; decisions
// from the op's stream unless given; pickled by its keywords.
#include "python/op_py.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "ops/fused_normalization.h"
#include "python/convert.h"

namespace fusednorm {
namespace {

class PyFusedNormalization {
 public:
  PyFusedNormalization(FusedNormalizationOptions options, uint64_t seed,
                       py::dict kwargs)
      : op_(Value(FusedNormalization::Create(options))),
        seed_(seed),
        kwargs_(std::move(kwargs)) {}

  // Normalizes `image` (one image or a batch; image n draws its decisions
  // from the stream (seed, epoch, index + n) unless `flip` / `erase` are
  // given) into `out` or a new array.
  py::array Call(
      const py::buffer& image, std::optional<py::buffer> out,
      std::optional<bool> flip,
      std::optional<std::tuple<int64_t, int64_t, int64_t, int64_t>> erase,
      uint64_t index, uint32_t epoch) const {
    const Images im = ReadImages(image);
    std::vector<py::ssize_t> shape = OutputShape(op_, im.h, im.w, im.c);
    if (im.batched) shape.insert(shape.begin(), im.n);
    py::array result = out ? CheckOut(*out, op_.dtype(), shape)
                           : py::array(NumpyDType(op_.dtype()), shape);
    const size_t each = Value(op_.OutputBytes(im.h, im.w, im.c));
    uint8_t* dst = static_cast<uint8_t*>(result.mutable_data());
    absl::Status status;
    {
      py::gil_scoped_release release;
      std::vector<ImageView> views(im.n);
      std::vector<Augmentation> augs(im.n);
      for (int64_t k = 0; k < im.n; ++k) {
        SampleStream stream(seed_, epoch, index + k);
        augs[k] = op_.Sample(im.h, im.w, stream);
        if (flip) augs[k].flip = *flip;
        if (erase) {
          const auto& [i, j, h, w] = *erase;
          augs[k].erase = EraseRect{i, j, h, w};
        }
        views[k] =
            ImageView{absl::MakeConstSpan(im.data + k * im.image_stride,
                                          im.bytes - k * im.image_stride),
                      im.h, im.w, im.c, im.row_stride};
      }
      // One call for the batch: every image is checked before a byte is
      // written, and kAuto streams when the whole output is large.
      status = op_.ApplyBatch(views, augs,
                              OutputView{absl::MakeSpan(dst, each * im.n)});
    }
    Raise(status);
    return result;
  }

  // The decisions image `index` of epoch `epoch` gets at height x width:
  // (flip, (top, left, height, width) or None).
  py::tuple Decisions(uint64_t index, uint32_t epoch, int64_t height,
                      int64_t width) const {
    SampleStream stream(seed_, epoch, index);
    return DecisionsTuple(op_.Sample(height, width, stream));
  }

  const FusedNormalization& op() const { return op_; }
  const py::dict& kwargs() const { return kwargs_; }

 private:
  FusedNormalization op_;
  uint64_t seed_;
  py::dict kwargs_;  // the constructor's arguments, for pickling
};

PyFusedNormalization MakeOp(
    const std::string& preset, std::optional<std::vector<float>> mean,
    std::optional<std::vector<float>> std, const std::string& dtype,
    std::optional<std::string> layout, const std::string& mode, double flip_p,
    double erase_p, std::pair<double, double> scale,
    std::pair<double, double> ratio, uint64_t seed, const std::string& kernel) {
  FusedNormalizationOptions o =
      NormalizationOptions(preset, mean, std, dtype, layout, mode, kernel);
  o.flip_p = flip_p;
  o.erase.enabled = erase_p > 0;
  o.erase.p = erase_p;
  std::tie(o.erase.scale_min, o.erase.scale_max) = scale;
  std::tie(o.erase.ratio_min, o.erase.ratio_max) = ratio;
  py::dict kwargs(py::arg("preset") = preset, py::arg("mean") = mean,
                  py::arg("std") = std, py::arg("dtype") = dtype,
                  py::arg("layout") = layout, py::arg("mode") = mode,
                  py::arg("flip_p") = flip_p, py::arg("erase_p") = erase_p,
                  py::arg("erase_scale") = scale,
                  py::arg("erase_ratio") = ratio, py::arg("seed") = seed,
                  py::arg("kernel") = kernel);
  return PyFusedNormalization(o, seed, kwargs);
}

}  // namespace

void BindFusedNormalization(py::module_& m) {
  py::class_<PyFusedNormalization>(m, "FusedNormalization")
      .def(py::init(&MakeOp), py::kw_only(), py::arg("preset") = "imagenet",
           py::arg("mean") = py::none(), py::arg("std") = py::none(),
           py::arg("dtype") = "float32", py::arg("layout") = py::none(),
           py::arg("mode") = "fast", py::arg("flip_p") = 0.5,
           py::arg("erase_p") = 0.0,
           py::arg("erase_scale") = std::make_pair(0.02, 0.33),
           py::arg("erase_ratio") = std::make_pair(0.3, 3.3),
           py::arg("seed") = 0, py::arg("kernel") = "")
      .def("__call__", &PyFusedNormalization::Call, py::arg("image"),
           py::kw_only(), py::arg("out") = py::none(),
           py::arg("flip") = py::none(), py::arg("erase") = py::none(),
           py::arg("index") = 0, py::arg("epoch") = 0)
      .def("decisions", &PyFusedNormalization::Decisions, py::arg("index"),
           py::arg("epoch"), py::arg("height"), py::arg("width"))
      .def_property_readonly("dtype",
                             [](const PyFusedNormalization& p) {
                               return DTypeName(p.op().dtype());
                             })
      .def_property_readonly("layout",
                             [](const PyFusedNormalization& p) {
                               return LayoutName(p.op().layout());
                             })
      .def_property_readonly(
          "mode",
          [](const PyFusedNormalization& p) { return ModeName(p.op().mode()); })
      .def_property_readonly("mean",
                             [](const PyFusedNormalization& p) {
                               return p.op().normalization().mean;
                             })
      .def_property_readonly("std",
                             [](const PyFusedNormalization& p) {
                               return p.op().normalization().std;
                             })
      .def(
          "kernel",
          [](const PyFusedNormalization& p, int channels) {
            return std::string(p.op().kernel_id(channels));
          },
          py::arg("channels") = 3)
      .def(py::pickle(
          [](const PyFusedNormalization& p) { return p.kwargs(); },
          [](const py::dict& kw) {
            return MakeOp(
                kw["preset"].cast<std::string>(),
                kw["mean"].cast<std::optional<std::vector<float>>>(),
                kw["std"].cast<std::optional<std::vector<float>>>(),
                kw["dtype"].cast<std::string>(),
                kw["layout"].cast<std::optional<std::string>>(),
                kw["mode"].cast<std::string>(), kw["flip_p"].cast<double>(),
                kw["erase_p"].cast<double>(),
                kw["erase_scale"].cast<std::pair<double, double>>(),
                kw["erase_ratio"].cast<std::pair<double, double>>(),
                kw["seed"].cast<uint64_t>(), kw["kernel"].cast<std::string>());
          }));
}

}  // namespace fusednorm
