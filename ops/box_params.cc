// DrawBox and the stream's draws (box_params.h).
#include "ops/box_params.h"

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
    const int64_t along = RoundHalfEven(std::sqrt(target * aspect));
    const int64_t across = RoundHalfEven(std::sqrt(target / aspect));
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
