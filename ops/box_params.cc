// DrawBox and the stream's draws (box_params.h).
#include "ops/box_params.h"

#include <algorithm>
#include <cmath>

#include "core/round.h"

namespace fusednorm {

double StreamDraws::Scale(double lo, double hi) {
  return lo + stream_.Uniform() * (hi - lo);
}

double StreamDraws::Aspect(double lo, double hi) {
  const double log_lo = std::log(lo), log_hi = std::log(hi);
  return std::exp(log_lo + stream_.Uniform() * (log_hi - log_lo));
}

int64_t StreamDraws::Int(int64_t lo, int64_t hi) {
  return stream_.UniformInt(lo, hi);
}

std::optional<CropWindow> DrawBox(BoxKind kind, int64_t height, int64_t width,
                                  const BoxRange& range, BoxDraws& draws) {
  const double area = static_cast<double>(height) * static_cast<double>(width);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target = area * draws.Scale(range.scale_min, range.scale_max);
    const double aspect = draws.Aspect(range.ratio_min, range.ratio_max);
    const double along_real = std::sqrt(target * aspect);
    const double across_real = std::sqrt(target / aspect);
    // A side past the image's longer one fits neither kind of box (and one
    // past int64, from an extreme scale or ratio, could not be rounded).
    const double longest = static_cast<double>(std::max(height, width)) + 1;
    if (!(along_real <= longest && across_real <= longest)) continue;
    const int64_t along = RoundHalfEven(along_real);
    const int64_t across = RoundHalfEven(across_real);
    int64_t h, w;
    bool fits;
    if (kind == BoxKind::kCrop) {
      w = along, h = across;
      fits = 0 < w && w <= width && 0 < h && h <= height;
    } else {
      h = along, w = across;
      fits = h < height && w < width;
    }
    if (!fits) continue;
    const int64_t top = draws.Int(0, height - h);
    const int64_t left = draws.Int(0, width - w);
    return CropWindow{top, left, h, w};
  }
  return std::nullopt;
}

}  // namespace fusednorm
