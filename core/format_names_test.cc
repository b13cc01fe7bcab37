// Every name an enum prints parses back to it; anything else is an error
// listing the accepted names.
#include "core/format_names.h"

#include <string>

#include "gtest/gtest.h"

namespace fusednorm {
namespace {

TEST(OptionNames, RoundTripAndErrors) {
  for (DType d : {DType::kFloat32, DType::kFloat16, DType::kBFloat16})
    EXPECT_EQ(*ParseDType(DTypeName(d)), d);
  for (Layout l : {Layout::kHWC, Layout::kHWC4, Layout::kCHW})
    EXPECT_EQ(*ParseLayout(LayoutName(l)), l);
  for (Mode m : {Mode::kFast, Mode::kTorchvisionExact})
    EXPECT_EQ(*ParseMode(ModeName(m)), m);
  const absl::Status bad = ParseDType("float64").status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(bad.message()),
            "dtype \"float64\" is not one of float32, float16, bfloat16");
  EXPECT_FALSE(ParseLayout("HWC").ok());  // names are exact
  EXPECT_FALSE(ParseMode("").ok());
}

}  // namespace
}  // namespace fusednorm
