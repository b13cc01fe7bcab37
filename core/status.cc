// ShortestDouble (status.h).
#include "core/status.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace fusednorm {

std::string ShortestDouble(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // to_chars and from_chars ignore the locale, unlike printf and strtod.
  char buffer[64];
  for (int digits = 1;; ++digits) {
    const std::to_chars_result r = std::to_chars(
        buffer, buffer + sizeof(buffer), v, std::chars_format::general,
        digits);
    double back = 0;
    std::from_chars(buffer, r.ptr, back);
    if (back == v || digits == 17) return std::string(buffer, r.ptr);
  }
}

}  // namespace fusednorm
