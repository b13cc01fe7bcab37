// The correctness matrix: one parameterised suite instantiated over every row
// of the dispatch table (named by kernel id, so --gtest_filter='*/highway*'
// works). Variants this CPU cannot run are skipped. Every case checks every
// output byte against the reference (testing/fused_norm_tester.h).
//
// The discrete options that interact inside a kernel are crossed
// exhaustively: dtype x layout x exactness x channels x flip x stores x erase
// (see matrix_cases.h). Everything else a case needs (preset, paddings,
// alignments, erase shape, height, seed) is drawn from a hash of the whole
// case, so no two options ever move in lockstep.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/dispatch.h"
#include "testing/fused_norm_tester.h"
#include "testing/matrix_cases.h"

namespace fusednorm {
namespace testing_ref {
namespace {

std::vector<std::string> KernelIds() {
  std::vector<std::string> ids;
  for (const KernelInfo& row : KernelTable()) ids.push_back(row.id);
  return ids;
}

class KernelMatrixTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const absl::StatusOr<const KernelInfo*> k = FindKernel(GetParam());
    if (!k.ok()) GTEST_SKIP() << k.status();
  }

  // Runs the cases in order; stops at the first failing one (one broken
  // kernel should not print thousands of failures).
  void RunCases(const std::vector<MatrixCase>& cases) {
    for (const MatrixCase& c : cases) {
      MakeTester(c).kernel(GetParam()).Test();
      if (HasFailure()) return;
    }
  }
};

// Every combination of the discrete options at a few widths (1, 5, 16, 17,
// 33, 64 pixels); the runs under emulated CPUs take only this one.
TEST_P(KernelMatrixTest, EveryCombination) {
  RunCases(CombinationCases(CoreWidths()));
}

// The same at the rest of the widths around every vector width (2..9, 15,
// 31, 32, 63, 65 pixels).
TEST_P(KernelMatrixTest, EveryCombinationMoreWidths) {
  RunCases(CombinationCases(MoreWidths()));
}

// Classic image sizes and degenerate shapes: every combination on the small
// ones, a hashed sample of them on the large ones.
TEST_P(KernelMatrixTest, ImageSizes) { RunCases(ImageSizeCases()); }

// Every variant agrees with scalar_eigen bit for bit (already implied by the
// reference; checked directly so a disagreement names both).
TEST_P(KernelMatrixTest, AgreesWithScalarEigen) {
  for (const MatrixCase& c : AgreementCases()) {
    const std::vector<uint8_t> ours = MakeTester(c).kernel(GetParam()).Test();
    if (ours.empty()) continue;  // not covered by this variant
    const std::vector<uint8_t> base =
        MakeTester(c).kernel("scalar_eigen").Test();
    EXPECT_EQ(ours, base) << MakeTester(c).Describe();
  }
}

INSTANTIATE_TEST_SUITE_P(AllKernels, KernelMatrixTest,
                         ::testing::ValuesIn(KernelIds()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace testing_ref
}  // namespace fusednorm
