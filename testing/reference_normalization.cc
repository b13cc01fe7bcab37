// SetReferenceNormalization (reference_normalization.h).
#include "testing/reference_normalization.h"

#include "ops/presets.h"

namespace fusednorm {
namespace testing_ref {

void SetReferenceNormalization(const FusedNormalizationOptions& options,
                               int channels, RefInput* ref) {
  if (!options.mean.empty() && !options.std.empty()) {
    ref->mean = options.mean;
    ref->std = options.std;
    return;
  }
  const Normalization n = PresetNormalization(options.preset);
  ref->mean.clear();
  ref->std.clear();
  for (int c = 0; c < channels; ++c) {
    ref->mean.push_back(n.mean[n.channels == 0 ? 0 : c]);
    ref->std.push_back(n.std[n.channels == 0 ? 0 : c]);
  }
}

}  // namespace testing_ref
}  // namespace fusednorm
