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
#include "core/format_names.h"
#include "ops/fused_normalization.h"
#include "ops/op_settings.h"
#include "python/convert.h"
#include "python/gil.h"
#include "python/settings_py.h"
#include "python/uninitialized.h"
#include "rng/philox.h"

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
    CheckIndices(index, im.n);
    std::vector<py::ssize_t> shape = OutputShape(op_, im.h, im.w, im.c);
    if (im.batched) shape.insert(shape.begin(), im.n);
    py::array result = out ? CheckOut(*out, op_.dtype(), shape)
                           : py::array(NumpyDType(op_.dtype()), shape);
    const size_t each = Value(op_.OutputBytes(im.h, im.w, im.c));
    uint8_t* dst = static_cast<uint8_t*>(result.mutable_data());
    Raise(WithoutGil([&] {
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
      return op_.ApplyBatch(views, augs,
                            OutputView{absl::MakeSpan(dst, each * im.n)});
    }));
    return result;
  }

  // The decisions image `index` of epoch `epoch` gets at height x width:
  // (flip, (top, left, height, width) or None).
  py::tuple Decisions(uint64_t index, uint32_t epoch, int64_t height,
                      int64_t width) const {
    CheckIndices(index, 1);
    CheckDecisionSides("decisions", height, width);
    SampleStream stream(seed_, epoch, index);
    return DecisionsTuple(op_.Sample(height, width, stream));
  }

  // The kernel used for `channels` channels; ValueError when none is.
  std::string Kernel(int channels) const {
    if (channels < 1 || channels > kMaxChannels) {
      throw py::value_error("channels = " + std::to_string(channels) +
                            " must be in 1.." + std::to_string(kMaxChannels));
    }
    const std::string id = op_.kernel_id(channels);
    if (id.empty()) {
      throw py::value_error("no kernel variant runs this op for " +
                            std::to_string(channels) + " channels");
    }
    return id;
  }

  const FusedNormalization& op() const { return op_; }
  const py::dict& kwargs() const { return kwargs_; }

 private:
  // Images index .. index + n - 1 must have streams of their own.
  static void CheckIndices(uint64_t index, int64_t n) {
    if (index >= kSampleIndexLimit ||
        static_cast<uint64_t>(n) > kSampleIndexLimit - index) {
      throw py::value_error("index = " + std::to_string(index) + " with " +
                            std::to_string(n) +
                            " images: sample indices must be below 2^63");
    }
  }

  FusedNormalization op_;
  uint64_t seed_;
  py::dict kwargs_;  // the constructor's arguments, for pickling
};

// The op's keywords: the normalization, flip and erase, the seed. The op
// erases only when asked: erase_p defaults to 0.
const std::vector<const Setting*>& OpRows() {
  static const auto* rows = [] {
    auto* r = new std::vector<const Setting*>(NormalizationSettings());
    for (const Setting* s :
         {&kFlipPSetting, WithDefault(kErasePSetting, "0"), &kEraseScaleSetting,
          &kEraseRatioSetting, &kSeedSetting}) {
      r->push_back(s);
    }
    return r;
  }();
  return *rows;
}

PyFusedNormalization MakeOp(const py::dict& kwargs) {
  const SettingValues v = FromKeywords(kwargs, OpRows(), "FusedNormalization");
  FusedNormalizationOptions o = Value(NormalizationFromSettings(v));
  o.flip_p = Value(v.Float(kFlipPSetting));
  o.erase = Value(EraseFromSettings(v));
  o.erase.enabled = o.erase.p > 0;
  return PyFusedNormalization(o, Value(v.Uint64(kSeedSetting)), kwargs);
}

}  // namespace

void BindFusedNormalization(py::module_& m) {
  py::class_<PyFusedNormalization>(m, "FusedNormalization")
      .def(py::init([](const py::kwargs& kwargs) { return MakeOp(kwargs); }))
      .def("__call__", &PyFusedNormalization::Call, py::arg("image"),
           py::kw_only(), py::arg("out") = py::none(),
           py::arg("flip").noconvert() = py::none(),
           py::arg("erase") = py::none(), py::arg("index") = 0,
           py::arg("epoch") = 0)
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
      .def("kernel", &PyFusedNormalization::Kernel, py::arg("channels") = 3)
      .def(py::pickle([](const PyFusedNormalization& p) { return p.kwargs(); },
                      [](const py::dict& kwargs) { return MakeOp(kwargs); }))
      // Every protocol as protocol 2 does it: Python's own way for 0 and 1
      // (copyreg._reduce_ex) calls the base type, which makes nothing.
      .def("__reduce_ex__",
           [](const py::object& self, int) {
             return py::make_tuple(
                 py::module_::import("copyreg").attr("__newobj__"),
                 py::make_tuple(py::type::of(self)),
                 self.attr("__getstate__")());
           })
      .def_property_readonly_static(
          "settings", [](py::object) { return DescribeSettings(OpRows()); });
  RefuseUninitialized<PyFusedNormalization>();
}

}  // namespace fusednorm
