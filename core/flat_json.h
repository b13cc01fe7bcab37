// A flat JSON object of non-negative integers and plain strings, such as
// {"epoch": 3, "dataset": "02d766b1b7edef52"}: written in the order given,
// read strictly. Strings are printable ASCII without quotes or
// backslashes, integers fit in 64 bits, keys appear once; anything else is
// an InvalidArgument naming the byte where it went wrong. Small and plain
// on purpose: what it holds must survive a round trip through Python's
// json module and a training checkpoint.
#ifndef FUSEDNORM_CORE_FLAT_JSON_H_
#define FUSEDNORM_CORE_FLAT_JSON_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fusednorm {

using FlatJsonValue = std::variant<uint64_t, std::string>;

// {"key": value, ...} on one line. Strings must be as ReadFlatJson reads
// them.
std::string WriteFlatJson(
    const std::vector<std::pair<std::string, FlatJsonValue>>& fields);

// Whether `text` is a string WriteFlatJson can hold: printable ASCII
// without quotes or backslashes.
bool IsFlatJsonText(absl::string_view text);

// The object's fields by key; `what` names the text in errors.
absl::StatusOr<std::map<std::string, FlatJsonValue>> ReadFlatJson(
    absl::string_view text, absl::string_view what);

}  // namespace fusednorm

#endif  // FUSEDNORM_CORE_FLAT_JSON_H_
