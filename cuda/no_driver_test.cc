// Without a driver (FUSEDNORM_CUDA_DRIVER names a library that does not
// exist): every entry point that needs one fails with FailedPrecondition
// naming the library, every time.
#include <dlfcn.h>

#include <string>

#include "cuda/context.h"
#include "cuda/driver.h"
#include "gtest/gtest.h"

namespace fusednorm {
namespace {

void ExpectNoDriver(const absl::Status& s, const std::string& library) {
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(std::string(s.message())
                .find("the CUDA driver " + library + " cannot be loaded"),
            std::string::npos)
      << s;
  EXPECT_NE(std::string(s.message()).find("an NVIDIA driver is needed"),
            std::string::npos)
      << s;
}

TEST(NoDriver, EveryEntryPointNamesTheMissingLibrary) {
  ASSERT_EQ(CudaDriverLibrary(), "/nonexistent/libcuda.so.1");
  ExpectNoDriver(CudaDriver::Get().status(), "/nonexistent/libcuda.so.1");
  ExpectNoDriver(CudaDriver::Get().status(), "/nonexistent/libcuda.so.1");
  ExpectNoDriver(CudaContext::Retain(0).status(), "/nonexistent/libcuda.so.1");
}

TEST(NoDriver, TheDefaultLibraryIsNamedWhenAbsent) {
  unsetenv("FUSEDNORM_CUDA_DRIVER");
  EXPECT_EQ(CudaDriverLibrary(), "libcuda.so.1");
  void* present = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (present != nullptr) GTEST_SKIP() << "this machine has a CUDA driver";
  ExpectNoDriver(CudaDriver::Load(CudaDriverLibrary()).status(),
                 "libcuda.so.1");
}

}  // namespace
}  // namespace fusednorm
