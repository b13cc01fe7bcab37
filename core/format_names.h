// The names of the output formats (core/formats.h), listed once: what
// DTypeName prints ParseDType accepts, and settings take their choices from
// the same lists.
#ifndef FUSEDNORM_CORE_FORMAT_NAMES_H_
#define FUSEDNORM_CORE_FORMAT_NAMES_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/formats.h"
#include "core/names.h"

namespace fusednorm {

// float32, float16, bfloat16.
absl::Span<const Named<DType>> DTypeNames();
// hwc, hwc4, chw.
absl::Span<const Named<Layout>> LayoutNames();
// fast, exact.
absl::Span<const Named<Mode>> ModeNames();

const char* DTypeName(DType dtype);
const char* LayoutName(Layout layout);
const char* ModeName(Mode mode);

// The value of a name above; else InvalidArgument naming the value and the
// accepted names, e.g. `dtype "float64" is not one of float32, float16,
// bfloat16`.
absl::StatusOr<DType> ParseDType(absl::string_view name);
absl::StatusOr<Layout> ParseLayout(absl::string_view name);
absl::StatusOr<Mode> ParseMode(absl::string_view name);

}  // namespace fusednorm

#endif  // FUSEDNORM_CORE_FORMAT_NAMES_H_
