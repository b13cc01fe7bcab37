// The matrix (testing/kernel_matrix_test) runs every dispatch-table row; this
// checks that those rows include one for every Highway target compiled and
// supported here, so the matrix covers each of them and not only the best one.
#include "kernels/highway/highway.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "kernels/dispatch.h"

namespace fusednorm {
namespace {

TEST(HighwayRows, OneSupportedRowPerSupportedAndGeneratedTarget) {
  int found = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    const std::string id =
        "highway_" + absl::AsciiStrToLower(hwy::TargetName(target));
    const absl::StatusOr<const KernelInfo*> row = FindKernel(id);
    ASSERT_TRUE(row.ok()) << id << ": " << row.status();
    EXPECT_EQ(DescribeKernel(**row),
              absl::StrCat(id, " (", hwy::TargetName(target), ")"));
    ++found;
  }
  EXPECT_GT(found, 0);
  // Every compiled target has a row, supported here or not.
  int rows = 0;
  for (const KernelInfo& row : KernelTable()) {
    rows += std::string(row.id).rfind("highway_", 0) == 0;
  }
  EXPECT_EQ(rows, hwy::PopCount(static_cast<uint64_t>(HWY_TARGETS)));
  const absl::StatusOr<const KernelInfo*> dynamic = FindKernel("highway");
  ASSERT_TRUE(dynamic.ok());
  // "highway" runs the best compiled target this CPU supports.
  const int64_t best = hwy::SupportedTargets() & HWY_TARGETS;
  EXPECT_EQ(DescribeKernel(**dynamic),
            absl::StrCat("highway (", hwy::TargetName(best & -best), ")"));
}

}  // namespace
}  // namespace fusednorm
