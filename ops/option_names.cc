// Name parsing (option_names.h), by comparison with the names the enums
// print, so that a name printed is always a name accepted.
#include "ops/option_names.h"

#include <initializer_list>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace fusednorm {
namespace {

// The value among `values` whose printed name (by `name_of`) is `name`.
template <typename T>
absl::StatusOr<T> Parse(const char* what, absl::string_view name,
                        std::initializer_list<T> values,
                        const char* (*name_of)(T)) {
  std::vector<std::string> names;
  for (T v : values) {
    if (name == name_of(v)) return v;
    names.push_back(name_of(v));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      what, " \"", name, "\" is not one of ", absl::StrJoin(names, ", ")));
}

}  // namespace

absl::StatusOr<DType> ParseDType(absl::string_view name) {
  return Parse("dtype", name,
               {DType::kFloat32, DType::kFloat16, DType::kBFloat16},
               &DTypeName);
}

absl::StatusOr<Layout> ParseLayout(absl::string_view name) {
  return Parse("layout", name, {Layout::kHWC, Layout::kHWC4, Layout::kCHW},
               &LayoutName);
}

absl::StatusOr<Mode> ParseMode(absl::string_view name) {
  return Parse("mode", name, {Mode::kFast, Mode::kTorchvisionExact}, &ModeName);
}

}  // namespace fusednorm
