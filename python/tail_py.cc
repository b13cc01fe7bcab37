// FusedTail's C++ half: one image per call, from a uint8 HWC array, uint8
// CHW planes or a Pillow image's rows, normalized into a new array. Its
// flip and erase come from the Philox stream (key, epoch 0, index 0), where
// Python draws the key from torch's generator, unless the caller gives both
// (FusedTail's rng="torchvision" draws them as torchvision does).
//
// CHW planes into a CHW output go through one single-channel op per plane,
// with that channel's mean and std: the same constants, so the same bits,
// and the planes are never interleaved.
#include "python/tail_py.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "core/format_names.h"
#include "ops/box_params.h"
#include "ops/fused_normalization.h"
#include "ops/op_settings.h"
#include "python/convert.h"
#include "python/gil.h"
#include "python/pil_image.h"
#include "python/settings_py.h"
#include "python/uninitialized.h"

namespace fusednorm {
namespace {

using EraseTuple = std::tuple<int64_t, int64_t, int64_t, int64_t>;

class PyTail {
 public:
  explicit PyTail(FusedNormalizationOptions options)
      : op_(Value(FusedNormalization::Create(options))) {
    if (op_.layout() == Layout::kCHW) MakePlaneOps(options);
  }

  py::array Hwc(const py::buffer& image, uint64_t key, std::optional<bool> flip,
                std::optional<EraseTuple> erase) const {
    const Images im = ReadImages(image);
    if (im.batched)
      throw py::value_error("FusedTail takes one image, not a batch of " +
                            std::to_string(im.n));
    const ImageView view{absl::MakeConstSpan(im.data, im.bytes), im.h, im.w,
                         im.c, im.row_stride};
    return Normalize(view.height, view.width, view.channels,
                     Decide(im.h, im.w, key, flip, erase),
                     [&](const Augmentation& aug, OutputView out) {
                       return op_.Apply(view, aug, out);
                     });
  }

  // `core` is the image's ImagingCore: this call's reference to it keeps
  // its rows alive while they are read without the GIL, even when another
  // thread closes the image.
  py::array Pil(const py::object& core, uint64_t key, std::optional<bool> flip,
                std::optional<EraseTuple> erase) const {
    const PilRows rows =
        ReadPilRows(core.attr("unsafe_ptrs").cast<py::tuple>(),
                    core.attr("mode").cast<std::string>(),
                    core.attr("size").cast<std::pair<int64_t, int64_t>>());
    const PackPixelsFn pack = Value(DefaultPackPixels());
    const int64_t h = rows.height, w = rows.width;
    const int c = rows.channels;
    return Normalize(h, w, c, Decide(h, w, key, flip, erase),
                     [&](const Augmentation& aug, OutputView out) {
                       const uint8_t* pixels = PackedPixels(rows, pack);
                       const ImageView view{
                           absl::MakeConstSpan(pixels, h * w * c), h, w, c,
                           w * c};
                       return op_.Apply(view, aug, out);
                     });
  }

  py::array Planes(const py::buffer& planes, uint64_t key,
                   std::optional<bool> flip,
                   std::optional<EraseTuple> erase) const;

  double flip_p() const { return op_.flip_p(); }
  double erase_p() const { return op_.erase().enabled ? op_.erase().p : 0.0; }
  std::pair<double, double> erase_scale() const {
    return {op_.erase().scale_min, op_.erase().scale_max};
  }
  std::pair<double, double> erase_ratio() const {
    return {op_.erase().ratio_min, op_.erase().ratio_max};
  }
  const char* dtype() const { return DTypeName(op_.dtype()); }
  const char* layout() const { return LayoutName(op_.layout()); }

  // The decisions key draws for an h x w image: (flip, (top, left,
  // height, width) or None).
  py::tuple Decisions(uint64_t key, int64_t h, int64_t w) const {
    CheckDecisionSides("decide", h, w);
    return DecisionsTuple(Decide(h, w, key, std::nullopt, std::nullopt));
  }

  const FusedNormalization& op() const { return op_; }

 private:
  void MakePlaneOps(FusedNormalizationOptions options) {
    const Normalization& norm = op_.normalization();
    options.layout = Layout::kCHW;
    for (size_t c = 0; c < norm.mean.size(); ++c) {
      options.mean = {norm.mean[c]};
      options.std = {norm.std[c]};
      plane_ops_.push_back(Value(FusedNormalization::Create(options)));
    }
  }

  Augmentation Decide(int64_t h, int64_t w, uint64_t key,
                      std::optional<bool> flip,
                      const std::optional<EraseTuple>& erase) const {
    Augmentation aug;
    if (!flip || !erase) {
      SampleStream stream(key, 0, 0);
      aug = op_.Sample(h, w, stream);
    }
    if (flip) aug.flip = *flip;
    if (erase) {
      const auto& [i, j, eh, ew] = *erase;
      aug.erase = EraseRect{i, j, eh, ew};
    }
    return aug;
  }

  // A new output array for an h x w x c image, written by `apply(aug,
  // output)` without the GIL.
  template <class Apply>
  py::array Normalize(int64_t h, int64_t w, int c, const Augmentation& aug,
                      const Apply& apply) const {
    py::array out(NumpyDType(op_.dtype()), OutputShape(op_, h, w, c));
    const OutputView view{absl::MakeSpan(
        static_cast<uint8_t*>(out.mutable_data()), out.nbytes())};
    Raise(WithoutGil([&] { return apply(aug, view); }));
    return out;
  }

  FusedNormalization op_;
  std::vector<FusedNormalization> plane_ops_;  // CHW layout only
};

// A uint8 (C, H, W) buffer with rows contiguous, as one view per plane;
// `buffer` keeps it exported meanwhile (convert.h's Images).
struct PlaneViews {
  std::shared_ptr<const py::buffer_info> buffer;
  std::vector<ImageView> views;
  int64_t h = 0, w = 0;
};

PlaneViews ReadPlanes(const py::buffer& planes) {
  PlaneViews p;
  p.buffer = std::make_shared<const py::buffer_info>(planes.request());
  const py::buffer_info& b = *p.buffer;
  if (b.format != py::format_descriptor<uint8_t>::format() || b.ndim != 3)
    throw py::type_error(
        "planes must be a uint8 (C, H, W) buffer, not format \"" + b.format +
        "\" with " + std::to_string(b.ndim) + " dimensions");
  p.h = b.shape[1];
  p.w = b.shape[2];
  if ((p.w > 1 && b.strides[2] != 1) || b.strides[1] < p.w || b.strides[0] < 0)
    throw py::value_error("plane rows must be contiguous; use .contiguous()");
  const auto* data = static_cast<const uint8_t*>(b.ptr);
  const size_t plane = p.h == 0 ? 0 : (p.h - 1) * b.strides[1] + p.w;
  for (py::ssize_t c = 0; c < b.shape[0]; ++c) {
    p.views.push_back(
        ImageView{absl::MakeConstSpan(data + c * b.strides[0], plane), p.h, p.w,
                  1, b.strides[1]});
  }
  return p;
}

py::array PyTail::Planes(const py::buffer& planes, uint64_t key,
                         std::optional<bool> flip,
                         std::optional<EraseTuple> erase) const {
  const PlaneViews p = ReadPlanes(planes);
  const int c = static_cast<int>(p.views.size());
  if (plane_ops_.empty())
    throw py::value_error("CHW planes need layout \"chw\", not \"" +
                          std::string(LayoutName(op_.layout())) + "\"");
  if (plane_ops_.size() != 1 && plane_ops_.size() != p.views.size())
    throw py::value_error("the image has " + std::to_string(c) +
                          " channels; the normalization has " +
                          std::to_string(plane_ops_.size()));
  const size_t each = plane_ops_.size();
  return Normalize(
      p.h, p.w, c, Decide(p.h, p.w, key, flip, erase),
      [&](const Augmentation& aug, OutputView out) {
        const size_t plane_bytes = c == 0 ? 0 : out.bytes.size() / c;
        absl::Status status;
        for (int k = 0; k < c && status.ok(); ++k) {
          const FusedNormalization& op = plane_ops_[each == 1 ? 0 : k];
          status = op.Apply(p.views[k], aug,
                            {out.bytes.subspan(k * plane_bytes, plane_bytes)});
        }
        return status;
      });
}

// FusedTail's keywords: the normalization (torchvision's bits in CHW by
// default, as ToTensor and Normalize give them), flip and erase.
const std::vector<const Setting*>& TailRows() {
  static const auto* rows = new std::vector<const Setting*>{
      &kPresetSetting,
      &kMeanSetting,
      &kStdSetting,
      &kDTypeSetting,
      WithDefault(kLayoutSetting, LayoutName(Layout::kCHW),
                  "output layout (default chw, as ToTensor gives it)"),
      WithDefault(kModeSetting, ModeName(Mode::kTorchvisionExact)),
      &kKernelSetting,
      &kFlipPSetting,
      &kErasePSetting,
      &kEraseScaleSetting,
      &kEraseRatioSetting};
  return *rows;
}

PyTail MakeTail(const py::dict& kwargs) {
  const SettingValues v = FromKeywords(kwargs, TailRows(), "FusedTail");
  FusedNormalizationOptions o = Value(NormalizationFromSettings(v));
  o.flip_p = Value(v.Float(kFlipPSetting));
  o.erase = Value(EraseFromSettings(v));
  o.erase.enabled = o.erase.p > 0;
  return PyTail(o);
}

// Draws from Python: an object with scale(lo, hi), aspect(lo, hi) and
// randint(lo, hi) (FusedTail's torchvision draws).
class PyDraws : public BoxDraws {
 public:
  explicit PyDraws(py::object draws) : draws_(std::move(draws)) {}
  double Scale(double lo, double hi) override {
    return draws_.attr("scale")(lo, hi).cast<double>();
  }
  double Aspect(double lo, double hi) override {
    return draws_.attr("aspect")(lo, hi).cast<double>();
  }
  int64_t Int(int64_t lo, int64_t hi) override {
    return draws_.attr("randint")(lo, hi).cast<int64_t>();
  }

 private:
  py::object draws_;
};

// RandomErasing.get_params for a height x width image with `draws`:
// (top, left, height, width), or None when no attempt fits.
py::object EraseBox(int64_t height, int64_t width,
                    std::pair<double, double> scale,
                    std::pair<double, double> ratio, py::object draws) {
  CheckDecisionSides("decide", height, width);
  PyDraws d(std::move(draws));
  const std::optional<CropWindow> box =
      DrawBox(BoxKind::kErase, height, width,
              {scale.first, scale.second, ratio.first, ratio.second}, d);
  if (!box) return py::none();
  return py::make_tuple(box->top, box->left, box->height, box->width);
}

}  // namespace

void BindTail(py::module_& m) {
  m.def("erase_box", &EraseBox, py::arg("height"), py::arg("width"),
        py::arg("scale"), py::arg("ratio"), py::arg("draws"));
  py::class_<PyTail>(m, "Tail")
      .def(py::init([](const py::kwargs& kwargs) { return MakeTail(kwargs); }))
      .def("hwc", &PyTail::Hwc, py::arg("image"), py::arg("key"),
           py::arg("flip").noconvert() = py::none(),
           py::arg("erase") = py::none())
      .def("planes", &PyTail::Planes, py::arg("planes"), py::arg("key"),
           py::arg("flip").noconvert() = py::none(),
           py::arg("erase") = py::none())
      .def("pil", &PyTail::Pil, py::arg("core"), py::arg("key"),
           py::arg("flip").noconvert() = py::none(),
           py::arg("erase") = py::none())
      .def("decisions", &PyTail::Decisions, py::arg("key"), py::arg("height"),
           py::arg("width"))
      .def_property_readonly("flip_p", &PyTail::flip_p)
      .def_property_readonly("erase_p", &PyTail::erase_p)
      .def_property_readonly("erase_scale", &PyTail::erase_scale)
      .def_property_readonly("erase_ratio", &PyTail::erase_ratio)
      .def_property_readonly("dtype", [](const PyTail& t) { return t.dtype(); })
      .def_property_readonly("layout",
                             [](const PyTail& t) { return t.layout(); })
      .def_property_readonly_static("pil_modes",
                                    [](py::object) { return PilModes(); })
      .def_property_readonly_static(
          "settings", [](py::object) { return DescribeSettings(TailRows()); });
  RefuseUninitialized<PyTail>();
}

}  // namespace fusednorm
