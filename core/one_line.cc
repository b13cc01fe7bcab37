// OneLine (one_line.h).
#include "core/one_line.h"

#include <cstdint>

#include "absl/strings/str_format.h"

namespace fusednorm {
namespace {

unsigned char Byte(absl::string_view text, size_t i) {
  return static_cast<unsigned char>(text[i]);
}

// The length of the well-formed UTF-8 sequence at text[i] (RFC 3629's
// table: no overlong forms, no surrogates, nothing past U+10FFFF), and its
// code point in *code; 0 when the byte there starts none.
size_t Utf8At(absl::string_view text, size_t i, uint32_t* code) {
  const unsigned char b = Byte(text, i);
  size_t n = 0;
  unsigned char low = 0x80, high = 0xbf;  // the second byte's range
  if (b < 0x80) {
    *code = b;
    return 1;
  } else if (b >= 0xc2 && b <= 0xdf) {
    n = 2;
  } else if (b >= 0xe0 && b <= 0xef) {
    n = 3;
    if (b == 0xe0) low = 0xa0;
    if (b == 0xed) high = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    n = 4;
    if (b == 0xf0) low = 0x90;
    if (b == 0xf4) high = 0x8f;
  } else {
    return 0;
  }
  if (i + n > text.size() || Byte(text, i + 1) < low ||
      Byte(text, i + 1) > high) {
    return 0;
  }
  *code = b & (0x7f >> n);
  for (size_t k = 1; k < n; ++k) {
    if ((Byte(text, i + k) & 0xc0) != 0x80) return 0;
    *code = (*code << 6) | (Byte(text, i + k) & 0x3f);
  }
  return n;
}

// Whether code point `c` is shown escaped (one_line.h's list).
bool Escaped(uint32_t c) {
  return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || c == 0x2028 ||
         c == 0x2029 || (c >= 0x202a && c <= 0x202e) ||
         (c >= 0x2066 && c <= 0x2069);
}

void AppendEscaped(absl::string_view bytes, std::string* out) {
  for (const char c : bytes)
    absl::StrAppendFormat(out, "\\x%02X", static_cast<unsigned char>(c));
}

}  // namespace

std::string OneLine(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    uint32_t code = 0;
    const size_t n = Utf8At(text, i, &code);
    if (n == 0) {
      AppendEscaped(text.substr(i, 1), &out);
      ++i;
      continue;
    }
    if (Escaped(code)) {
      AppendEscaped(text.substr(i, n), &out);
    } else {
      out.append(text.data() + i, n);
    }
    i += n;
  }
  return out;
}

}  // namespace fusednorm
