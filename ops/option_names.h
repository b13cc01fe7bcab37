// Parsing the names DTypeName, LayoutName and ModeName (kernels/kernel.h)
// print, for the command-line program and the Python module: one list of
// accepted names, one message for a name that is not on it.
#ifndef FUSEDNORM_OPS_OPTION_NAMES_H_
#define FUSEDNORM_OPS_OPTION_NAMES_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kernels/kernel.h"

namespace fusednorm {

// "float32", "float16", "bfloat16"; else InvalidArgument naming the value
// and the accepted names, e.g. `dtype "float64" is not one of float32,
// float16, bfloat16`.
absl::StatusOr<DType> ParseDType(absl::string_view name);

// "hwc", "hwc4", "chw"; errors as ParseDType.
absl::StatusOr<Layout> ParseLayout(absl::string_view name);

// "fast", "exact"; errors as ParseDType.
absl::StatusOr<Mode> ParseMode(absl::string_view name);

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_OPTION_NAMES_H_
