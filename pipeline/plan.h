// A sample's plan: every random decision the sample gets -- each real op's
// (RandomResizedCrop's window, ColorJitter's factors) and the fused op's
// (flip, erase) -- drawn in one place, in list order, from the sample's
// stream (seed, epoch, index) and the image's size alone (a JPEG header
// gives it), before a pixel is decoded. The runner (pipeline/runner.h) then only executes it, so the
// order of draws, and with it reproducibility, is fixed here.
#ifndef FUSEDNORM_PIPELINE_PLAN_H_
#define FUSEDNORM_PIPELINE_PLAN_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "core/geometry.h"
#include "ops/fused_normalization.h"
#include "ops/transforms.h"
#include "pipeline/chain.h"
#include "rng/philox.h"

namespace fusednorm {

struct SamplePlan {
  std::vector<OpDecision> ops;  // one per real op of the chain
  Augmentation fused;           // the flip and erase rectangle
  int64_t largest_output = 0;   // the most pixels a real op makes
};

// Draws the plan of an image of `image` size through `chain` into *plan
// (reusing its storage): each step's decision, in list order, from the
// size its op sees. InvalidArgument naming the op when a size cannot pass
// it (or the chain's last size is not its sample size).
absl::Status MakePlan(const Chain& chain, Size2 image, SampleStream& stream,
                      SamplePlan* plan);

// The largest DCT scale (8, 4, 2, else 1) at which `window` stays at least
// `out` on both sides (reduced-size JPEG decoding).
int DecodeScale(const CropWindow& window, Size2 out);

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_PLAN_H_
