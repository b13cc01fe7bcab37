// RandomChoice's probabilities, one rule for the per-sample and the batch
// RandomChoice: checked as torchvision checks them, and the pick they
// make from a stream.
#ifndef FUSEDNORM_OPS_CHOICE_WEIGHTS_H_
#define FUSEDNORM_OPS_CHOICE_WEIGHTS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "rng/philox.h"

namespace fusednorm {

// As torchvision: nullopt (equal chances), or one probability a transform
// (an empty list too is refused), each finite and >= 0, summing to a
// finite total > 0 that normalizes them. InvalidArgument naming
// "RandomChoice p" otherwise.
absl::Status CheckChoiceWeights(const std::optional<std::vector<double>>& p,
                                size_t transforms);

// The index of the transform picked, in 0..transforms-1 (p checked).
// Equal probabilities draw as none given: torchvision v2 keeps p
// normalized ([0.5, 0.5] for p=None), and both must pick alike.
int64_t PickChoice(const std::optional<std::vector<double>>& p,
                   size_t transforms, SampleStream& stream);

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_CHOICE_WEIGHTS_H_
