// Counts what the correctness matrix covers, so that an edit to
// matrix_cases.cc cannot silently shrink it: every combination at every width,
// every combination on every small image size, and the hashed options taking
// all their values, each of them across many combinations.
#include "testing/matrix_cases.h"

#include <map>
#include <set>
#include <tuple>

#include "gtest/gtest.h"

namespace fusednorm {
namespace testing_ref {
namespace {

using ComboKey = std::tuple<int, int, int, int, bool, bool, bool>;

ComboKey Key(const Combo& c) {
  return {static_cast<int>(c.dtype),
          static_cast<int>(c.layout),
          static_cast<int>(c.exactness),
          c.channels,
          c.flip,
          c.nontemporal,
          c.erase};
}

TEST(MatrixCases, AllCombosAreDistinct) {
  std::set<ComboKey> keys;
  for (const Combo& c : AllCombos()) keys.insert(Key(c));
  EXPECT_EQ(keys.size(), static_cast<size_t>(kCombos));
  EXPECT_EQ(AllCombos().size(), static_cast<size_t>(kCombos));
}

std::vector<MatrixCase> AllCombinationCases() {
  std::vector<MatrixCase> cases = CombinationCases(CoreWidths());
  for (const MatrixCase& c : CombinationCases(MoreWidths())) cases.push_back(c);
  return cases;
}

// 1..9 and each of 15..17, 31..33, 63..65: around 16, 32 and 64 pixels.
TEST(MatrixCases, EveryCombinationMeetsEveryWidth) {
  std::set<std::pair<ComboKey, int64_t>> seen;
  std::set<int64_t> widths;
  for (const MatrixCase& c : AllCombinationCases()) {
    seen.insert({Key(c.combo), c.width});
    widths.insert(c.width);
    EXPECT_EQ(c.erase.empty(), !c.combo.erase);
  }
  EXPECT_EQ(widths.size(), 18u);
  EXPECT_EQ(seen.size(), kCombos * widths.size());
  for (int64_t w : {1, 9, 15, 17, 31, 33, 63, 65})
    EXPECT_EQ(widths.count(w), 1u);
}

TEST(MatrixCases, EveryCombinationMeetsEverySmallImageSize) {
  std::map<std::pair<int64_t, int64_t>, std::set<ComboKey>> by_size;
  for (const MatrixCase& c : ImageSizeCases()) {
    by_size[{c.height, c.width}].insert(Key(c.combo));
  }
  EXPECT_EQ(by_size.size(), 7u);
  for (const auto& [size, combos] : by_size) {
    const bool large = size.first * size.second > 5000;
    if (large) {
      EXPECT_GE(combos.size(), 15u) << size.first << "x" << size.second;
    } else {
      EXPECT_EQ(combos.size(), static_cast<size_t>(kCombos))
          << size.first << "x" << size.second;
    }
  }
}

// The hashed options take every value, and each value of each meets both
// values of every binary option (nothing in lockstep with the combination).
TEST(MatrixCases, HashedOptionsTakeEveryValueAcrossCombinations) {
  std::set<int> in_align, out_align;
  std::set<int64_t> heights, paddings;
  std::set<std::tuple<int, bool, int>> norms;  // channels, custom, preset
  std::set<std::tuple<int, bool, bool>> out_align_nt_flip;
  std::set<std::tuple<int, int, bool>> norm_exactness;
  for (const MatrixCase& c : AllCombinationCases()) {
    in_align.insert(c.input_alignment);
    out_align.insert(c.output_alignment);
    heights.insert(c.height);
    paddings.insert(c.input_padding);
    norms.insert({c.combo.channels, c.custom_norm,
                  c.custom_norm ? -1 : static_cast<int>(c.preset)});
    const int misalign = c.output_alignment < 0 ? -1 : c.output_alignment % 4;
    out_align_nt_flip.insert({misalign, c.combo.nontemporal, c.combo.flip});
    norm_exactness.insert(
        {c.combo.channels, static_cast<int>(c.combo.exactness), c.custom_norm});
  }
  EXPECT_EQ(in_align.size(), 65u);  // -1 (against the guard page), 0..63
  EXPECT_EQ(out_align.size(), 65u);
  EXPECT_EQ(heights.size(), 4u);
  EXPECT_EQ(paddings.size(), 4u);
  // NO_NORM or MNIST or custom for 1 channel; NO_NORM or custom for 2 and 4;
  // NO_NORM, ImageNet, CIFAR, MLPerf or custom for 3.
  EXPECT_EQ(norms.size(), 3u + 2u + 5u + 2u);
  EXPECT_EQ(out_align_nt_flip.size(), 5u * 2u * 2u);
  EXPECT_EQ(norm_exactness.size(), 4u * 3u * 2u);
}

}  // namespace
}  // namespace testing_ref
}  // namespace fusednorm
