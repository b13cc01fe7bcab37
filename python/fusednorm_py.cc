// The `fusednorm._fusednorm` extension: pybind11 bindings that only convert
// types and call the C++ API (ops/fused_normalization.h, pipeline/recipe.h).
// The Python package around it (python/fusednorm/) adds the conveniences
// that need Python: torch tensors, bfloat16, FusedTail.
//
// Buffers cross without copies: images are read through the buffer
// protocol, `out=` is written in place, and a Loader's batches are views of
// its TransferStation slots. The GIL is released while C++ works or waits.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "ops/fused_normalization.h"
#include "ops/option_names.h"
#include "ops/presets.h"
#include "ops/resize.h"
#include "pipeline/recipe.h"
#include "python/convert.h"
#include "python/resize_py.h"

namespace fusednorm {
namespace {

namespace py = pybind11;

// The normalization, dtype, layout, mode and kernel keywords shared by the
// op and the Loader.
FusedNormalizationOptions Normalization(
    const std::string& preset, const std::optional<std::vector<float>>& mean,
    const std::optional<std::vector<float>>& std, const std::string& dtype,
    const std::optional<std::string>& layout, const std::string& mode,
    const std::string& kernel) {
  FusedNormalizationOptions o;
  if (mean.has_value() != std.has_value())
    throw py::value_error("mean and std go together");
  if (mean) {
    o.mean = *mean;
    o.std = *std;
  } else {
    o.preset = Value(ParsePreset(preset));
  }
  o.dtype = Value(ParseDType(dtype));
  if (layout) o.layout = Value(ParseLayout(*layout));
  o.mode = Value(ParseMode(mode));
  o.kernel = kernel;
  return o;
}

// The NumPy dtype of `dtype`'s elements (bfloat16: its uint16 bits).
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

// The shape of one output of `op` for an h x w x c image, as NumPy's type.
std::vector<py::ssize_t> OutputShape(const FusedNormalization& op, int64_t h,
                                     int64_t w, int c) {
  const std::vector<int64_t> shape = op.OutputShape(h, w, c);
  return std::vector<py::ssize_t>(shape.begin(), shape.end());
}

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
    py::array result =
        out ? CheckOut(*out, shape) : py::array(NumpyDType(op_.dtype()), shape);
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
    const Augmentation aug = op_.Sample(height, width, stream);
    py::object erase = py::none();
    if (!aug.erase.empty()) {
      erase = py::make_tuple(aug.erase.top, aug.erase.left, aug.erase.height,
                             aug.erase.width);
    }
    return py::make_tuple(aug.flip, erase);
  }

  const FusedNormalization& op() const { return op_; }
  const py::dict& kwargs() const { return kwargs_; }

 private:
  // `out` as an array the outputs can be written into, or an error.
  py::array CheckOut(const py::buffer& out,
                     const std::vector<py::ssize_t>& shape) const {
    py::array a = py::array::ensure(out);
    if (!a)
      throw py::type_error(
          "out must be an array or support the buffer protocol");
    const py::buffer_info b = out.request(/*writable=*/true);
    const size_t itemsize = DTypeSize(op_.dtype());
    const bool float_ok = op_.dtype() == DType::kFloat32 ? b.format == "f"
                          : op_.dtype() == DType::kFloat16
                              ? b.format == "e"
                              : b.itemsize == 2 && b.format != "e";
    if (!float_ok || static_cast<size_t>(b.itemsize) != itemsize)
      throw py::type_error("out has format \"" + b.format + "\"; " +
                           DTypeName(op_.dtype()) + " output needs " +
                           (op_.dtype() == DType::kFloat32 ? "float32"
                            : op_.dtype() == DType::kFloat16
                                ? "float16"
                                : "uint16 or int16 (bfloat16 bits)"));
    if (std::vector<py::ssize_t>(b.shape.begin(), b.shape.end()) != shape)
      throw py::value_error("out has the wrong shape for this output");
    if (!(a.flags() & py::array::c_style))
      throw py::value_error("out must be C-contiguous");
    return a;
  }

  FusedNormalization op_;
  uint64_t seed_;
  py::dict kwargs_;  // the constructor's arguments, for pickling
};

// An iterator over the batches of one epoch after another.
class PyLoader {
 public:
  PyLoader(RecipeOptions options, uint32_t epoch, bool copy)
      : options_(std::move(options)), epoch_(epoch), copy_(copy) {
    absl::StatusOr<std::shared_ptr<const Dataset>> data;
    {
      py::gil_scoped_release release;
      data = OpenRecipeDataset(options_);
    }
    Raise(data.status(), NotFound::kFile);
    data_ = *std::move(data);
    preprocessor_.emplace(Value(BuildRecipe(options_, data_)));
  }
  ~PyLoader() { Close(); }

  // Starts the next epoch (the first: `epoch`); a running one is stopped.
  void Start() {
    Close();
    loader_ = Value(preprocessor_->StartEpoch(options_.split, epoch_++));
  }

  // The next batch as (images, labels), or StopIteration.
  py::tuple Next(py::object self) {
    if (loader_ == nullptr) throw py::stop_iteration();
    absl::StatusOr<const Batch*> batch;
    {
      py::gil_scoped_release release;
      batch = loader_->Next();
    }
    Raise(batch.status());
    if (*batch == nullptr) {
      Close();
      throw py::stop_iteration();
    }
    const Batch& b = **batch;
    const FusedNormalization& fused = preprocessor_->fused(options_.split);
    const Size2 size = preprocessor_->sample_size();
    std::vector<py::ssize_t> shape =
        OutputShape(fused, size.height, size.width, data_->channels());
    shape.insert(shape.begin(), static_cast<py::ssize_t>(b.count));
    py::array images =
        copy_ ? py::array(NumpyDType(fused.dtype()), shape, b.data)
              : py::array(NumpyDType(fused.dtype()), shape, b.data, self);
    return py::make_tuple(images, py::array(py::cast(b.labels)));
  }

  void Close() {
    py::gil_scoped_release release;
    loader_.reset();
  }

  size_t batches() const { return preprocessor_->batches_per_epoch(); }
  std::string Describe() const {
    return preprocessor_->Describe(options_.split);
  }

 private:
  RecipeOptions options_;
  uint32_t epoch_;
  bool copy_;
  std::shared_ptr<const Dataset> data_;
  std::optional<Preprocessor> preprocessor_;
  std::unique_ptr<EpochLoader> loader_;
};

PyFusedNormalization MakeOp(
    const std::string& preset, std::optional<std::vector<float>> mean,
    std::optional<std::vector<float>> std, const std::string& dtype,
    std::optional<std::string> layout, const std::string& mode, double flip_p,
    double erase_p, std::pair<double, double> scale,
    std::pair<double, double> ratio, uint64_t seed, const std::string& kernel) {
  FusedNormalizationOptions o =
      Normalization(preset, mean, std, dtype, layout, mode, kernel);
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

RecipeOptions LoaderOptions(const std::string& data, const std::string& dataset,
                            const std::string& path, const std::string& split,
                            int64_t images, int64_t batch_size, int threads,
                            uint64_t seed, const std::string& preset,
                            std::optional<std::vector<float>> mean,
                            std::optional<std::vector<float>> std,
                            const std::string& dtype,
                            std::optional<std::string> layout,
                            const std::string& mode, const std::string& kernel,
                            int64_t size, const std::string& resize_filter,
                            const std::string& on_error, bool decode_scale,
                            int rank, int world_size, bool pinned) {
  RecipeOptions o;
  o.normalization =
      Normalization(preset, mean, std, dtype, layout, mode, kernel);
  if (data == "synthetic") {
    o.dataset = "synthetic";
  } else if (!data.empty()) {
    o.data = data;
  } else {
    o.dataset = dataset;
    o.path = path;
  }
  o.split = Value(ParseSplit(split));
  o.images = images;
  o.batch = batch_size;
  o.threads = threads;
  o.seed = seed;
  o.size = size;
  o.resize_filter = Value(ParseResizeFilter(resize_filter));
  o.on_error = Value(ParseErrorPolicy(on_error));
  o.decode_scale = decode_scale;
  o.rank = rank;
  o.world_size = world_size;
  o.pinned = pinned;
  return o;
}

}  // namespace
}  // namespace fusednorm

namespace py = pybind11;
using fusednorm::PyFusedNormalization;
using fusednorm::PyLoader;

namespace {

void BindFusedNormalization(py::module_& m) {
  py::class_<PyFusedNormalization>(m, "FusedNormalization")
      .def(py::init(&fusednorm::MakeOp), py::kw_only(),
           py::arg("preset") = "imagenet", py::arg("mean") = py::none(),
           py::arg("std") = py::none(), py::arg("dtype") = "float32",
           py::arg("layout") = py::none(), py::arg("mode") = "fast",
           py::arg("flip_p") = 0.5, py::arg("erase_p") = 0.0,
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
                               return fusednorm::DTypeName(p.op().dtype());
                             })
      .def_property_readonly("layout",
                             [](const PyFusedNormalization& p) {
                               return fusednorm::LayoutName(p.op().layout());
                             })
      .def_property_readonly("mode",
                             [](const PyFusedNormalization& p) {
                               return fusednorm::ModeName(p.op().mode());
                             })
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
            return fusednorm::MakeOp(
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

void BindLoader(py::module_& m) {
  py::class_<PyLoader>(m, "Loader")
      .def(py::init([](const std::string& data, const std::string& dataset,
                       const std::string& path, const std::string& split,
                       int64_t images, int64_t batch_size, int threads,
                       uint64_t seed, uint32_t epoch, const std::string& preset,
                       std::optional<std::vector<float>> mean,
                       std::optional<std::vector<float>> std,
                       const std::string& dtype,
                       std::optional<std::string> layout,
                       const std::string& mode, const std::string& kernel,
                       int64_t size, const std::string& resize_filter,
                       const std::string& on_error, bool decode_scale, int rank,
                       int world_size, bool pinned, bool copy) {
             return std::make_unique<PyLoader>(
                 fusednorm::LoaderOptions(
                     data, dataset, path, split, images, batch_size, threads,
                     seed, preset, mean, std, dtype, layout, mode, kernel, size,
                     resize_filter, on_error, decode_scale, rank, world_size,
                     pinned),
                 epoch, copy);
           }),
           py::kw_only(), py::arg("data") = "",
           py::arg("dataset") = "synthetic", py::arg("path") = "",
           py::arg("split") = "train", py::arg("images") = 512,
           py::arg("batch_size") = 64, py::arg("threads") = 0,
           py::arg("seed") = 0, py::arg("epoch") = 0,
           py::arg("preset") = "imagenet", py::arg("mean") = py::none(),
           py::arg("std") = py::none(), py::arg("dtype") = "float32",
           py::arg("layout") = py::none(), py::arg("mode") = "fast",
           py::arg("kernel") = "", py::arg("size") = 224,
           py::arg("resize_filter") = "pil", py::arg("on_error") = "fail",
           py::arg("decode_scale") = false, py::arg("rank") = 0,
           py::arg("world_size") = 1, py::arg("pinned") = false,
           py::arg("copy") = false)
      .def("__iter__",
           [](py::object self) {
             self.cast<PyLoader&>().Start();
             return self;
           })
      .def("__next__",
           [](py::object self) { return self.cast<PyLoader&>().Next(self); })
      .def("__len__", &PyLoader::batches)
      .def("close", &PyLoader::Close)
      .def("describe", &PyLoader::Describe);
}

}  // namespace

PYBIND11_MODULE(_fusednorm, m) {
  m.doc() = "fusednorm's C++ core; use the fusednorm package.";
  BindFusedNormalization(m);
  BindLoader(m);
  fusednorm::BindResize(m);
}
