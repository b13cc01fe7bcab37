// ShortestDigits and ShortestDouble (status.h).
#include "core/status.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>

namespace fusednorm {

// to_chars ignores the locale, unlike printf; without a precision it
// writes the shortest digits that read back as the value.
int ShortestDigits(double v, int* exponent) {
  char buffer[64];
  const char* end = std::to_chars(buffer, buffer + sizeof(buffer), v,
                                  std::chars_format::scientific)
                        .ptr;
  const std::string_view s(buffer, end - buffer);  // -d.ddde+XX
  const size_t e = s.find('e');
  const char* x = buffer + e + 1;
  if (*x == '+') ++x;  // from_chars takes '-' only
  std::from_chars(x, end, *exponent);
  int digits = 0;
  for (const char c : s.substr(0, e)) digits += c >= '0' && c <= '9';
  return digits;
}

std::string ShortestDouble(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  int exponent = 0;
  const int digits = ShortestDigits(v, &exponent);
  // %g goes scientific once the exponent reaches the precision: 200 in one
  // digit would be 2e+02. Below 10^16 the integer digits are all shown.
  const int precision = exponent < 16 ? std::max(digits, exponent + 1) : digits;
  char buffer[64];
  return std::string(buffer,
                     std::to_chars(buffer, buffer + sizeof(buffer), v,
                                   std::chars_format::general, precision)
                         .ptr);
}

std::string Shortened(absl::string_view text, size_t most) {
  if (text.size() <= most) return std::string(text);
  return absl::StrCat(text.substr(0, most), "...");
}

}  // namespace fusednorm
