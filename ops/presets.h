// Normalization presets (mean and std per channel) and their names.
#ifndef FUSEDNORM_OPS_PRESETS_H_
#define FUSEDNORM_OPS_PRESETS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/names.h"

namespace fusednorm {

enum class Preset { kNoNorm, kMnist, kCifar, kImagenet, kMlperf };

// Mean and std per channel, as float32 (what torchvision's Normalize holds).
struct Normalization {
  std::vector<float> mean;
  std::vector<float> std;
  // Channel count the preset is for; 0 for NO_NORM, which takes any count 1..4.
  int channels = 0;
};

// Returns the constants of `preset`. MLPERF's are 123.68/255, 116.78/255,
// 103.94/255 and 1/255, divided in double and rounded once to float, as Python
// passes them to torchvision.
Normalization PresetNormalization(Preset preset);

// none, mnist, cifar, imagenet, mlperf.
absl::Span<const Named<Preset>> PresetNames();
const char* PresetName(Preset preset);

// Parses a name from PresetName (case-insensitive); InvalidArgument naming it
// otherwise.
absl::StatusOr<Preset> ParsePreset(absl::string_view name);

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_PRESETS_H_
