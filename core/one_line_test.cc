#include "core/one_line.h"

#include <cstdio>
#include <string>

#include "gtest/gtest.h"

namespace fusednorm {
namespace {

std::string Escapes(const std::string& bytes) {
  std::string out;
  char e[8];
  for (const char c : bytes) {
    std::snprintf(e, sizeof(e), "\\x%02X", static_cast<unsigned char>(c));
    out += e;
  }
  return out;
}

TEST(OneLine, EscapesControlsAndBytesOutsideUtf8) {
  for (int b = 0; b < 256; ++b) {
    const std::string byte(1, static_cast<char>(b));
    const std::string shown = OneLine("a" + byte + "b");
    if (b < 0x20 || b >= 0x7f) {  // controls, DEL, and a lone high byte
      EXPECT_EQ(shown, "a" + Escapes(byte) + "b") << b;
    } else {
      EXPECT_EQ(shown, "a" + byte + "b") << b;
    }
  }
}

TEST(OneLine, KeepsWellFormedUtf8) {
  for (const std::string s :
       {"\xc2\xa0", "\xc3\xa9", "\xdf\xbf", "\xe0\xa0\x80", "\xe5\x9b\xbe",
        "\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbf", "\xf0\x90\x80\x80",
        "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf", "\xe2\x80\xa7", "\xe2\x80\xaf",
        "\xe2\x81\xa5", "\xe2\x81\xaa"}) {
    EXPECT_EQ(OneLine("x" + s + "y"), "x" + s + "y") << Escapes(s);
  }
}

TEST(OneLine, EscapesWhatMovesOrBreaksALine) {
  for (const std::string s :
       {"\xc2\x80", "\xc2\x9b", "\xc2\x9f",  // C1 controls, CSI among them
        "\xe2\x80\xa8", "\xe2\x80\xa9",      // line, paragraph separator
        "\xe2\x80\xaa", "\xe2\x80\xae",      // bidi embeddings, overrides
        "\xe2\x81\xa6", "\xe2\x81\xa9"}) {   // bidi isolates
    EXPECT_EQ(OneLine("x" + s + "y"), "x" + Escapes(s) + "y") << Escapes(s);
  }
}

TEST(OneLine, EscapesMalformedUtf8ByteByByte) {
  for (const std::string s :
       {"\xc0\x80", "\xc1\xbf",                  // overlong two-byte forms
        "\xe0\x80\x80", "\xe0\x9f\xbf",          // overlong three-byte forms
        "\xed\xa0\x80", "\xed\xbf\xbf",          // surrogates
        "\xf0\x80\x80\x80",                      // overlong four-byte form
        "\xf4\x90\x80\x80", "\xf5\x80\x80\x80",  // past U+10FFFF
        "\xc3", "\xe5\x9b", "\xf0\x9f\x98",      // cut short at the end
        "\x80", "\xbf"}) {                       // continuations alone
    EXPECT_EQ(OneLine("x" + s), "x" + Escapes(s)) << Escapes(s);
  }
  // Cut short before other text: the text after it is kept.
  EXPECT_EQ(OneLine("\xe5\x9b"
                    "a"),
            "\\xE5\\x9Ba");
  EXPECT_EQ(OneLine("caf\xe9.jpg"), "caf\\xE9.jpg");  // Latin-1
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
