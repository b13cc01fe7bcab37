// OneLine (one_line.h).
#include "core/one_line.h"

#include "absl/strings/str_format.h"

namespace fusednorm {
namespace {

bool Control(unsigned char u) { return u < 0x20 || u == 0x7f; }

// Whether text[i] starts a C1 control in UTF-8 (0xC2 0x80..0x9F).
bool C1At(absl::string_view text, size_t i) {
  return static_cast<unsigned char>(text[i]) == 0xc2 && i + 1 < text.size() &&
         static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
         static_cast<unsigned char>(text[i + 1]) <= 0x9f;
}

void AppendEscaped(unsigned char u, std::string* out) {
  absl::StrAppendFormat(out, "\\x%02X", u);
}

}  // namespace

std::string OneLine(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto u = static_cast<unsigned char>(text[i]);
    if (C1At(text, i)) {
      AppendEscaped(u, &out);
      AppendEscaped(static_cast<unsigned char>(text[++i]), &out);
    } else if (Control(u)) {
      AppendEscaped(u, &out);
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace fusednorm
