// The Loader's binding: the standard recipe (pipeline/recipe.h) run one
// epoch per iteration, its batches returned as NumPy views of the transfer
// slots (or copies), the GIL released while workers run and next() waits.
#include "python/loader_py.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "ops/option_names.h"
#include "ops/resize.h"
#include "pipeline/recipe.h"
#include "python/convert.h"

namespace fusednorm {
namespace {

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
      NormalizationOptions(preset, mean, std, dtype, layout, mode, kernel);
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
                 LoaderOptions(data, dataset, path, split, images, batch_size,
                               threads, seed, preset, mean, std, dtype, layout,
                               mode, kernel, size, resize_filter, on_error,
                               decode_scale, rank, world_size, pinned),
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

}  // namespace fusednorm
