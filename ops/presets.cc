// The normalization presets' constants and names (presets.h).
#include "ops/presets.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace fusednorm {

Normalization PresetNormalization(Preset preset) {
  switch (preset) {
    case Preset::kNoNorm:
      return {{0.0f}, {1.0f}, 0};
    case Preset::kMnist:
      return {{0.1307f}, {0.3081f}, 1};
    case Preset::kCifar:
      return {{0.4914f, 0.4822f, 0.4465f}, {0.2470f, 0.2435f, 0.2616f}, 3};
    case Preset::kImagenet:
      return {{0.485f, 0.456f, 0.406f}, {0.229f, 0.224f, 0.225f}, 3};
    case Preset::kMlperf: {
      const float s = static_cast<float>(1.0 / 255.0);
      return {{static_cast<float>(123.68 / 255.0),
               static_cast<float>(116.78 / 255.0),
               static_cast<float>(103.94 / 255.0)},
              {s, s, s},
              3};
    }
  }
  return {};
}

const char* PresetName(Preset preset) {
  switch (preset) {
    case Preset::kNoNorm:
      return "none";
    case Preset::kMnist:
      return "mnist";
    case Preset::kCifar:
      return "cifar";
    case Preset::kImagenet:
      return "imagenet";
    case Preset::kMlperf:
      return "mlperf";
  }
  return "?";
}

absl::StatusOr<Preset> ParsePreset(absl::string_view name) {
  const std::string lower = absl::AsciiStrToLower(name);
  for (Preset p : {Preset::kNoNorm, Preset::kMnist, Preset::kCifar,
                   Preset::kImagenet, Preset::kMlperf}) {
    if (lower == PresetName(p)) return p;
  }
  if (lower == "no_norm") return Preset::kNoNorm;
  return absl::InvalidArgumentError(
      absl::StrCat("preset \"", name,
                   "\" is not one of none, mnist, cifar, imagenet, mlperf"));
}

}  // namespace fusednorm
