// FusedNormalizationTestPeer: the one reader (and, for tests of the call
// path, replacer) of an op's internals outside ops/; FusedNormalization
// befriends it. Header-only, so every test that needs it sees one definition.
#ifndef FUSEDNORM_TESTING_FUSED_NORMALIZATION_TEST_PEER_H_
#define FUSEDNORM_TESTING_FUSED_NORMALIZATION_TEST_PEER_H_

#include "kernels/kernel.h"
#include "ops/fused_normalization.h"

namespace fusednorm {

struct FusedNormalizationTestPeer {
  // Whether exact mode runs by corrected reciprocals (else by divisions).
  static bool ExactByFma(const FusedNormalization& op) {
    return op.constants_->exact_by_fma;
  }
  // Makes `op` run `kernel` for images of `channels` channels, so a test can
  // see the arguments the op passes (e.g. its store policy).
  static void ReplaceKernel(FusedNormalization& op, int channels,
                            const KernelInfo* kernel) {
    op.kernels_[channels] = kernel;
  }
};

}  // namespace fusednorm

#endif  // FUSEDNORM_TESTING_FUSED_NORMALIZATION_TEST_PEER_H_
