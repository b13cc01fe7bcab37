// torchvision's get_params search for a random box, written once for the
// two transforms that use it: RandomResizedCrop (a crop window of the
// input) and RandomErasing (a rectangle of the output). Up to 10 attempts
// each draw an area fraction and a log-uniform aspect ratio, round the sides
// as Python's round() does, and keep the first box that fits; its position
// is then drawn uniformly.
//
// The draws come from a BoxDraws: the sample's Philox stream for the
// pipeline and the fused op, or torch's generator for FusedTail's
// rng="torchvision" (its Python half supplies them), so that both make the
// same decisions from the same draws.
#ifndef FUSEDNORM_OPS_BOX_PARAMS_H_
#define FUSEDNORM_OPS_BOX_PARAMS_H_

#include <cstdint>
#include <optional>

#include "core/geometry.h"
#include "rng/philox.h"

namespace fusednorm {

class BoxDraws {
 public:
  virtual ~BoxDraws() = default;
  // An area fraction, uniform in [lo, hi).
  virtual double Scale(double lo, double hi) = 0;
  // An aspect ratio exp(u) with u uniform in [log lo, log hi).
  virtual double Aspect(double lo, double hi) = 0;
  // An integer uniform in [lo, hi] (lo <= hi).
  virtual int64_t Int(int64_t lo, int64_t hi) = 0;
};

// The draws of a sample's stream, as the pipeline and the fused op make
// them (float uniforms widened to double, logs in double).
class StreamDraws : public BoxDraws {
 public:
  explicit StreamDraws(SampleStream& stream) : stream_(stream) {}
  double Scale(double lo, double hi) override;
  double Aspect(double lo, double hi) override;
  int64_t Int(int64_t lo, int64_t hi) override;

 private:
  SampleStream& stream_;
};

enum class BoxKind {
  kCrop,   // width = round(sqrt(area * aspect)); fits when 0 < side <= image
  kErase,  // height = round(sqrt(area * aspect)); fits when side < image
};

struct BoxRange {
  double scale_min, scale_max;  // area / image area
  double ratio_min, ratio_max;  // aspect ratio
};

// The first of 10 attempts that fits a height x width image, or nullopt
// (RandomResizedCrop then takes its central fallback; RandomErasing erases
// nothing).
std::optional<CropWindow> DrawBox(BoxKind kind, int64_t height, int64_t width,
                                  const BoxRange& range, BoxDraws& draws);

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_BOX_PARAMS_H_
