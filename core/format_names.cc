// The format name lists (format_names.h).
#include "core/format_names.h"

namespace fusednorm {

absl::Span<const Named<DType>> DTypeNames() {
  static constexpr Named<DType> kNames[] = {{DType::kFloat32, "float32"},
                                            {DType::kFloat16, "float16"},
                                            {DType::kBFloat16, "bfloat16"}};
  return kNames;
}

absl::Span<const Named<Layout>> LayoutNames() {
  static constexpr Named<Layout> kNames[] = {
      {Layout::kHWC, "hwc"}, {Layout::kHWC4, "hwc4"}, {Layout::kCHW, "chw"}};
  return kNames;
}

absl::Span<const Named<Mode>> ModeNames() {
  static constexpr Named<Mode> kNames[] = {{Mode::kFast, "fast"},
                                           {Mode::kTorchvisionExact, "exact"}};
  return kNames;
}

const char* DTypeName(DType d) { return NameOf(DTypeNames(), d); }
const char* LayoutName(Layout l) { return NameOf(LayoutNames(), l); }
const char* ModeName(Mode m) { return NameOf(ModeNames(), m); }

absl::StatusOr<DType> ParseDType(absl::string_view name) {
  return ParseNamed(DTypeNames(), "dtype", name);
}
absl::StatusOr<Layout> ParseLayout(absl::string_view name) {
  return ParseNamed(LayoutNames(), "layout", name);
}
absl::StatusOr<Mode> ParseMode(absl::string_view name) {
  return ParseNamed(ModeNames(), "mode", name);
}

}  // namespace fusednorm
