#include "core/one_line.h"

#include <string>

#include "gtest/gtest.h"

namespace fusednorm {
namespace {

TEST(OneLine, EscapesEveryControlByteAndKeepsTheRest) {
  for (int b = 0; b < 256; ++b) {
    const std::string byte(1, static_cast<char>(b));
    const std::string shown = OneLine("a" + byte + "b");
    char escaped[8];
    std::snprintf(escaped, sizeof(escaped), "\\x%02X", b);
    if (b < 0x20 || b == 0x7f) {
      EXPECT_EQ(shown, std::string("a") + escaped + "b") << b;
    } else {
      EXPECT_EQ(shown, "a" + byte + "b") << b;  // lone high bytes too
    }
  }
}

TEST(OneLine, EscapesC1ControlsInUtf8AndKeepsOtherUtf8) {
  EXPECT_EQ(OneLine("x\xc2\x9b[31my"), "x\\xC2\\x9B[31my");  // U+009B CSI
  EXPECT_EQ(OneLine("\xc2\x80\xc2\x9f"), "\\xC2\\x80\\xC2\\x9F");
  EXPECT_EQ(OneLine("\xc2\xa0\xc3\xa9"), "\xc2\xa0\xc3\xa9");  // NBSP, é
  EXPECT_EQ(OneLine("\xe5\x9b\xbe.jpg"), "\xe5\x9b\xbe.jpg");  // 图
  EXPECT_EQ(OneLine("\xc2"), "\xc2");                          // cut short
}

TEST(OneLine, AMessageWithAHostileNameIsOneLine) {
  const std::string name = "/d/bad\x1b[31mred\nline\r.jpg";
  const std::string shown = OneLine("sample 3 (" + name + "): not a JPEG");
  EXPECT_EQ(shown,
            "sample 3 (/d/bad\\x1B[31mred\\x0Aline\\x0D.jpg): not a JPEG");
  EXPECT_EQ(OneLine(shown), shown);  // nothing left to escape
}

}  // namespace
}  // namespace fusednorm
