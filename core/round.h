// Rounding as the Python code fusednorm follows does it (torchvision's random
// crop and erase geometry calls Python's round()).
#ifndef FUSEDNORM_CORE_ROUND_H_
#define FUSEDNORM_CORE_ROUND_H_

#include <cmath>
#include <cstdint>

namespace fusednorm {

// Returns Python's round(v): to nearest, ties to even (nearbyint under the
// default rounding mode). `v` must fit in int64_t.
inline int64_t RoundHalfEven(double v) {
  return static_cast<int64_t>(std::nearbyint(v));
}

}  // namespace fusednorm

#endif  // FUSEDNORM_CORE_ROUND_H_
