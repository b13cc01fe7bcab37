// PackRgbxToRgb (pack_pixels.h), compiled once per Highway target through
// foreach_target.h: a vector of pixels is loaded as four byte planes and
// stored as three; the last pixels that fill no whole vector are copied one
// at a time.

#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/highway/pack_pixels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/highway/pack_pixels.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void PackRgbx(const uint8_t* HWY_RESTRICT src, size_t pixels,
              uint8_t* HWY_RESTRICT dst) {
  const hn::ScalableTag<uint8_t> d;
  const size_t n = hn::Lanes(d);
  size_t x = 0;
  for (; x + n <= pixels; x += n) {
    hn::Vec<decltype(d)> r, g, b, unused;
    hn::LoadInterleaved4(d, src + 4 * x, r, g, b, unused);
    hn::StoreInterleaved3(r, g, b, d, dst + 3 * x);
  }
  for (; x < pixels; ++x) std::memcpy(dst + 3 * x, src + 4 * x, 3);
}

}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace fusednorm {

HWY_EXPORT(PackRgbx);

namespace {

void PackDynamic(const uint8_t* src, size_t pixels, uint8_t* dst) {
  HWY_DYNAMIC_DISPATCH(PackRgbx)(src, pixels, dst);
}

bool Always() { return true; }

const char* BestTarget() {
  const int64_t supported = hwy::SupportedTargets() & HWY_TARGETS;
  return hwy::TargetName(supported & -supported);  // a lower bit is better
}

}  // namespace

PackPixelsInfo HighwayPackPixelsInfo() {
  return {"highway",   "any (best Highway target)", 10, &Always, &BestTarget,
          &PackDynamic};
}

}  // namespace fusednorm
#endif  // HWY_ONCE
