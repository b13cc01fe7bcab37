// Keywords to setting values (settings_py.h).
#include "python/settings_py.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "python/convert.h"

namespace fusednorm {
namespace {

// The most items of a sequence read for a setting (which takes up to 4).
constexpr size_t kMaxItems = 64;

// How errors name setting `s` of `callable`: "Loader() argument 'size'".
std::string Argument(const char* callable, const Setting& s) {
  return absl::StrCat(callable, "() argument '", s.name, "'");
}

[[noreturn]] void WrongType(const char* callable, const Setting& s,
                            const py::handle& v, const char* expected) {
  throw py::type_error(
      absl::StrCat(Argument(callable, s), " must be ", expected, ", not ",
                   std::string(py::str(py::type::of(v).attr("__name__")))));
}

// An integer (int, numpy integers: anything whose __index__ gives one),
// not a bool. A float array or tensor has an __index__ that raises.
bool IsInt(const py::handle& v) {
  if (IsBool(v) || !PyIndex_Check(v.ptr())) return false;
  PyObject* index = PyNumber_Index(v.ptr());
  if (index == nullptr) {
    PyErr_Clear();
    return false;
  }
  Py_DECREF(index);
  return true;
}
bool IsNumber(const py::handle& v) {
  return IsInt(v) || PyFloat_Check(v.ptr()) ||
         (!IsBool(v) && !IsComplex(v) && py::hasattr(v, "__float__") &&
          !py::isinstance<py::str>(v));
}

// A number, a 0-d array or tensor included (one of more dimensions has a
// __float__ too when it holds one value).
bool IsScalar(const py::handle& v) {
  if (!IsNumber(v)) return false;
  const int dimensions = ArrayDimensions(v);
  return dimensions < 0 ? !PySequence_Check(v.ptr()) : dimensions == 0;
}

// An array or tensor of one or more dimensions as the list of its values (a
// torch tensor is not a sequence to Python); anything else as it is.
py::object Listed(const py::handle& v) {
  // A memoryview is bytes more often than numbers: refused as bytes are.
  if (ArrayDimensions(v) > 0 && !PyMemoryView_Check(v.ptr()))
    return v.attr("tolist")();
  return py::reinterpret_borrow<py::object>(v);
}

std::string IntText(const py::handle& v) {
  PyObject* index = PyNumber_Index(v.ptr());
  if (index == nullptr) throw py::error_already_set();
  return py::str(py::reinterpret_steal<py::object>(index));
}
// The shortest text that reads back as the same double (Python's repr).
std::string FloatText(const py::handle& v) {
  if (IsInt(v)) return IntText(v);
  return py::repr(py::float_(py::reinterpret_borrow<py::object>(v)));
}

// A bool's value as the setting's text; a bool array of other than one
// value has none (NumPy: "the truth value ... is ambiguous").
const char* Truth(const char* callable, const Setting& s, const py::handle& v) {
  const int truth = PyObject_IsTrue(v.ptr());
  if (truth < 0) {
    PyErr_Clear();
    WrongType(callable, s, v, "a bool");
  }
  return truth == 1 ? "true" : "false";
}

[[noreturn]] void TooMany(const char* callable, const Setting& s) {
  const std::string counts =
      s.type != SettingType::kFloats ? "1 or 2"
      : s.min_count == s.max_count
          ? absl::StrCat(s.min_count)
          : absl::StrCat(s.min_count, " to ", s.max_count);
  throw py::value_error(absl::StrCat(Argument(callable, s), " has more than ",
                                     kMaxItems, " values; it takes ", counts));
}

// The numbers of a sequence (not a str), each by `text`.
template <typename Text>
std::string Items(const char* callable, const Setting& s, const py::handle& v,
                  bool (*is_item)(const py::handle&), Text text,
                  const char* expected) {
  // Bytes are a sequence of ints to Python, not numbers to the user.
  if (py::isinstance<py::str>(v) || py::isinstance<py::bytes>(v) ||
      PyByteArray_Check(v.ptr()) || PyMemoryView_Check(v.ptr()) ||
      ArrayDimensions(v) == 0 || !PySequence_Check(v.ptr()))
    WrongType(callable, s, v, expected);
  std::vector<std::string> parts;
  // Each item owned while it is read: a sequence may make them on demand,
  // without end (range(2**70)), so reading stops past kMaxItems.
  for (const py::object item : py::reinterpret_borrow<py::sequence>(v)) {
    if (parts.size() == kMaxItems) TooMany(callable, s);
    if (!is_item(item)) WrongType(callable, s, item, expected);
    parts.push_back(text(item));
  }
  return absl::StrJoin(parts, ",");
}

// A str or path as the file system takes it: a name that is not UTF-8
// (os.fsdecode's surrogate escapes) keeps its bytes; a NUL byte, which
// would end the name early, and a character no name can hold are refused
// as Python's own calls refuse them.
std::string PathText(const char* callable, const Setting& s,
                     const py::handle& v) {
  std::string text;
  try {
    text = py::bytes(py::module_::import("os").attr("fsencode")(v));
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_UnicodeEncodeError)) throw;
    throw py::value_error(absl::StrCat(
        Argument(callable, s),
        " cannot be a file name: ", std::string(py::str(e.value()))));
  }
  if (text.find('\0') != std::string::npos) {
    throw py::value_error(
        absl::StrCat(Argument(callable, s), " holds a NUL byte"));
  }
  return text;
}

// A str as a choice's text: one that is not UTF-8 (a lone surrogate) is
// none of the choices, named as the choices' check names a wrong one.
std::string ChoiceText(const Setting& s, const py::handle& v) {
  PyObject* utf8 = PyUnicode_AsUTF8String(v.ptr());
  if (utf8 == nullptr) {
    PyErr_Clear();
    throw py::value_error(absl::StrCat(s.name, " ", std::string(py::repr(v)),
                                       " is not one of ",
                                       absl::StrJoin(s.choices, ", ")));
  }
  return py::reinterpret_steal<py::bytes>(utf8);
}

// `v` as the text of setting `s`.
std::string AsText(const char* callable, const Setting& s,
                   const py::handle& v) {
  switch (s.type) {
    case SettingType::kBool:
      if (!IsBool(v)) WrongType(callable, s, v, "a bool");
      return Truth(callable, s, v);
    case SettingType::kInt:
    case SettingType::kUint64:
      if (!IsInt(v)) WrongType(callable, s, v, "an int");
      return IntText(v);
    case SettingType::kFloat:
      if (!IsNumber(v)) WrongType(callable, s, v, "a number");
      return FloatText(v);
    case SettingType::kFloats:
      // One number is a list of one, as torch takes Normalize(0.5, 0.25).
      if (s.min_count > 1) {
        return Items(callable, s, Listed(v), &IsNumber, &FloatText,
                     "a sequence of numbers");
      }
      if (IsScalar(v)) return FloatText(v);
      return Items(callable, s, Listed(v), &IsNumber, &FloatText,
                   "a number or a sequence of numbers");
    case SettingType::kSize:
      if (IsInt(v)) return IntText(v);
      return Items(callable, s, Listed(v), &IsInt, &IntText,
                   "an int or a (height, width) pair of ints");
    case SettingType::kText:
      if (IsByteCount(s)) {
        if (IsInt(v)) return IntText(v);
        if (!PyUnicode_Check(v.ptr()))
          WrongType(callable, s, v, "an int or a str such as \"64M\"");
      }
      // A path as os takes one: str, bytes or os.PathLike.
      if (PyUnicode_Check(v.ptr()) || PyBytes_Check(v.ptr()) ||
          py::hasattr(v, "__fspath__"))
        return PathText(callable, s, v);
      WrongType(callable, s, v, "a str or a path");
    case SettingType::kChoice:
      if (IsBool(v) && TakesBool(s)) return Truth(callable, s, v);
      if (!PyUnicode_Check(v.ptr()))
        WrongType(callable, s, v, TakesBool(s) ? "a str or a bool" : "a str");
      return ChoiceText(s, v);
  }
  WrongType(callable, s, v, "a supported value");
}

// AsText, with the errors of the value's own conversions (its __float__,
// __index__ or items: NumPy's "only size-1 arrays ...") naming the setting.
std::string ValueText(const char* callable, const Setting& s,
                      const py::handle& v) {
  try {
    return AsText(callable, s, v);
  } catch (py::error_already_set& e) {
    const bool type = e.matches(PyExc_TypeError) || e.matches(PyExc_IndexError);
    if (!type && !e.matches(PyExc_ValueError) &&
        !e.matches(PyExc_OverflowError)) {
      throw;  // KeyboardInterrupt, MemoryError, ...
    }
    const std::string why = absl::StrCat(Argument(callable, s), ": ",
                                         std::string(py::str(e.value())));
    if (type) throw py::type_error(why);
    throw py::value_error(why);
  }
}

}  // namespace

SettingValues FromKeywords(const py::dict& keywords,
                           const std::vector<const Setting*>& accepted,
                           const char* callable) {
  SettingValues values(accepted, SettingStyle::kKeyword);
  for (const auto& [key, value] : keywords) {
    const std::string name = py::str(key);
    const Setting* s = values.Find(name);
    if (s == nullptr) {
      throw py::type_error(absl::StrCat(
          callable, "() got an unexpected keyword argument '", name, "'"));
    }
    if (value.is_none()) continue;
    std::string text = ValueText(callable, *s, value);
    if (std::string problem =
            EmptyValueProblem(*s, SettingStyle::kKeyword, text);
        !problem.empty()) {
      throw py::value_error(absl::StrCat(callable, "() ", problem));
    }
    values.Set(*s, std::move(text));
  }
  return values;
}

py::list DescribeSettings(const std::vector<const Setting*>& accepted) {
  py::list out;
  for (const Setting* s : accepted) {
    py::object d = py::none();
    if (!s->default_value.empty()) d = py::str(s->default_value);
    out.append(py::make_tuple(s->name, d, s->help));
  }
  return out;
}

const Setting* WithDefault(const Setting& row, std::string default_value,
                           const char* help) {
  Setting* copy = new Setting(row);
  copy->default_value = std::move(default_value);
  if (help != nullptr) copy->help = help;
  return copy;
}

}  // namespace fusednorm
