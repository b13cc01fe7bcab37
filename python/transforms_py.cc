// The op table's binding (transforms_py.h). Python arguments become the
// same argument values the list grammar reads (ops/arg_value.h): an int,
// float, bool, None, str, a tuple or list of them, an enum whose value is a
// str (torchvision's InterpolationMode: its value, `bicubic`), a torch
// dtype (`torch.float32`), or one of fusednorm.transforms' objects (its
// spec). Decisions go back and forth as dicts of such values.
#include "python/transforms_py.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status.h"
#include "kernels/formats.h"
#include "kernels/mix/mix_dispatch.h"
#include "ops/arg_value.h"
#include "ops/batch_ops.h"
#include "ops/fused_ops.h"
#include "ops/op_args.h"
#include "ops/op_table.h"
#include "ops/pad_axis.h"
#include "ops/transform_list.h"
#include "python/convert.h"
#include "python/gil.h"
#include "python/uninitialized.h"
#include "rng/philox.h"

namespace fusednorm {
namespace {

std::string TypeName(py::handle v) {
  return py::str(py::type::of(v).attr("__name__"));
}

// The one op a spec text names.
OpCall ParseSpec(const std::string& spec) {
  std::vector<OpCall> calls = Value(ParseTransformList(spec, "spec"));
  if (calls.size() != 1)
    throw py::value_error(absl::StrCat("\"", spec, "\" is not one op"));
  return std::move(calls[0]);
}

ArgValue ToArgValue(py::handle v, int depth) {
  if (depth > kMaxArgDepth)
    throw py::value_error("arguments are nested too deeply");
  if (v.is_none()) return ArgValue::None();
  if (PyBool_Check(v.ptr())) return ArgValue::Bool(v.ptr() == Py_True);
  // NumPy arrays and scalars, torch tensors: as their Python values (an
  // array's __index__ would refuse it with NumPy's words).
  if (ArrayDimensions(v) >= 0) return ToArgValue(v.attr("tolist")(), depth + 1);
  if (PyLong_Check(v.ptr()) ||
      (PyIndex_Check(v.ptr()) && !PyFloat_Check(v.ptr()))) {
    int overflow = 0;
    py::object index =
        py::reinterpret_steal<py::object>(PyNumber_Index(v.ptr()));
    if (!index) throw py::error_already_set();
    const long long x = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (overflow != 0) {
      throw py::value_error(absl::StrCat(Shortened(std::string(py::repr(v))),
                                         " is too large for an integer"));
    }
    return ArgValue::Int(x);
  }
  if (PyFloat_Check(v.ptr())) return ArgValue::Float(PyFloat_AsDouble(v.ptr()));
  if (PyUnicode_Check(v.ptr())) return ArgValue::Text(py::str(v));
  if (PyTuple_Check(v.ptr()) || PyList_Check(v.ptr())) {
    std::vector<ArgValue> items;
    for (py::object item : py::reinterpret_borrow<py::sequence>(v))
      items.push_back(ToArgValue(item, depth + 1));
    return ArgValue::Tuple(std::move(items));
  }
  // One of fusednorm.transforms' classes, where one of its objects belongs.
  if (PyType_Check(v.ptr()) && py::hasattr(v, "_fusednorm_spec")) {
    const std::string name = py::str(v.attr("__name__"));
    throw py::type_error(absl::StrCat("the class ", name,
                                      " is not a transform: write ", name,
                                      "(...), one of its objects"));
  }
  if (py::hasattr(v, "_fusednorm_spec"))
    return CallArg(ParseSpec(py::str(v.attr("_fusednorm_spec"))));
  const std::string type = TypeName(v);
  const std::string module = py::str(py::type::of(v).attr("__module__"));
  if (module.rfind("torch", 0) == 0 && type == "dtype")
    return ArgValue::Name(py::str(v));
  // An enum with a str value (torchvision's InterpolationMode).
  if (py::hasattr(v, "value") && py::hasattr(v, "name") &&
      PyUnicode_Check(v.attr("value").ptr())) {
    return ArgValue::Name(py::str(v.attr("value")));
  }
  // NumPy's floats and other numbers.
  if (PyNumber_Check(v.ptr()) && py::hasattr(v, "__float__"))
    return ArgValue::Float(py::float_(py::reinterpret_borrow<py::object>(v)));
  throw py::type_error(absl::StrCat("an argument of type ", type,
                                    " is not one fusednorm's transforms take "
                                    "(numbers, None, True/False, str, tuples, "
                                    "InterpolationMode, torch dtypes)"));
}

py::object FromArgValue(const ArgValue& v) {
  switch (v.kind) {
    case ArgValue::Kind::kNone:
      return py::none();
    case ArgValue::Kind::kBool:
      return py::bool_(v.boolean);
    case ArgValue::Kind::kInt:
      return py::int_(v.integer);
    case ArgValue::Kind::kFloat:
      return py::float_(v.number);
    case ArgValue::Kind::kText:
    case ArgValue::Kind::kName:
      return py::str(v.text);
    case ArgValue::Kind::kTuple: {
      py::tuple t(v.items.size());
      for (size_t i = 0; i < v.items.size(); ++i)
        t[i] = FromArgValue(v.items[i]);
      return std::move(t);
    }
    case ArgValue::Kind::kCall:
      return py::str(FormatArg(v));
  }
  return py::none();
}

// An OpCall of `name` with Python arguments.
// ToArgValue(v) of argument `where` of an op: its errors name both
// ("Resize size: 2**70 is too large ...").
ArgValue Argument(py::handle v, const std::string& where) {
  try {
    return ToArgValue(v, 0);
  } catch (py::error_already_set& e) {
    const std::string message =
        absl::StrCat(where, ": ", std::string(py::str(e.value())));
    if (e.matches(PyExc_TypeError)) throw py::type_error(message);
    if (e.matches(PyExc_ValueError) || e.matches(PyExc_OverflowError))
      throw py::value_error(message);
    throw;
  } catch (const py::type_error& e) {
    throw py::type_error(absl::StrCat(where, ": ", e.what()));
  } catch (const py::value_error& e) {
    throw py::value_error(absl::StrCat(where, ": ", e.what()));
  }
}

OpCall MakeCall(const std::string& name, const py::tuple& args,
                const py::dict& kwargs) {
  OpCall call;
  call.name = name;
  const OpRow* row = FindOpRow(name);
  for (size_t i = 0; i < args.size(); ++i) {
    // Named by its parameter where the op has one there (more positional
    // arguments than parameters are refused later, naming the op).
    const std::string where = row != nullptr && i < row->params.size()
                                  ? absl::StrCat(name, " ", row->params[i].name)
                                  : absl::StrCat(name, " argument ", i + 1);
    call.args.push_back({"", Argument(args[i], where)});
  }
  for (const auto& [k, v] : kwargs) {
    const std::string key = py::str(k);
    call.args.push_back({key, Argument(v, absl::StrCat(name, " ", key))});
  }
  return call;
}

// A decision field's value: as an argument's, except that the fields of a
// RandomApply's transforms (a call of the op's name with its fields) are a
// dict, and their list a tuple of dicts.
py::object FromDecisionValue(const ArgValue& v) {
  if (v.kind == ArgValue::Kind::kCall) {
    py::dict d;
    for (const OpArgument& a : v.call->args)
      d[py::str(a.keyword)] = FromDecisionValue(a.value);
    return std::move(d);
  }
  if (v.kind == ArgValue::Kind::kTuple) {
    py::tuple t(v.items.size());
    for (size_t i = 0; i < v.items.size(); ++i)
      t[i] = FromDecisionValue(v.items[i]);
    return std::move(t);
  }
  return FromArgValue(v);
}

py::dict ToDict(const std::vector<NamedArg>& fields) {
  py::dict d;
  for (const NamedArg& f : fields)
    d[py::str(f.name)] = FromDecisionValue(f.value);
  return d;
}

// FromDecisionValue's inverse: a dict in a list (RandomApply's
// transforms') is a call holding its fields, printed as dict(k=v, ...).
// A field's own value is never a dict: that one is a TypeError as any
// other value of a type no decision takes.
ArgValue DecisionArg(py::handle v, int depth) {
  if (depth > kMaxArgDepth)
    throw py::value_error("decisions are nested too deeply");
  if (PyDict_Check(v.ptr()) && depth > 0) {
    std::vector<NamedArg> fields;
    for (const auto& [k, x] : py::reinterpret_borrow<py::dict>(v))
      fields.push_back({std::string(py::str(k)), DecisionArg(x, depth + 1)});
    return CallArg("dict", std::move(fields));
  }
  if (PyTuple_Check(v.ptr()) || PyList_Check(v.ptr())) {
    std::vector<ArgValue> items;
    for (py::handle item : py::reinterpret_borrow<py::sequence>(v))
      items.push_back(DecisionArg(item, depth + 1));
    return ArgValue::Tuple(std::move(items));
  }
  return ToArgValue(v, depth);
}

// A decisions dict's fields; a value that is no argument value is named
// by its field.
std::vector<NamedArg> FromDict(const py::dict& d) {
  std::vector<NamedArg> fields;
  for (const auto& [k, v] : d) {
    const std::string name = py::str(k);
    try {
      fields.push_back({name, DecisionArg(v, 0)});
    } catch (const py::value_error& e) {
      throw py::value_error(absl::StrCat("decision ", name, ": ", e.what()));
    } catch (const py::type_error& e) {
      throw py::type_error(absl::StrCat("decision ", name, ": ", e.what()));
    }
  }
  return fields;
}

py::list Args(const std::vector<NamedArg>& args) {
  py::list out;
  for (const NamedArg& a : args)
    out.append(py::make_tuple(a.name, FromArgValue(a.value)));
  return out;
}

class PyTransform {
 public:
  PyTransform(const std::string& name, const py::tuple& args,
              const py::dict& kwargs, const std::string& resize_filter)
      : context_{Value(ParseResizeFilter(resize_filter))} {
    op_ = Value(MakeTransform(MakeCall(name, args, kwargs), context_));
  }

  static PyTransform FromSpec(const std::string& spec,
                              const std::string& resize_filter) {
    PyTransform t;
    t.context_ = {Value(ParseResizeFilter(resize_filter))};
    t.op_ = Value(MakeTransform(ParseSpec(spec), t.context_));
    return t;
  }

  std::string spec() const { return op_->name(); }
  std::string name() const { return op_->op_name(); }
  py::list args() const { return Args(op_->args()); }
  std::string resize_filter() const {
    return ResizeFilterName(context_.resize_filter);
  }

  py::dict Decide(int64_t height, int64_t width, uint64_t seed, uint32_t epoch,
                  uint64_t index) const {
    if (height < 1 || width < 1 || height > kMaxSide || width > kMaxSide) {
      throw py::value_error(absl::StrCat("image size ", height, "x", width,
                                         ": sides must be in 1..", kMaxSide));
    }
    if (index >= kSampleIndexLimit)
      throw py::value_error(absl::StrCat("index = ", index, " is too large"));
    SampleStream stream(seed, epoch, index);
    const OpDecision d = op_->Decide({height, width}, stream);
    // An input the op cannot take (RandomCrop's crop past the padded
    // image) is refused here, as torchvision refuses it when drawing.
    if (op_->fused_part() == PreprocessOp::FusedPart::kNone)
      Raise(op_->DecidedOutputSize({height, width}, d).status());
    return ToDict(op_->DecisionFields(d));
  }

  py::array Apply(const py::buffer& image, std::optional<py::dict> decisions,
                  uint64_t seed, uint32_t epoch, uint64_t index) const {
    if (op_->fused_part() == PreprocessOp::FusedPart::kErase)
      return Erase(image, decisions, seed, epoch, index);
    // `im` keeps the caller's buffer exported until the op is done.
    const Images im = ReadImages(image, /*gray_too=*/true);
    if (im.batched)
      throw py::value_error("image must have shape (H, W, C) or (H, W)");
    const ImageView view{absl::MakeConstSpan(im.data, im.bytes), im.h, im.w,
                         im.c, im.row_stride};
    OpDecision d;
    if (decisions) {
      d = Value(op_->DecisionFromFields(FromDict(*decisions),
                                        {view.height, view.width}));
    } else {
      const py::dict drawn =
          Decide(view.height, view.width, seed, epoch, index);
      d = Value(
          op_->DecisionFromFields(FromDict(drawn), {view.height, view.width}));
    }
    Image out;
    Raise(WithoutGil([&] {
      FUSEDNORM_RETURN_IF_ERROR(ValidateImage(view));
      thread_local OpWorkspace ws;
      return op_->Apply(view, d, &ws, &out);
    }));
    std::vector<py::ssize_t> shape = {out.height, out.width};
    if (!(im.gray && out.channels == 1)) shape.push_back(out.channels);
    py::array_t<uint8_t> result(shape);
    std::memcpy(result.mutable_data(), out.pixels.data(), out.pixels.size());
    return std::move(result);
  }

 private:
  PyTransform() = default;

  // RandomErasing on a float32 (C, H, W) tensor, as torchvision's: a copy
  // with the decision's rectangle set to the op's value.
  py::array Erase(const py::buffer& tensor, std::optional<py::dict> decisions,
                  uint64_t seed, uint32_t epoch, uint64_t index) const {
    // Another dtype would be converted, not refused, by forcecast below.
    const py::array given = py::array::ensure(tensor);
    if (!given || !given.dtype().is(py::dtype::of<float>())) {
      throw py::type_error(absl::StrCat(
          "RandomErasing works on the normalized tensor: a float32 (C, H, W) "
          "array, not ",
          given ? std::string(py::str(given.dtype())) : "that buffer"));
    }
    py::array_t<float, py::array::c_style | py::array::forcecast> in(given);
    if (in.ndim() != 3) {
      throw py::value_error(
          "RandomErasing works on the normalized tensor: a float32 (C, H, W) "
          "array");
    }
    const int64_t C = in.shape(0), H = in.shape(1), W = in.shape(2);
    const py::dict fields =
        decisions ? *decisions : Decide(H, W, seed, epoch, index);
    const OpDecision d =
        Value(op_->DecisionFromFields(FromDict(fields), {H, W}));
    const std::vector<float> values = EraseValues(fields, C);
    py::array_t<float> out({C, H, W});
    std::memcpy(out.mutable_data(), in.data(), sizeof(float) * C * H * W);
    float* o = out.mutable_data();
    for (int64_t c = 0; c < C && d.apply; ++c) {
      const float v = values[std::min<size_t>(c, values.size() - 1)];
      for (int64_t y = d.erase.top; y < d.erase.top + d.erase.height; ++y) {
        for (int64_t x = d.erase.left; x < d.erase.left + d.erase.width; ++x)
          o[(c * H + y) * W + x] = v;
      }
    }
    return std::move(out);
  }

  // RandomErasing's values for a tensor of C channels: the decision's v
  // (there and not None: DecisionFromFields checked), as F.erase takes it:
  // 1 or C finite values.
  std::vector<float> EraseValues(const py::dict& fields, int64_t C) const {
    const py::array_t<float, py::array::c_style | py::array::forcecast> v(
        py::reinterpret_borrow<py::object>(fields["v"]));
    const std::vector<float> values(v.data(), v.data() + v.size());
    const char* what = "RandomErasing decision v";
    for (size_t k = 0; k < values.size(); ++k) {
      if (!std::isfinite(values[k])) {
        throw py::value_error(
            absl::StrCat(what, "[", k, "] = ", values[k], ": must be finite"));
      }
    }
    if (values.empty() ||
        (values.size() > 1 && values.size() != static_cast<size_t>(C))) {
      throw py::value_error(absl::StrCat(what, " has ", values.size(),
                                         " values for a tensor of ", C,
                                         " channels ", GiveValues(C)));
    }
    return values;
  }

  OpContext context_;
  std::shared_ptr<const PreprocessOp> op_;
};

// The dtype and layout of a float batch array: float32 or float16, (N, C,
// H, W) (chw) or (N, H, W, C) (hwc).
BatchShape ShapeOf(const py::array& images, const std::string& layout) {
  BatchShape s;
  const py::dtype dtype = images.dtype();
  const std::string name = py::str(dtype.attr("str"));  // "<f4", ">f2"
  if (dtype.kind() == 'f' && !dtype.attr("isnative").cast<bool>()) {
    throw py::type_error(absl::StrCat(
        "images are in the other byte order (dtype '", name,
        "'): convert them with images.astype(images.dtype.newbyteorder('='))"));
  }
  if (dtype.kind() == 'f' && dtype.itemsize() == 4) {
    s.dtype = DType::kFloat32;
  } else if (dtype.kind() == 'f' && dtype.itemsize() == 2) {
    s.dtype = DType::kFloat16;
  } else {
    throw py::type_error(
        absl::StrCat("images must be float32 or float16, not '", name, "'"));
  }
  if (images.ndim() != 4)
    throw py::value_error("images must have 4 dimensions");
  if (layout == "chw") {
    s.layout = Layout::kCHW;
    s.channels = static_cast<int>(images.shape(1));
    s.height = images.shape(2);
    s.width = images.shape(3);
  } else if (layout == "hwc") {
    s.layout = Layout::kHWC;
    s.height = images.shape(1);
    s.width = images.shape(2);
    s.channels = static_cast<int>(images.shape(3));
  } else {
    throw py::value_error(
        absl::StrCat("layout \"", layout, "\" is not one of chw, hwc"));
  }
  s.sample_bytes = static_cast<size_t>(
      images.nbytes() / std::max<py::ssize_t>(1, images.shape(0)));
  return s;
}

class PyBatchTransform {
 public:
  PyBatchTransform(const std::string& name, const py::tuple& args,
                   const py::dict& kwargs) {
    op_ = Value(MakeBatchTransform(MakeCall(name, args, kwargs), {}));
  }
  static PyBatchTransform FromSpec(const std::string& spec) {
    PyBatchTransform t;
    t.op_ = Value(MakeBatchTransform(ParseSpec(spec), {}));
    return t;
  }

  std::string spec() const { return op_->name(); }
  std::string name() const { return op_->op_name(); }
  py::list args() const { return Args(op_->args()); }
  // The op's num_classes (RandomChoice's: its transforms'), or None.
  std::optional<int64_t> num_classes() const { return op_->num_classes(); }

  // The batch's decisions for images of height x width: batch `batch` of
  // epoch `epoch` under `seed`, as the loader draws them.
  py::dict Decide(int64_t height, int64_t width, uint64_t seed, uint32_t epoch,
                  uint64_t batch) const {
    if (height < 1 || width < 1 || height > kMaxSide || width > kMaxSide) {
      throw py::value_error(absl::StrCat("image size ", height, "x", width,
                                         ": sides must be in 1..", kMaxSide));
    }
    if (batch >= kBatchStreams)
      throw py::value_error(absl::StrCat("batch = ", batch, " is too large"));
    SampleStream stream = BatchStream(seed, epoch, batch);
    return ToDict(op_->DecisionFields(op_->Decide({height, width}, stream)));
  }

  // (mixed images, soft targets) of a float batch and its int labels.
  py::tuple Apply(const py::array& images,
                  const py::array_t<int64_t, py::array::c_style |
                                                 py::array::forcecast>& labels,
                  const py::dict& decisions, int64_t num_classes,
                  double label_smoothing, const std::string& layout) const {
    const BatchShape s = ShapeOf(images, layout);
    const int64_t n = images.shape(0);
    if (labels.ndim() != 1 || labels.shape(0) != n) {
      std::vector<py::ssize_t> shape(labels.shape(),
                                     labels.shape() + labels.ndim());
      throw py::value_error(
          absl::StrCat("labels has shape (", absl::StrJoin(shape, ", "),
                       labels.ndim() == 1 ? ",)" : ")", " but images has ", n,
                       ": labels must have shape (N,) for N images"));
    }
    if (num_classes < 1 || num_classes > kMaxClasses) {
      throw py::value_error(absl::StrCat("num_classes = ", num_classes,
                                         ": must be in 1..", kMaxClasses));
    }
    if (!(label_smoothing >= 0 && label_smoothing <= 1))
      throw py::value_error(
          absl::StrCat("label_smoothing = ", FormatFloat(label_smoothing),
                       ": must be in [0, 1]"));
    const BatchDecision d = Value(
        op_->DecisionFromFields(FromDict(decisions), {s.height, s.width}));
    std::vector<int64_t> l(labels.data(), labels.data() + n);
    for (const int64_t x : l) {
      if (x < -1 || x >= num_classes) {
        throw py::value_error(absl::StrCat("label ", x, " is not in 0..",
                                           num_classes - 1, " (or -1)"));
      }
    }
    py::array out =
        py::array(images.dtype(),
                  std::vector<py::ssize_t>(images.shape(), images.shape() + 4));
    py::array contiguous = py::array::ensure(images, py::array::c_style);
    std::memcpy(out.mutable_data(), contiguous.data(), images.nbytes());
    py::array_t<float> targets({n, num_classes});
    const MixKernelInfo& kernel = *Value(SelectMixKernel(""));
    std::vector<bool> ok(l.size());
    for (size_t i = 0; i < l.size(); ++i) ok[i] = l[i] >= 0;
    WithoutGil([&] {
      std::vector<uint8_t> scratch;
      MixBatch(d, s, kernel, ok, static_cast<uint8_t*>(out.mutable_data()),
               static_cast<size_t>(n), &scratch);
      MakeTargets(d, l, num_classes, label_smoothing, targets.mutable_data());
    });
    return py::make_tuple(out, targets);
  }

 private:
  PyBatchTransform() = default;
  std::shared_ptr<const BatchOp> op_;
};

py::list OpRowsList() {
  py::list rows;
  for (const OpRow& r : OpRows()) {
    py::list params;
    for (const OpParam& p : r.params) {
      params.append(py::make_tuple(
          p.name,
          p.default_text ? py::object(py::str(p.default_text)) : py::none(),
          p.help));
    }
    py::dict row;
    row["name"] = r.name;
    row["kind"] = r.kind == OpKind::kSample ? "sample" : "batch";
    row["help"] = r.help;
    row["params"] = params;
    rows.append(row);
  }
  return rows;
}

}  // namespace

void BindTransforms(py::module_& m) {
  m.def("op_rows", &OpRowsList);
  m.def("_set_numpy1_padding", &SetNumpy1Padding, py::arg("numpy1"),
        "RandomCrops made from now on pad as NumPy 1.x's np.pad "
        "(ops/pad_axis.h); the package sets it from the installed NumPy");
  m.def("parse_value", [](const std::string& text) {
    return FromArgValue(Value(ParseArgValue(text)));
  });
  py::class_<PyTransform>(m, "Transform")
      .def(py::init<const std::string&, const py::tuple&, const py::dict&,
                    const std::string&>(),
           py::arg("name"), py::arg("args"), py::arg("kwargs"),
           py::arg("resize_filter") = "pil")
      .def_static("from_spec", &PyTransform::FromSpec, py::arg("spec"),
                  py::arg("resize_filter") = "pil")
      .def_property_readonly("spec", &PyTransform::spec)
      .def_property_readonly("name", &PyTransform::name)
      .def_property_readonly("args", &PyTransform::args)
      .def_property_readonly("resize_filter", &PyTransform::resize_filter)
      .def("decide", &PyTransform::Decide, py::arg("height"), py::arg("width"),
           py::kw_only(), py::arg("seed") = 0, py::arg("epoch") = 0,
           py::arg("index") = 0)
      .def("apply", &PyTransform::Apply, py::arg("image"),
           py::arg("decisions") = py::none(), py::kw_only(),
           py::arg("seed") = 0, py::arg("epoch") = 0, py::arg("index") = 0);
  py::class_<PyBatchTransform>(m, "BatchTransform")
      .def(py::init<const std::string&, const py::tuple&, const py::dict&>(),
           py::arg("name"), py::arg("args"), py::arg("kwargs"))
      .def_static("from_spec", &PyBatchTransform::FromSpec, py::arg("spec"))
      .def_property_readonly("spec", &PyBatchTransform::spec)
      .def_property_readonly("name", &PyBatchTransform::name)
      .def_property_readonly("args", &PyBatchTransform::args)
      .def_property_readonly("num_classes", &PyBatchTransform::num_classes)
      .def("decide", &PyBatchTransform::Decide, py::arg("height"),
           py::arg("width"), py::kw_only(), py::arg("seed") = 0,
           py::arg("epoch") = 0, py::arg("batch") = 0)
      .def("apply", &PyBatchTransform::Apply, py::arg("images"),
           py::arg("labels"), py::arg("decisions"), py::kw_only(),
           py::arg("num_classes"), py::arg("label_smoothing") = 0.0,
           py::arg("layout") = "chw");
  RefuseUninitialized<PyTransform>();
  RefuseUninitialized<PyBatchTransform>();
}

}  // namespace fusednorm
