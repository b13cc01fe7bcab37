// A fresh directory for a test's files, under TEST_TMPDIR (which Bazel
// removes after the test) or, outside Bazel, under /tmp, so that test runs
// leave nothing behind. `prefix` starts its name. A directory that cannot
// be made fails the test.
#ifndef FUSEDNORM_TESTING_TEMP_DIR_H_
#define FUSEDNORM_TESTING_TEMP_DIR_H_

#include <stdlib.h>

#include <string>

#include "gtest/gtest.h"

namespace fusednorm {

inline std::string MakeTempDir(const std::string& prefix) {
  const char* base = getenv("TEST_TMPDIR");
  std::string dir =
      std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/" +
      prefix + "_XXXXXX";
  if (mkdtemp(dir.data()) == nullptr) ADD_FAILURE() << "cannot make " << dir;
  return dir;
}

}  // namespace fusednorm

#endif  // FUSEDNORM_TESTING_TEMP_DIR_H_
