// SetReferenceNormalization (reference_normalization.h).
#include "testing/reference_normalization.h"

#include <vector>

#include "ops/presets.h"

namespace fusednorm {
namespace testing_ref {

void SetReferenceNormalization(const FusedNormalizationOptions& options,
                               int channels, RefInput* ref) {
  ref->mean.clear();
  ref->std.clear();
  if (!options.mean.empty() && !options.std.empty()) {
    // One value of either serves every channel, as torch broadcasts it.
    const auto at = [](const std::vector<float>& v, int c) {
      return v[v.size() == 1 ? 0 : c];
    };
    for (int c = 0; c < channels; ++c) {
      ref->mean.push_back(at(options.mean, c));
      ref->std.push_back(at(options.std, c));
    }
    return;
  }
  const Normalization n = PresetNormalization(options.preset);
  for (int c = 0; c < channels; ++c) {
    ref->mean.push_back(n.mean[n.channels == 0 ? 0 : c]);
    ref->std.push_back(n.std[n.channels == 0 ? 0 : c]);
  }
}

}  // namespace testing_ref
}  // namespace fusednorm
