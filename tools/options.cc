// Flag values to library options (options.h): every value checked, every bad
// one a usage error naming the flag.
#include "tools/options.h"

#include <cstdlib>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/status.h"
#include "ops/op_settings.h"
#include "pipeline/recipe_settings.h"
#include "tools/exit_code.h"
#include "tools/flags.h"

namespace fusednorm {
namespace {

// Exactly `count` comma-separated integers of `flag`'s text; `expected`
// names the form in the error.
absl::StatusOr<std::vector<int64_t>> Ints(const SettingValues& v,
                                          const Setting& flag, size_t count,
                                          const char* expected) {
  std::vector<int64_t> r;
  for (absl::string_view p : absl::StrSplit(v.Text(flag), ',')) {
    int64_t n;
    if (!absl::SimpleAtoi(p, &n)) return v.Error(flag, expected);
    r.push_back(n);
  }
  if (r.size() != count) return v.Error(flag, expected);
  return r;
}

// --resized-crop, --size and --resize-filter of `fusednorm normalize`.
absl::Status SetResize(const SettingValues& v, NormalizeOptions* o) {
  FUSEDNORM_ASSIGN_OR_RETURN(o->resize_filter,
                             v.Enum(kResizeFilterSetting, ResizeFilterNames()));
  if (v.Given(kResizedCropFlag)) {
    FUSEDNORM_ASSIGN_OR_RETURN(
        const std::vector<int64_t> r,
        Ints(v, kResizedCropFlag, 4, "not TOP,LEFT,H,W"));
    o->resized_crop = CropWindow{r[0], r[1], r[2], r[3]};
    if (!v.Given(kResizeToFlag))
      return v.Error(kResizedCropFlag, "needs --size=H,W (the output size)");
  }
  if (v.Given(kResizeToFlag)) {
    FUSEDNORM_ASSIGN_OR_RETURN(o->size, v.Size(kResizeToFlag));
  }
  return absl::OkStatus();
}

// --erase and its probability and ranges.
absl::Status SetErase(const SettingValues& v, NormalizeOptions* o) {
  const std::string& erase = v.Text(kEraseFlag);
  if (erase == "none") return absl::OkStatus();
  if (erase == "random") {
    FUSEDNORM_ASSIGN_OR_RETURN(o->op.erase, EraseFromSettings(v));
    return absl::OkStatus();
  }
  FUSEDNORM_ASSIGN_OR_RETURN(
      const std::vector<int64_t> r,
      Ints(v, kEraseFlag, 4, "not none, random or I,J,H,W"));
  o->erase = EraseRect{r[0], r[1], r[2], r[3]};
  return absl::OkStatus();
}

absl::StatusOr<NormalizeOptions> ReadNormalizeOptions(const SettingValues& v) {
  NormalizeOptions o;
  o.input = ResolvePath(v.Text(kInputFlag));
  o.output = ResolvePath(v.Text(kOutputFlag));
  if (o.input.empty() || o.output.empty())
    return UsageError("--input and --output are required");
  FUSEDNORM_ASSIGN_OR_RETURN(o.op, NormalizationFromSettings(v));
  FUSEDNORM_ASSIGN_OR_RETURN(const std::string flip, v.Choice(kFlipFlag));
  if (flip != "random") o.flip = flip == "1";
  FUSEDNORM_ASSIGN_OR_RETURN(o.op.flip_p, v.Float(kFlipPSetting));
  FUSEDNORM_RETURN_IF_ERROR(SetErase(v, &o));
  FUSEDNORM_ASSIGN_OR_RETURN(o.seed, v.Uint64(kSeedSetting));
  FUSEDNORM_ASSIGN_OR_RETURN(o.print_decisions, v.Bool(kPrintDecisionsFlag));
  FUSEDNORM_RETURN_IF_ERROR(SetResize(v, &o));
  return o;
}

// --output=PREFIX%0Nd SUFFIX (one %d or %0Nd, N <= 12, no other '%').
absl::Status SetShardPattern(const SettingValues& v, PackOptions* o) {
  const std::string text = ResolvePath(v.Text(kOutputFlag));
  const size_t pct = text.find('%');
  size_t d = pct == std::string::npos ? pct : text.find('d', pct);
  int width = 0;
  const bool parsed =
      d != std::string::npos &&
      (d == pct + 1 ||
       absl::SimpleAtoi(text.substr(pct + 1, d - pct - 1), &width)) &&
      width >= 0 && width <= 12 && text.find('%', d) == std::string::npos;
  if (!parsed) {
    return v.Error(kOutputFlag,
                   "needs one %d or %0Nd for the shard number, e.g. "
                   "shards/train-%06d.tar");
  }
  o->prefix = text.substr(0, pct);
  o->suffix = text.substr(d + 1);
  o->width = width;
  return absl::OkStatus();
}

// --shard-bytes=N with an optional K, M or G suffix (powers of 1024).
absl::StatusOr<uint64_t> ShardBytes(const SettingValues& v) {
  std::string digits = v.Text(kShardBytesFlag);
  uint64_t scale = 1;
  if (!digits.empty()) {
    const size_t u =
        std::string("KMG").find(absl::ascii_toupper(digits.back()));
    if (u != std::string::npos) {
      scale = uint64_t{1} << (10 * (u + 1));
      digits.pop_back();
    }
  }
  uint64_t n;
  if (!absl::SimpleAtoi(digits, &n) || n == 0 ||
      n > (uint64_t{1} << 50) / scale)
    return v.Error(kShardBytesFlag, "not a positive size like 1G or 500M");
  return n * scale;
}

absl::StatusOr<PackOptions> ReadPackOptions(const SettingValues& v) {
  PackOptions o;
  o.source.data = ResolvePath(v.Text(kDataSetting));
  FUSEDNORM_ASSIGN_OR_RETURN(o.source.dataset, v.Choice(kDatasetSetting));
  o.source.path = ResolvePath(v.Text(kPathSetting));
  if (!v.Given(kOutputFlag))
    return UsageError("--output (a shard pattern) is required");
  FUSEDNORM_RETURN_IF_ERROR(SetShardPattern(v, &o));
  FUSEDNORM_ASSIGN_OR_RETURN(o.max_side, v.Int(kMaxSideFlag));
  FUSEDNORM_ASSIGN_OR_RETURN(const std::string encoding,
                             v.Choice(kEncodingFlag));
  o.raw = encoding == "raw";
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t quality, v.Int(kQualityFlag));
  o.quality = static_cast<int>(quality);
  FUSEDNORM_ASSIGN_OR_RETURN(o.shard_bytes, ShardBytes(v));
  return o;
}

absl::StatusOr<RunOptions> ReadRunOptions(const SettingValues& v) {
  RunOptions o;
  FUSEDNORM_ASSIGN_OR_RETURN(o.recipe, RecipeFromSettings(v));
  o.recipe.data = ResolvePath(o.recipe.data);
  o.recipe.path = ResolvePath(o.recipe.path);
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t epochs, v.Int(kEpochsFlag));
  o.epochs = static_cast<int>(epochs);
  o.output = ResolvePath(v.Text(kOutputFlag));
  o.preview = ResolvePath(v.Text(kPreviewFlag));
  return o;
}

}  // namespace

std::string ResolvePath(const std::string& path) {
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || wd == nullptr || *wd == '\0')
    return path;
  return absl::StrCat(wd, "/", path);
}

std::string PackOptions::ShardPath(size_t index) const {
  std::string n = absl::StrCat(index);
  if (n.size() < static_cast<size_t>(width)) n.insert(0, width - n.size(), '0');
  return absl::StrCat(prefix, n, suffix);
}

// Every error of reading a flag's value is a usage error.
absl::StatusOr<NormalizeOptions> NormalizeOptionsFromFlags(
    const SettingValues& flags) {
  absl::StatusOr<NormalizeOptions> o = ReadNormalizeOptions(flags);
  if (!o.ok()) return AsUsageError(o.status());
  return o;
}

absl::StatusOr<PackOptions> PackOptionsFromFlags(const SettingValues& flags) {
  absl::StatusOr<PackOptions> o = ReadPackOptions(flags);
  if (!o.ok()) return AsUsageError(o.status());
  return o;
}

absl::StatusOr<RunOptions> RunOptionsFromFlags(const SettingValues& flags) {
  absl::StatusOr<RunOptions> o = ReadRunOptions(flags);
  if (!o.ok()) return AsUsageError(o.status());
  return o;
}

}  // namespace fusednorm
