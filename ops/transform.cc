// PreprocessOp's shared parts (transform.h): Execute, reading decision
// fields back, and the probability check.
#include "ops/transform.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status.h"

namespace fusednorm {

absl::Status CheckProbability(const char* op, const char* name, double p) {
  if (p >= 0 && p <= 1) return absl::OkStatus();
  return InvalidArgumentCat(op, " ", name, " = ", p,
                            ": must be a probability in [0, 1]");
}

absl::StatusOr<std::optional<Size2>> PreprocessOp::SizeOfEveryDraw(
    Size2 input) const {
  if (SizeDependsOnDecision()) return std::optional<Size2>();
  FUSEDNORM_ASSIGN_OR_RETURN(const Size2 size, OutputSize(input));
  return std::optional<Size2>(size);
}

absl::Status PreprocessOp::Execute(const ImageView& input, SampleStream& stream,
                                   Image* output) const {
  FUSEDNORM_RETURN_IF_ERROR(ValidateImage(input));
  OpWorkspace ws;
  return Apply(input, Decide({input.height, input.width}, stream), &ws, output);
}

absl::StatusOr<OpDecision> PreprocessOp::DecisionFromFields(
    const std::vector<NamedArg>& fields, Size2) const {
  DecisionReader r(*this, fields);
  FUSEDNORM_RETURN_IF_ERROR(r.Done());
  return OpDecision{};
}

const ArgValue* DecisionReader::Take(const char* name) {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name == name) {
      used_[i] = true;
      return &fields_[i].value;
    }
  }
  return nullptr;
}

absl::Status DecisionReader::Error(const char* name,
                                   const std::string& why) const {
  return InvalidArgumentCat(op_.op_name(), " decision ", name, ": ", why);
}

absl::Status DecisionReader::Missing(const char* name) const {
  std::vector<std::string> given;
  for (const NamedArg& f : fields_) given.push_back(f.name);
  return Error(
      name,
      given.empty()
          ? std::string("missing (no decisions given)")
          : absl::StrCat("missing (given: ", absl::StrJoin(given, ", "), ")"));
}

absl::StatusOr<int64_t> DecisionReader::Int(const char* name) {
  const ArgValue* v = Take(name);
  if (v == nullptr) return Missing(name);
  if (v->kind != ArgValue::Kind::kInt)
    return Error(name, absl::StrCat(FormatArg(*v), " is not an integer"));
  return v->integer;
}

absl::StatusOr<double> DecisionReader::Float(const char* name) {
  const ArgValue* v = Take(name);
  if (v == nullptr) return Missing(name);
  if (v->kind == ArgValue::Kind::kNone) return NAN;
  if (!v->is_number() || !std::isfinite(v->number))
    return Error(name, absl::StrCat(FormatArg(*v), " is not a finite number"));
  return v->number;
}

absl::StatusOr<bool> DecisionReader::Bool(const char* name) {
  const ArgValue* v = Take(name);
  if (v == nullptr) return Missing(name);
  if (v->kind != ArgValue::Kind::kBool)
    return Error(name, absl::StrCat(FormatArg(*v), " is not True or False"));
  return v->boolean;
}

absl::Status DecisionReader::Done() const {
  std::vector<std::string> unknown;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!used_[i]) unknown.push_back(fields_[i].name);
  }
  if (unknown.empty()) return absl::OkStatus();
  return InvalidArgumentCat(op_.op_name(), " has no decision named ",
                            absl::StrJoin(unknown, ", "));
}

}  // namespace fusednorm
