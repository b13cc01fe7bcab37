// Python's float arithmetic where the Python code fusednorm follows relies
// on it: round() (torchvision's crop, erase and affine geometry), round(x,
// 15) (Pillow's rotate) and % (Pillow's rotate angle).
#ifndef FUSEDNORM_CORE_ROUND_H_
#define FUSEDNORM_CORE_ROUND_H_

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace fusednorm {

// Returns Python's round(v): to nearest, ties to even (nearbyint under the
// default rounding mode). `v` must fit in int64_t.
inline int64_t RoundHalfEven(double v) {
  return static_cast<int64_t>(std::nearbyint(v));
}

// Python's `x % m` on floats: the result has m's sign (and a zero result
// m's sign of zero).
inline double PythonMod(double x, double m) {
  double r = std::fmod(x, m);
  if (r != 0) {
    if ((m < 0) != (r < 0)) r += m;
  } else {
    r = std::copysign(0.0, m);
  }
  return r;
}

// Python's round(x, 15): the exact binary value rounded to 15 decimals,
// ties to even, read back; printf and strtod do the same.
inline double PythonRound15(double x) {
  char text[400];
  std::snprintf(text, sizeof(text), "%.15f", x);
  return std::strtod(text, nullptr);
}

}  // namespace fusednorm

#endif  // FUSEDNORM_CORE_ROUND_H_
