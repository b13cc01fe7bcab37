// Binding and reading op arguments (op_args.h).
#include "ops/op_args.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status.h"

namespace fusednorm {

absl::Status TypeError(const std::string& message) {
  absl::Status s = absl::InvalidArgumentError(message);
  s.SetPayload(kTypeErrorPayload, absl::Cord("1"));
  return s;
}

bool IsTypeError(const absl::Status& status) {
  return status.GetPayload(kTypeErrorPayload).has_value();
}

absl::StatusOr<BoundArgs> BoundArgs::Bind(const std::string& op,
                                          const std::vector<OpParam>& params,
                                          const OpCall& call) {
  BoundArgs b;
  b.op_ = op;
  b.given_.assign(params.size(), false);
  std::vector<std::optional<ArgValue>> values(params.size());
  size_t positional = 0;
  for (const OpArgument& a : call.args) {
    size_t k = 0;
    if (a.keyword.empty()) {
      if (positional >= params.size()) {
        return TypeError(absl::StrCat(op, "() takes at most ", params.size(),
                                      " arguments (", call.args.size(),
                                      " given)"));
      }
      k = positional++;
    } else {
      while (k < params.size() && a.keyword != params[k].name) ++k;
      if (k == params.size()) {
        std::vector<std::string> names;
        for (const OpParam& p : params) names.push_back(p.name);
        return TypeError(absl::StrCat(
            op, "() got an unexpected keyword argument '", a.keyword,
            "' (its arguments: ",
            names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
      }
    }
    if (values[k]) {
      return TypeError(absl::StrCat(op, "() got multiple values for argument '",
                                    params[k].name, "'"));
    }
    values[k] = a.value;
    b.given_[k] = true;
  }
  for (size_t k = 0; k < params.size(); ++k) {
    if (!values[k]) {
      if (params[k].default_text == nullptr) {
        return TypeError(absl::StrCat(op, "() missing required argument '",
                                      params[k].name, "'"));
      }
      FUSEDNORM_ASSIGN_OR_RETURN(values[k],
                                 ParseArgValue(params[k].default_text));
    }
    b.values_.emplace_back(params[k].name, *std::move(values[k]));
  }
  return b;
}

const ArgValue& BoundArgs::Get(const char* name) const {
  for (const auto& [n, v] : values_) {
    if (n == name) return v;
  }
  static const ArgValue* none = new ArgValue();
  return *none;
}

bool BoundArgs::Given(const char* name) const {
  for (size_t k = 0; k < values_.size(); ++k) {
    if (values_[k].first == name) return given_[k];
  }
  return false;
}

absl::Status BoundArgs::WrongType(const char* name,
                                  const char* expected) const {
  return TypeError(absl::StrCat(op_, " ", name, " = ", FormatArg(Get(name)),
                                ": must be ", expected));
}

absl::StatusOr<int64_t> BoundArgs::Int(const char* name) const {
  const ArgValue& v = Get(name);
  if (v.kind != ArgValue::Kind::kInt) return WrongType(name, "an int");
  return v.integer;
}

absl::StatusOr<double> BoundArgs::Number(const char* name) const {
  const ArgValue& v = Get(name);
  if (!v.is_number()) return WrongType(name, "a number");
  return v.number;
}

absl::StatusOr<bool> BoundArgs::Bool(const char* name) const {
  const ArgValue& v = Get(name);
  if (v.kind != ArgValue::Kind::kBool) return WrongType(name, "True or False");
  return v.boolean;
}

absl::StatusOr<std::optional<int64_t>> BoundArgs::OptionalInt(
    const char* name) const {
  const ArgValue& v = Get(name);
  if (v.kind == ArgValue::Kind::kNone) return std::optional<int64_t>();
  if (v.kind != ArgValue::Kind::kInt) return WrongType(name, "None or an int");
  return std::optional<int64_t>(v.integer);
}

absl::StatusOr<std::pair<double, double>> BoundArgs::Range(
    const char* name) const {
  const ArgValue& v = Get(name);
  if (v.kind != ArgValue::Kind::kTuple || v.items.size() != 2 ||
      !v.items[0].is_number() || !v.items[1].is_number()) {
    return WrongType(name, "a (min, max) pair of numbers");
  }
  return std::make_pair(v.items[0].number, v.items[1].number);
}

absl::StatusOr<std::vector<double>> BoundArgs::Numbers(const char* name) const {
  const ArgValue& v = Get(name);
  if (v.is_number()) return std::vector<double>{v.number};
  if (v.kind != ArgValue::Kind::kTuple || v.items.empty())
    return WrongType(name, "a number or a sequence of numbers");
  std::vector<double> out;
  for (const ArgValue& item : v.items) {
    if (!item.is_number())
      return WrongType(name, "a number or a sequence of numbers");
    out.push_back(item.number);
  }
  return out;
}

absl::StatusOr<Size2> BoundArgs::Size(const char* name, bool* shorter) const {
  const ArgValue& v = Get(name);
  const char* expected = "an int or a (height, width) sequence of ints";
  if (shorter != nullptr) *shorter = false;
  if (v.kind == ArgValue::Kind::kInt) {
    if (shorter != nullptr) *shorter = true;
    return Size2{v.integer, v.integer};
  }
  if (v.kind != ArgValue::Kind::kTuple || v.items.empty() ||
      v.items.size() > 2) {
    return WrongType(name, expected);
  }
  for (const ArgValue& item : v.items) {
    if (item.kind != ArgValue::Kind::kInt) return WrongType(name, expected);
  }
  if (v.items.size() == 1) {
    if (shorter != nullptr) *shorter = true;
    return Size2{v.items[0].integer, v.items[0].integer};
  }
  return Size2{v.items[0].integer, v.items[1].integer};
}

absl::StatusOr<std::string> BoundArgs::EnumMember(const char* name,
                                                  const char* expected) const {
  const ArgValue& v = Get(name);
  // Enum("member"), by value, as torchvision's own presets write policies.
  if (v.kind == ArgValue::Kind::kCall && v.call->args.size() == 1 &&
      v.call->args[0].keyword.empty() &&
      v.call->args[0].value.kind == ArgValue::Kind::kText) {
    return absl::AsciiStrToLower(v.call->args[0].value.text);
  }
  if (v.kind != ArgValue::Kind::kName && v.kind != ArgValue::Kind::kText) {
    return WrongType(name, expected);
  }
  // Enum.MEMBER, MEMBER, member, 'member'.
  std::string member = v.text;
  const size_t dot = member.rfind('.');
  if (dot != std::string::npos) member = member.substr(dot + 1);
  return absl::AsciiStrToLower(member);
}

absl::StatusOr<Interpolation> BoundArgs::InterpolationMode(
    const char* name) const {
  const ArgValue& v = Get(name);
  // Pillow's constants, which torchvision maps to its modes: 0 NEAREST,
  // 2 BILINEAR, 3 BICUBIC (1, 4 and 5 are LANCZOS, BOX and HAMMING).
  if (v.kind == ArgValue::Kind::kInt) {
    if (v.integer == 0) return Interpolation::kNearest;
    if (v.integer == 2) return Interpolation::kBilinear;
    if (v.integer == 3) return Interpolation::kBicubic;
    if (v.integer < 0 || v.integer > 5) {
      return WrongType(name, "an InterpolationMode, or Pillow's number of one");
    }
  } else {
    FUSEDNORM_ASSIGN_OR_RETURN(
        const std::string mode,
        EnumMember(name, "an InterpolationMode: nearest, bilinear or bicubic"));
    for (const Named<Interpolation>& n : InterpolationNames()) {
      if (mode == n.name) return n.value;
    }
  }
  return InvalidArgumentCat(
      op_, " ", name, " = ", FormatArg(Get(name)),
      ": fusednorm implements nearest, bilinear and bicubic (Pillow's "
      "NEAREST, BILINEAR and BICUBIC)");
}

absl::Status BoundArgs::Antialias(const char* name) const {
  const ArgValue& v = Get(name);
  if (v.kind == ArgValue::Kind::kNone) return absl::OkStatus();
  if (v.kind == ArgValue::Kind::kBool && v.boolean) return absl::OkStatus();
  if (v.kind == ArgValue::Kind::kText && v.text == "warn")
    return absl::OkStatus();
  if (v.kind == ArgValue::Kind::kBool) {
    return InvalidArgumentCat(
        op_, " ", name,
        " = False: fusednorm resizes as torchvision does PIL images, which "
        "are always antialiased; for torchvision's tensor route without "
        "antialiasing, set resize_filter to bilinear");
  }
  return WrongType(name, "True, None or 'warn'");
}

}  // namespace fusednorm
