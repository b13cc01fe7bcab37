// Names of enum values, listed once per enum: the list prints a value's
// name, parses a name back (the error names what was parsed and the
// accepted names), and gives a setting its choices (core/settings.h), so a
// name printed is always a name accepted.
#ifndef FUSEDNORM_CORE_NAMES_H_
#define FUSEDNORM_CORE_NAMES_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace fusednorm {

template <typename E>
struct Named {
  E value;
  const char* name;
};

// The name of `value` in `names`, or "?" when it has none.
template <typename E>
const char* NameOf(absl::Span<const Named<E>> names, E value) {
  for (const Named<E>& n : names) {
    if (n.value == value) return n.name;
  }
  return "?";
}

// The names, in list order.
template <typename E>
std::vector<std::string> NamesOf(absl::Span<const Named<E>> names) {
  std::vector<std::string> out;
  for (const Named<E>& n : names) out.push_back(n.name);
  return out;
}

// The value named `name`; InvalidArgument `WHAT "NAME" is not one of A, B`
// otherwise.
template <typename E>
absl::StatusOr<E> ParseNamed(absl::Span<const Named<E>> names,
                             absl::string_view what, absl::string_view name) {
  for (const Named<E>& n : names) {
    if (name == n.name) return n.value;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(what, " \"", name, "\" is not one of ",
                   absl::StrJoin(NamesOf(names), ", ")));
}

}  // namespace fusednorm

#endif  // FUSEDNORM_CORE_NAMES_H_
