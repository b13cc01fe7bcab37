// The reference's per-channel mean and std for an op's options, taken from
// what the options say (custom values, or the preset table), never from the op
// under test. Shared by the matrix tester and the fuzzer.
#ifndef FUSEDNORM_TESTING_REFERENCE_NORMALIZATION_H_
#define FUSEDNORM_TESTING_REFERENCE_NORMALIZATION_H_

#include "ops/fused_normalization.h"
#include "testing/reference.h"

namespace fusednorm {
namespace testing_ref {

// Sets ref->mean and ref->std for `channels` channels: the custom mean/std
// when both are given (a single value of either repeated, as torch
// broadcasts it), else the preset's (NO_NORM repeats its one value).
void SetReferenceNormalization(const FusedNormalizationOptions& options,
                               int channels, RefInput* ref);

}  // namespace testing_ref
}  // namespace fusednorm

#endif  // FUSEDNORM_TESTING_REFERENCE_NORMALIZATION_H_
