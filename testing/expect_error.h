// ExpectError: a test's check that a status is the error it should be,
// with a message that names what it must (the parameter, the value, the
// file).
#ifndef FUSEDNORM_TESTING_EXPECT_ERROR_H_
#define FUSEDNORM_TESTING_EXPECT_ERROR_H_

#include <string>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace fusednorm {

// Fails the test unless `s` has `code` and its message contains `needle`.
inline void ExpectError(const absl::Status& s, absl::StatusCode code,
                        const std::string& needle) {
  EXPECT_EQ(s.code(), code) << s;
  EXPECT_NE(std::string(s.message()).find(needle), std::string::npos)
      << "\"" << s.message() << "\" should mention \"" << needle << "\"";
}

}  // namespace fusednorm

#endif  // FUSEDNORM_TESTING_EXPECT_ERROR_H_
