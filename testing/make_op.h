// The one per-sample op a transform list's text names, for tests: a test
// failure (and nullptr) when the text does not make one.
#ifndef FUSEDNORM_TESTING_MAKE_OP_H_
#define FUSEDNORM_TESTING_MAKE_OP_H_

#include <memory>
#include <string>
#include <utility>

#include "gtest/gtest.h"
#include "ops/op_table.h"

namespace fusednorm {

inline std::unique_ptr<PreprocessOp> MakeOp(const std::string& text) {
  auto ops = MakeTransforms(text, "list", OpContext());
  EXPECT_TRUE(ops.ok()) << text << ": " << ops.status();
  if (!ops.ok() || ops->size() != 1) return nullptr;
  return std::move((*ops)[0]);
}

}  // namespace fusednorm

#endif  // FUSEDNORM_TESTING_MAKE_OP_H_
