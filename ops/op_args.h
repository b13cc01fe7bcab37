// An op's arguments bound to its parameters, as Python binds a call to a
// signature: positional arguments in the parameters' order, then keywords;
// a parameter not given takes its default. Typed readers then turn each
// value into what the op's constructor takes, with torchvision's
// spellings (a size is an int or (h, w); an interpolation is a name such
// as bicubic, 'bicubic' or InterpolationMode.BICUBIC).
//
// Errors name the op and the argument. A value of the wrong kind (a string
// where a number goes) is InvalidArgument carrying the payload
// kTypeErrorPayload, which Python raises as TypeError; a value out of range
// is plain InvalidArgument (ValueError). Range rules live in the ops' own
// Validate(), not here.
#ifndef FUSEDNORM_OPS_OP_ARGS_H_
#define FUSEDNORM_OPS_OP_ARGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/geometry.h"
#include "ops/arg_value.h"
#include "ops/resize.h"
#include "ops/transform_list.h"

namespace fusednorm {

// The payload type URL that marks a status as a Python TypeError.
inline constexpr char kTypeErrorPayload[] = "fusednorm/type_error";

// InvalidArgument with the type-error payload.
absl::Status TypeError(const std::string& message);
bool IsTypeError(const absl::Status& status);

// One parameter of an op: torchvision's name, its default as the list
// grammar writes it (nullptr: required), and its help.
struct OpParam {
  const char* name;
  const char* default_text;
  const char* help;
};

class BoundArgs {
 public:
  // Binds `call` (the op named `op`) to `params`.
  static absl::StatusOr<BoundArgs> Bind(const std::string& op,
                                        const std::vector<OpParam>& params,
                                        const OpCall& call);

  // The value of parameter `name` (given, else its default).
  const ArgValue& Get(const char* name) const;
  bool Given(const char* name) const;

  absl::StatusOr<int64_t> Int(const char* name) const;
  absl::StatusOr<double> Number(const char* name) const;
  absl::StatusOr<bool> Bool(const char* name) const;
  // None or an int.
  absl::StatusOr<std::optional<int64_t>> OptionalInt(const char* name) const;
  // A pair of numbers (min, max).
  absl::StatusOr<std::pair<double, double>> Range(const char* name) const;
  // A sequence of numbers (a single number is a sequence of one).
  absl::StatusOr<std::vector<double>> Numbers(const char* name) const;
  // An int (square) or (h, w); `shorter`, when not null, is set when the
  // size was an int or a 1-sequence (Resize's shorter side).
  absl::StatusOr<Size2> Size(const char* name, bool* shorter = nullptr) const;
  // An enum member as torchvision's enums are written (Enum.MEMBER,
  // MEMBER, member, 'member', Enum('member')), lower-cased; a value of
  // another kind is a type error naming `expected`.
  absl::StatusOr<std::string> EnumMember(const char* name,
                                         const char* expected) const;
  absl::StatusOr<Interpolation> InterpolationMode(const char* name) const;
  // True, None or 'warn' (the PIL route always antialiases); False is
  // refused, naming the op.
  absl::Status Antialias(const char* name) const;

  // Errors naming the op and the argument.
  absl::Status WrongType(const char* name, const char* expected) const;
  const std::string& op() const { return op_; }

 private:
  std::string op_;
  std::vector<std::pair<std::string, ArgValue>> values_;
  std::vector<bool> given_;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_OP_ARGS_H_
