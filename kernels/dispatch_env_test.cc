// ActiveKernel() decides once per process, so the environment override gets its
// own binary.
#include <cstdlib>

#include "gtest/gtest.h"
#include "kernels/dispatch.h"

namespace fusednorm {
namespace {

TEST(ActiveKernel, UnknownEnvironmentIdIsAnErrorNotAFallback) {
  ASSERT_EQ(setenv("FUSEDNORM_KERNEL", "warp_drive", 1), 0);
  const absl::StatusOr<const KernelInfo*> active = ActiveKernel();
  EXPECT_EQ(active.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(std::string(active.status().message())
                .find("FUSEDNORM_KERNEL: kernel \"warp_drive\""),
            std::string::npos)
      << active.status();
}

}  // namespace
}  // namespace fusednorm
