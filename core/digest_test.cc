#include "core/digest.h"

#include <string>

#include "gtest/gtest.h"

namespace fusednorm {
namespace {

// Digests are saved and compared on other machines: the value is pinned,
// so a change of the function (or of byte order) fails here first.
TEST(DigestTest, PinnedValues) {
  EXPECT_EQ(Digest().Hex().size(), 16u);
  EXPECT_EQ(Digest().Text("fusednorm").Number(1281167).Hex(),
            "02d766b1b7edef52");
  EXPECT_EQ(Digest().Text("").Hex(), "14b04e55a26ccff7");
}

TEST(DigestTest, TellsPartsAndOrderApart) {
  EXPECT_NE(Digest().Text("ab").Text("c").value(),
            Digest().Text("a").Text("bc").value());
  EXPECT_NE(Digest().Number(1).Number(2).value(),
            Digest().Number(2).Number(1).value());
  EXPECT_NE(Digest().Text("").value(), Digest().value());
}

TEST(DigestTest, EveryBitOfLongInputCounts) {
  std::string text(1000, 'x');
  const uint64_t base = Digest().Text(text).value();
  for (size_t i = 0; i < text.size(); i += 37) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string t = text;
      t[i] = static_cast<char>(t[i] ^ (1 << bit));
      EXPECT_NE(Digest().Text(t).value(), base) << i << " " << bit;
    }
  }
}

}  // namespace
}  // namespace fusednorm
