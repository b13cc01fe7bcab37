// The pixel packing's Highway row (kernels/pack_pixels.h): runs the best
// Highway target this CPU supports (dynamic dispatch: the baseline code here
// never executes another target's instructions).
#ifndef FUSEDNORM_KERNELS_HIGHWAY_PACK_PIXELS_H_
#define FUSEDNORM_KERNELS_HIGHWAY_PACK_PIXELS_H_

#include <cstddef>
#include <cstdint>

#include "kernels/pack_pixels.h"

namespace fusednorm {

// The "highway" row.
PackPixelsInfo HighwayPackPixelsInfo();

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_HIGHWAY_PACK_PIXELS_H_
