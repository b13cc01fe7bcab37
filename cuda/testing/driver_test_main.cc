// The main of tests that load a CUDA driver: FUSEDNORM_CUDA_DRIVER is set to
// the first argument left after gtest's (made absolute when it exists), so
// a test target names its driver, the double or a missing library, with
// `args = ["$(rootpath //cuda/testing:libfake_cuda.so)"]`.
#include <limits.h>
#include <stdlib.h>

#include "gtest/gtest.h"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc > 1) {
    char path[PATH_MAX];
    const char* lib = realpath(argv[1], path) != nullptr ? path : argv[1];
    setenv("FUSEDNORM_CUDA_DRIVER", lib, 1);
  }
  return RUN_ALL_TESTS();
}
