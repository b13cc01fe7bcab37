// The dispatch table's shape, the default choice and lookup errors.
#include "kernels/dispatch.h"

#include <cstdlib>
#include <set>
#include <string>

#include "gtest/gtest.h"

namespace fusednorm {
namespace {

TEST(KernelTable, RowsAreWellFormed) {
  std::set<std::string> ids;
  ASSERT_FALSE(KernelTable().empty());
  for (const KernelInfo& row : KernelTable()) {
    ASSERT_NE(row.id, nullptr);
    EXPECT_TRUE(ids.insert(row.id).second) << "duplicate id " << row.id;
    EXPECT_NE(row.fn, nullptr) << row.id;
    EXPECT_NE(row.supported, nullptr) << row.id;
    EXPECT_NE(row.covers, nullptr) << row.id;
  }
  EXPECT_EQ(ids.count("scalar_eigen"), 1u);
  EXPECT_EQ(DescribeKernel(**FindKernel("scalar_eigen")), "scalar_eigen");
}

TEST(KernelTable, ActiveKernelIsTheBestSupported) {
  ASSERT_EQ(std::getenv("FUSEDNORM_KERNEL"), nullptr)
      << "run without FUSEDNORM_KERNEL";
  const absl::StatusOr<const KernelInfo*> active = ActiveKernel();
  ASSERT_TRUE(active.ok()) << active.status();
  EXPECT_TRUE((*active)->supported());
  for (const KernelInfo& row : KernelTable()) {
    if (row.supported()) {
      EXPECT_LE(row.priority, (*active)->priority) << row.id;
    }
  }
  EXPECT_EQ(*ActiveKernel(), *active);  // chosen once
}

TEST(KernelTable, FindAndSelect) {
  EXPECT_EQ(FindKernel("nope").status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(
      std::string(FindKernel("nope").status().message()).find("scalar_eigen"),
      std::string::npos)
      << "the error lists the known ids";
  ASSERT_TRUE(FindKernel("scalar_eigen").ok());
  const absl::StatusOr<const KernelInfo*> chosen = SelectKernel(
      "", DType::kBFloat16, Layout::kCHW, Mode::kTorchvisionExact, 4);
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_TRUE((*chosen)->covers(DType::kBFloat16, Layout::kCHW,
                                Mode::kTorchvisionExact, 4));
  EXPECT_EQ(SelectKernel("scalar_eigen", DType::kFloat32, Layout::kHWC,
                         Mode::kFast, 5)
                .status()
                .code(),
            absl::StatusCode::kUnimplemented);
  for (const KernelInfo& row : KernelTable()) {
    if (!row.supported()) {
      EXPECT_EQ(FindKernel(row.id).status().code(),
                absl::StatusCode::kUnimplemented);
    }
  }
}

}  // namespace
}  // namespace fusednorm
