// The cases of the correctness matrix (kernel_matrix_test), kept apart from
// running them so that matrix_cases_test can count what they cover and a
// future edit cannot shrink the matrix unnoticed.
//
// A case is a Combo (the discrete options that interact inside a kernel,
// crossed exhaustively) plus a shape and the options that only need to vary:
// normalization, input padding, input and output alignment, erase shape and
// seed. Those are drawn from a hash of the whole case, never from a counter
// shared with the combination.
#ifndef FUSEDNORM_TESTING_MATRIX_CASES_H_
#define FUSEDNORM_TESTING_MATRIX_CASES_H_

#include <cstdint>
#include <vector>

#include "kernels/kernel.h"
#include "ops/presets.h"
#include "testing/fused_norm_tester.h"

namespace fusednorm {
namespace testing_ref {

// How values are computed: fast mode, exact mode as the kernel chooses (the
// checked FMA form where the CPU has one), exact mode forced to divide.
enum class Exactness { kFast, kExact, kExactByDivision };

struct Combo {
  DType dtype;
  Layout layout;
  Exactness exactness;
  int channels;  // 1..4
  bool flip;
  bool nontemporal;
  bool erase;  // a non-empty erase rectangle
};

// 3 dtypes x 3 layouts x 3 exactnesses x 4 channel counts x flip x stores x
// erase.
constexpr int kCombos = 3 * 3 * 3 * 4 * 2 * 2 * 2;

// Every Combo once.
std::vector<Combo> AllCombos();

struct MatrixCase {
  Combo combo;
  int64_t height = 1, width = 1;
  // Drawn from the hash of (combo, height, width):
  bool custom_norm = false;  // custom mean/std instead of `preset`
  Preset preset = Preset::kNoNorm;
  int64_t input_padding = 0;
  int input_alignment = -1;  // FusedNormTester::input_alignment
  int output_alignment = -1;
  EraseRect erase;  // empty unless combo.erase
  uint32_t seed = 0;
};

// The widths every combination meets, around each vector width in pixels:
// CoreWidths() (a few, cheap enough for emulated CPUs) and MoreWidths() (the
// rest of the sweep).
std::vector<int64_t> CoreWidths();
std::vector<int64_t> MoreWidths();

// Every combination at each of `widths` (heights hashed).
std::vector<MatrixCase> CombinationCases(const std::vector<int64_t>& widths);

// Classic image sizes and degenerate shapes: every combination on the small
// ones, a hashed sample on 224x224 and 333x500.
std::vector<MatrixCase> ImageSizeCases();

// A few cases to compare variants with each other directly.
std::vector<MatrixCase> AgreementCases();

// The tester for one case (kernel not set).
FusedNormTester MakeTester(const MatrixCase& c);

}  // namespace testing_ref
}  // namespace fusednorm

#endif  // FUSEDNORM_TESTING_MATRIX_CASES_H_
