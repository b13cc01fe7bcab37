// `pack`'s setting rows and their reading (pack_settings.h).
#include "data/pack_settings.h"

#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/image.h"
#include "core/status.h"

namespace fusednorm {
namespace {

const PackOptions kDefaults;

// PREFIX%0NdSUFFIX (one %d or %0Nd, N <= 12, no other '%') into `o`.
absl::Status SetPattern(const SettingValues& v, PackOptions* o) {
  const std::string& text = v.Text(kShardPatternSetting);
  const size_t pct = text.find('%');
  const size_t d = pct == std::string::npos ? pct : text.find('d', pct);
  int width = 0;
  // The width as printf zero-pads it: "%0N" (SimpleAtoi would also take
  // "%+5" and "% 5", which printf pads otherwise).
  const absl::string_view w =
      d == std::string::npos
          ? ""
          : absl::string_view(text).substr(pct + 1, d - pct - 1);
  const bool parsed =
      d != std::string::npos &&
      (w.empty() ||
       (w[0] == '0' && std::all_of(w.begin(), w.end(), absl::ascii_isdigit) &&
        absl::SimpleAtoi(w, &width))) &&
      width <= 12 && text.find('%', d) == std::string::npos;
  if (!parsed) {
    return v.Error(kShardPatternSetting,
                   "needs one %d or %0Nd for the shard number, e.g. "
                   "shards/train-%06d.tar");
  }
  o->prefix = text.substr(0, pct);
  o->suffix = text.substr(d + 1);
  o->width = width;
  return absl::OkStatus();
}

// A positive size (SettingValues::Bytes).
absl::StatusOr<uint64_t> ShardBytes(const SettingValues& v) {
  FUSEDNORM_ASSIGN_OR_RETURN(const uint64_t n, v.Bytes(kShardBytesSetting));
  if (n == 0)
    return v.Error(kShardBytesSetting, "not a positive size like 1G or 500M");
  return n;
}

// keep, rows, or N >= 1.
absl::StatusOr<std::optional<RestartSpacing>> JpegRestart(
    const SettingValues& v) {
  const std::string& text = v.Text(kJpegRestartSetting);
  if (text == "keep") return std::nullopt;
  if (text == "rows") return RestartSpacing{true, 0};
  int64_t n;
  if (!absl::SimpleAtoi(text, &n) || n < 1 || n > 65535)
    return v.Error(kJpegRestartSetting, "is not keep, rows or N in 1..65535");
  return RestartSpacing{false, n};
}

}  // namespace

const Setting kShardPatternSetting{
    "output", SettingType::kText, "",
    "shard path pattern with the shard number as %d or %0Nd, e.g. "
    "shards/train-%06d.tar"};
const Setting kMaxSideSetting{
    "max_side",
    SettingType::kInt,
    absl::StrCat(kDefaults.max_side),
    "shrink images whose longer side exceeds this (0: keep the size)",
    {},
    0,
    static_cast<double>(kMaxSide)};
const Setting kEncodingSetting{
    "encoding",
    SettingType::kChoice,
    "jpeg",
    "jpeg (stored JPEG/PNG bytes kept where possible) or raw (uint8 .npy)",
    {"jpeg", "raw"}};
const Setting kQualitySetting{"quality",
                              SettingType::kInt,
                              absl::StrCat(kDefaults.quality),
                              "JPEG quality of re-encoded images",
                              {},
                              1,
                              100};
const Setting kJpegRestartSetting{
    "jpeg_restart", SettingType::kText, "4",
    "restart markers added losslessly to every JPEG, so that loading decodes "
    "only a crop's segments: N (an interval of at most N MCUs that divides "
    "the MCU row), rows (one per MCU row), or keep (the bytes as they are)"};
const Setting kShardBytesSetting{
    "shard_bytes", SettingType::kText, "1G",
    "largest shard size in bytes, with K, M or G (powers of 1024); a sample "
    "larger than that gets a shard of its own, with a warning"};

std::vector<const Setting*> PackSettings() {
  return {&kShardPatternSetting, &kMaxSideSetting,     &kEncodingSetting,
          &kQualitySetting,      &kJpegRestartSetting, &kShardBytesSetting};
}

absl::StatusOr<PackOptions> PackFromSettings(const SettingValues& v) {
  PackOptions o;
  if (v.Text(kShardPatternSetting).empty()) {
    return InvalidArgumentCat(SettingName(kShardPatternSetting, v.style()),
                              " (a shard pattern) is required");
  }
  FUSEDNORM_RETURN_IF_ERROR(SetPattern(v, &o));
  FUSEDNORM_ASSIGN_OR_RETURN(o.max_side, v.Int(kMaxSideSetting));
  FUSEDNORM_ASSIGN_OR_RETURN(const std::string encoding,
                             v.Choice(kEncodingSetting));
  o.raw = encoding == "raw";
  // Raw samples are never encoded: a quality or restart interval would do
  // nothing.
  for (const Setting* jpeg_only : {&kQualitySetting, &kJpegRestartSetting}) {
    if (o.raw && v.Given(*jpeg_only)) {
      return v.Error(
          *jpeg_only,
          absl::StrCat("is for ",
                       SettingWithValue(kEncodingSetting, v.style(), "jpeg"),
                       " only"));
    }
  }
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t quality, v.Int(kQualitySetting));
  o.quality = static_cast<int>(quality);
  FUSEDNORM_ASSIGN_OR_RETURN(o.jpeg_restart, JpegRestart(v));
  FUSEDNORM_ASSIGN_OR_RETURN(o.shard_bytes, ShardBytes(v));
  return o;
}

}  // namespace fusednorm
