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

absl::Span<const Named<Preset>> PresetNames() {
  static constexpr Named<Preset> kNames[] = {{Preset::kNoNorm, "none"},
                                             {Preset::kMnist, "mnist"},
                                             {Preset::kCifar, "cifar"},
                                             {Preset::kImagenet, "imagenet"},
                                             {Preset::kMlperf, "mlperf"}};
  return kNames;
}

const char* PresetName(Preset preset) { return NameOf(PresetNames(), preset); }

absl::StatusOr<Preset> ParsePreset(absl::string_view name) {
  const std::string lower = absl::AsciiStrToLower(name);
  if (lower == "no_norm") return Preset::kNoNorm;
  return ParseNamed(PresetNames(), "preset", lower);
}

}  // namespace fusednorm
