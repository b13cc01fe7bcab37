// Argument values and their Python-style printing (arg_value.h).
#include "ops/arg_value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status.h"
#include "ops/transform_list.h"

namespace fusednorm {

ArgValue ArgValue::Bool(bool b) {
  ArgValue v;
  v.kind = Kind::kBool;
  v.boolean = b;
  return v;
}

ArgValue ArgValue::Int(int64_t i) {
  ArgValue v;
  v.kind = Kind::kInt;
  v.integer = i;
  v.number = static_cast<double>(i);
  return v;
}

ArgValue ArgValue::Float(double d) {
  ArgValue v;
  v.kind = Kind::kFloat;
  v.number = d;
  return v;
}

ArgValue ArgValue::Text(std::string s) {
  ArgValue v;
  v.kind = Kind::kText;
  v.text = std::move(s);
  return v;
}

ArgValue ArgValue::Name(std::string s) {
  ArgValue v;
  v.kind = Kind::kName;
  v.text = std::move(s);
  return v;
}

ArgValue ArgValue::Tuple(std::vector<ArgValue> items) {
  ArgValue v;
  v.kind = Kind::kTuple;
  v.items = std::move(items);
  return v;
}

double ArgValue::AsDouble() const { return is_number() ? number : 0.0; }

std::string FormatFloat(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // Python's repr: the fewest significant digits that read back as v, in
  // positional notation for decimal exponents -4 .. 15 (300.0, 0.0001),
  // else in scientific notation with a two-digit exponent (1e+16, 1e-05).
  // std::to_chars and from_chars, unlike printf and strtod, ignore the
  // locale (a program may have set one whose decimal point is a comma).
  int exponent = 0;
  const int digits = ShortestDigits(v, &exponent);
  char buffer[400];
  const auto print = [&](std::chars_format format, int precision) {
    return std::string(buffer, std::to_chars(buffer, buffer + sizeof(buffer), v,
                                             format, precision)
                                   .ptr);
  };
  std::string s =
      exponent >= -4 && exponent < 16
          ? print(std::chars_format::fixed, std::max(0, digits - 1 - exponent))
          : print(std::chars_format::general, digits);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

namespace {

std::string Quoted(const std::string& s) {
  std::string out = "'";
  for (const char c : s) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string FormatCallArgs(const OpCall& call) {
  std::vector<std::string> parts;
  for (const OpArgument& a : call.args) {
    parts.push_back(a.keyword.empty()
                        ? FormatArg(a.value)
                        : absl::StrCat(a.keyword, "=", FormatArg(a.value)));
  }
  return absl::StrCat(call.name, "(", absl::StrJoin(parts, ", "), ")");
}

}  // namespace

std::string FormatArg(const ArgValue& v) {
  switch (v.kind) {
    case ArgValue::Kind::kNone:
      return "None";
    case ArgValue::Kind::kBool:
      return v.boolean ? "True" : "False";
    case ArgValue::Kind::kInt:
      return absl::StrCat(v.integer);
    case ArgValue::Kind::kFloat:
      return FormatFloat(v.number);
    case ArgValue::Kind::kText:
      return Quoted(v.text);
    case ArgValue::Kind::kName:
      return v.text;
    case ArgValue::Kind::kTuple: {
      std::vector<std::string> parts;
      for (const ArgValue& item : v.items) parts.push_back(FormatArg(item));
      // A one-element tuple keeps Python's trailing comma.
      return absl::StrCat("(", absl::StrJoin(parts, ", "),
                          parts.size() == 1 ? ",)" : ")");
    }
    case ArgValue::Kind::kCall:
      return v.call == nullptr ? "None" : FormatCallArgs(*v.call);
  }
  return "None";
}

std::string FormatCall(const std::string& name,
                       const std::vector<NamedArg>& args) {
  std::vector<std::string> parts;
  for (const NamedArg& a : args)
    parts.push_back(absl::StrCat(a.name, "=", FormatArg(a.value)));
  return absl::StrCat(name, "(", absl::StrJoin(parts, ", "), ")");
}

}  // namespace fusednorm
