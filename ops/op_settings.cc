// The op's setting rows and their reading (op_settings.h).
#include "ops/op_settings.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/format_names.h"
#include "core/status.h"
#include "kernels/dispatch.h"
#include "ops/arg_value.h"
#include "ops/presets.h"

namespace fusednorm {
namespace {

const EraseOptions kErase;  // the defaults

std::string Pair(double a, double b) { return absl::StrCat(a, ",", b); }

// The float values of a kFloats row, as float32.
absl::StatusOr<std::vector<float>> Floats32(const SettingValues& v,
                                            const Setting& s) {
  FUSEDNORM_ASSIGN_OR_RETURN(const std::vector<double> d, v.Floats(s));
  std::vector<float> out(d.begin(), d.end());
  for (size_t c = 0; c < d.size(); ++c) {
    // The op computes in float32: a value it would see as 0 or inf is not
    // the one given.
    if ((out[c] == 0.0f) != (d[c] == 0.0) || std::isinf(out[c])) {
      return v.Error(
          s, absl::StrCat(FormatFloat(d[c]), " is outside float32's range"));
    }
  }
  return out;
}

}  // namespace

const Setting kPresetSetting{
    "preset", SettingType::kChoice, PresetName(Preset::kImagenet),
    "normalization constants (or --mean/--std)", Choices(PresetNames())};
const Setting kMeanSetting{
    "mean",
    SettingType::kFloats,
    "",
    "custom per-channel mean, 1 to 4 values (with std); one value serves "
    "every channel",
    {},
    -kNoLimit,
    kNoLimit,
    1,
    kMaxChannels};
const Setting kStdSetting{
    "std",
    SettingType::kFloats,
    "",
    "custom per-channel std (not 0; negative as torchvision allows), as many "
    "as mean or one for every channel",
    {},
    -kNoLimit,
    kNoLimit,
    1,
    kMaxChannels};
const Setting kDTypeSetting{"dtype", SettingType::kChoice,
                            DTypeName(DType::kFloat32), "output element type",
                            Choices(DTypeNames())};
const Setting kLayoutSetting{"layout", SettingType::kChoice, "",
                             "output layout (default: float32 hwc, else hwc4)",
                             Choices(LayoutNames())};
const Setting kModeSetting{"mode", SettingType::kChoice, ModeName(Mode::kFast),
                           "fast, or exact: torchvision's bits",
                           Choices(ModeNames())};
const Setting kKernelSetting{
    "kernel", SettingType::kText, "",
    "kernel variant id (default the best for this CPU; see `kernels`)"};
const Setting kFlipPSetting{"flip_p",
                            SettingType::kFloat,
                            absl::StrCat(FusedNormalizationOptions().flip_p),
                            "probability of a horizontal flip",
                            {},
                            0,
                            1};
const Setting kErasePSetting{"erase_p",
                             SettingType::kFloat,
                             absl::StrCat(kErase.p),
                             "probability of erasing a rectangle",
                             {},
                             0,
                             1};
const Setting kEraseScaleSetting{"erase_scale",
                                 SettingType::kFloats,
                                 Pair(kErase.scale_min, kErase.scale_max),
                                 "erased area / image area range A,B",
                                 {},
                                 0,
                                 1,
                                 2,
                                 2};
const Setting kEraseRatioSetting{"erase_ratio",
                                 SettingType::kFloats,
                                 Pair(kErase.ratio_min, kErase.ratio_max),
                                 "erased aspect ratio (h/w) range A,B",
                                 {},
                                 0,
                                 kNoLimit,
                                 2,
                                 2};
const Setting kSeedSetting{
    "seed", SettingType::kUint64, "0",
    "seed; sample n of epoch e draws from the stream (seed, e, n)"};

std::vector<const Setting*> NormalizationSettings() {
  return {&kPresetSetting, &kMeanSetting, &kStdSetting,   &kDTypeSetting,
          &kLayoutSetting, &kModeSetting, &kKernelSetting};
}

absl::StatusOr<FusedNormalizationOptions> NormalizationFromSettings(
    const SettingValues& v) {
  FusedNormalizationOptions o;
  o.flip_p = 0;
  if (v.Given(kMeanSetting) || v.Given(kStdSetting)) {
    if (!v.Given(kMeanSetting) || !v.Given(kStdSetting)) {
      return InvalidArgumentCat(SettingName(kMeanSetting, v.style()), " and ",
                                SettingName(kStdSetting, v.style()),
                                " go together");
    }
    FUSEDNORM_ASSIGN_OR_RETURN(o.mean, Floats32(v, kMeanSetting));
    FUSEDNORM_ASSIGN_OR_RETURN(o.std, Floats32(v, kStdSetting));
  } else {
    FUSEDNORM_ASSIGN_OR_RETURN(o.preset, v.Enum(kPresetSetting, PresetNames()));
  }
  FUSEDNORM_ASSIGN_OR_RETURN(o.dtype, v.Enum(kDTypeSetting, DTypeNames()));
  if (!v.Text(kLayoutSetting).empty()) {
    FUSEDNORM_ASSIGN_OR_RETURN(o.layout, v.Enum(kLayoutSetting, LayoutNames()));
  }
  FUSEDNORM_ASSIGN_OR_RETURN(o.mode, v.Enum(kModeSetting, ModeNames()));
  o.kernel = v.Text(kKernelSetting);
  // Named as given here: the chains that would refuse it name their lists.
  if (!o.kernel.empty()) {
    const absl::Status known = ForcedKernel(o.kernel).status();
    if (!known.ok()) return v.Error(kKernelSetting, known.message());
  }
  return o;
}

namespace {

// An erase range read from `s`: (min, max) with min <= max, and both > 0
// where `positive`; errors name the setting as the user wrote it.
absl::StatusOr<std::vector<double>> EraseRange(const SettingValues& v,
                                               const Setting& s,
                                               bool positive) {
  FUSEDNORM_ASSIGN_OR_RETURN(std::vector<double> r, v.Floats(s));
  if (positive && !(r[0] > 0 && r[1] > 0))
    return v.Error(s, "each value must be > 0");
  if (r[0] > r[1])
    return v.Error(s, "the first value (the minimum) exceeds the second");
  return r;
}

}  // namespace

absl::StatusOr<EraseOptions> EraseFromSettings(const SettingValues& v) {
  EraseOptions e;
  e.enabled = true;
  FUSEDNORM_ASSIGN_OR_RETURN(e.p, v.Float(kErasePSetting));
  FUSEDNORM_ASSIGN_OR_RETURN(const std::vector<double> scale,
                             EraseRange(v, kEraseScaleSetting, false));
  FUSEDNORM_ASSIGN_OR_RETURN(const std::vector<double> ratio,
                             EraseRange(v, kEraseRatioSetting, true));
  e.scale_min = scale[0];
  e.scale_max = scale[1];
  e.ratio_min = ratio[0];
  e.ratio_max = ratio[1];
  return e;
}

}  // namespace fusednorm
