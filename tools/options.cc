// Flags to library options (options.h): every value checked, every bad one a
// usage error naming the flag.
#include "tools/options.h"

#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ops/option_names.h"
#include "pipeline/dataset.h"
#include "tools/exit_code.h"
#include "tools/flags.h"
#include "util/status_macros.h"

namespace fusednorm {
namespace {

// Parses `min`..`max` comma-separated finite numbers from --flag=text.
absl::StatusOr<std::vector<float>> ParseFloats(const char* flag,
                                               const std::string& text,
                                               size_t min, size_t max) {
  std::vector<float> out;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    float v;
    if (!absl::SimpleAtof(part, &v) || !std::isfinite(v)) {
      return UsageError(absl::StrCat("--", flag, "=", text, ": \"", part,
                                     "\" is not a number"));
    }
    out.push_back(v);
  }
  if (out.size() < min || out.size() > max) {
    return UsageError(absl::StrCat("--", flag, "=", text, ": needs ", min, "..",
                                   max, " values"));
  }
  return out;
}

// A library parse of a flag's text; its error, prefixed "--" (so that it
// reads `--dtype "x" is not one of ...`), is a usage error.
template <typename T>
absl::StatusOr<T> AsFlag(absl::StatusOr<T> parsed) {
  if (!parsed.ok()) return AsUsageError(parsed.status(), "--");
  return parsed;
}

absl::Status SetNormalization(FusedNormalizationOptions* o) {
  const std::string mean = absl::GetFlag(FLAGS_mean);
  const std::string std = absl::GetFlag(FLAGS_std);
  if (mean.empty() && std.empty()) {
    FUSEDNORM_ASSIGN_OR_RETURN(
        o->preset, AsFlag(ParsePreset(absl::GetFlag(FLAGS_preset))));
    return absl::OkStatus();
  }
  if (mean.empty() || std.empty())
    return UsageError("--mean and --std go together");
  FUSEDNORM_ASSIGN_OR_RETURN(o->mean, ParseFloats("mean", mean, 1, 4));
  FUSEDNORM_ASSIGN_OR_RETURN(o->std, ParseFloats("std", std, 1, 4));
  return absl::OkStatus();
}

// Comma-separated integers of --flag=text, as many as `counts` allows;
// `expected` names the forms in the error.
absl::StatusOr<std::vector<int64_t>> ParseInts(
    const char* flag, const std::string& text,
    std::initializer_list<size_t> counts, const char* expected) {
  std::vector<int64_t> r;
  for (absl::string_view p : absl::StrSplit(text, ',')) {
    int64_t v;
    if (!absl::SimpleAtoi(p, &v)) {
      r.clear();
      break;
    }
    r.push_back(v);
  }
  for (size_t n : counts) {
    if (r.size() == n) return r;
  }
  return UsageError(absl::StrCat("--", flag, "=", text, ": not ", expected));
}

// --erase=I,J,H,W.
absl::StatusOr<EraseRect> ParseRect(const std::string& text) {
  FUSEDNORM_ASSIGN_OR_RETURN(
      const std::vector<int64_t> r,
      ParseInts("erase", text, {4}, "none, random or I,J,H,W"));
  return EraseRect{r[0], r[1], r[2], r[3]};
}

// --size=H,W or N, each side in 1..kMaxSide.
absl::StatusOr<Size2> ParseSize(const std::string& text) {
  FUSEDNORM_ASSIGN_OR_RETURN(const std::vector<int64_t> r,
                             ParseInts("size", text, {1, 2}, "H,W or N"));
  const Size2 size{r[0], r.size() == 2 ? r[1] : r[0]};
  if (size.height < 1 || size.width < 1 || size.height > kMaxSide ||
      size.width > kMaxSide) {
    return UsageError(
        absl::StrCat("--size=", text, ": sides must be in 1..", kMaxSide));
  }
  return size;
}

// --resize-filter.
absl::StatusOr<ResizeFilter> ResizeFilterFromFlag() {
  absl::StatusOr<ResizeFilter> f =
      ParseResizeFilter(absl::GetFlag(FLAGS_resize_filter));
  if (!f.ok()) return AsUsageError(f.status(), "--resize-filter: ");
  return f;
}

// --resized-crop, --size and --resize-filter of `fusednorm normalize`.
absl::Status SetResize(NormalizeOptions* o) {
  const std::string crop = absl::GetFlag(FLAGS_resized_crop);
  const std::string size = absl::GetFlag(FLAGS_size);
  FUSEDNORM_ASSIGN_OR_RETURN(o->resize_filter, ResizeFilterFromFlag());
  if (!crop.empty()) {
    FUSEDNORM_ASSIGN_OR_RETURN(
        const std::vector<int64_t> r,
        ParseInts("resized-crop", crop, {4}, "TOP,LEFT,H,W"));
    o->resized_crop = CropWindow{r[0], r[1], r[2], r[3]};
    if (size.empty()) {
      return UsageError(absl::StrCat("--resized-crop=", crop,
                                     " needs --size=H,W (the output size)"));
    }
  }
  if (!size.empty()) {
    FUSEDNORM_ASSIGN_OR_RETURN(o->size, ParseSize(size));
  }
  return absl::OkStatus();
}

// --erase and its probability and ranges.
absl::Status SetErase(NormalizeOptions* o) {
  const std::string erase = absl::GetFlag(FLAGS_erase);
  if (erase == "none") return absl::OkStatus();
  if (erase != "random") {
    FUSEDNORM_ASSIGN_OR_RETURN(o->erase, ParseRect(erase));
    return absl::OkStatus();
  }
  EraseOptions& e = o->op.erase;
  e.enabled = true;
  e.p = absl::GetFlag(FLAGS_erase_p);
  FUSEDNORM_ASSIGN_OR_RETURN(
      const std::vector<float> scale,
      ParseFloats("erase-scale", absl::GetFlag(FLAGS_erase_scale), 2, 2));
  FUSEDNORM_ASSIGN_OR_RETURN(
      const std::vector<float> ratio,
      ParseFloats("erase-ratio", absl::GetFlag(FLAGS_erase_ratio), 2, 2));
  e.scale_min = scale[0];
  e.scale_max = scale[1];
  e.ratio_min = ratio[0];
  e.ratio_max = ratio[1];
  return absl::OkStatus();
}

// A usage error unless lo <= --flag <= hi.
absl::Status CheckRange(const char* flag, int64_t value, int64_t lo,
                        int64_t hi) {
  if (value >= lo && value <= hi) return absl::OkStatus();
  return UsageError(absl::StrCat("--", flag, "=", value, ": must be ",
                                 hi == INT64_MAX
                                     ? absl::StrCat(">= ", lo)
                                     : absl::StrCat("in ", lo, "..", hi)));
}

}  // namespace

std::string ResolvePath(const std::string& path) {
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || wd == nullptr || *wd == '\0')
    return path;
  return absl::StrCat(wd, "/", path);
}

absl::StatusOr<FusedNormalizationOptions> NormalizationFromFlags() {
  FusedNormalizationOptions o;
  FUSEDNORM_RETURN_IF_ERROR(SetNormalization(&o));
  FUSEDNORM_ASSIGN_OR_RETURN(o.dtype,
                             AsFlag(ParseDType(absl::GetFlag(FLAGS_dtype))));
  const std::string layout = absl::GetFlag(FLAGS_layout);
  if (!layout.empty()) {
    FUSEDNORM_ASSIGN_OR_RETURN(o.layout, AsFlag(ParseLayout(layout)));
  }
  FUSEDNORM_ASSIGN_OR_RETURN(o.mode,
                             AsFlag(ParseMode(absl::GetFlag(FLAGS_mode))));
  o.kernel = absl::GetFlag(FLAGS_kernel);
  return o;
}

absl::StatusOr<NormalizeOptions> NormalizeOptionsFromFlags() {
  NormalizeOptions o;
  o.input = ResolvePath(absl::GetFlag(FLAGS_input));
  o.output = ResolvePath(absl::GetFlag(FLAGS_output));
  if (o.input.empty() || o.output.empty())
    return UsageError("--input and --output are required");
  FUSEDNORM_ASSIGN_OR_RETURN(o.op, NormalizationFromFlags());
  const std::string flip = absl::GetFlag(FLAGS_flip);
  if (flip != "0" && flip != "1" && flip != "random")
    return UsageError(absl::StrCat("--flip=", flip, ": not 0, 1 or random"));
  if (flip != "random") o.flip = flip == "1";
  o.op.flip_p = absl::GetFlag(FLAGS_flip_p);
  FUSEDNORM_RETURN_IF_ERROR(SetErase(&o));
  o.seed = absl::GetFlag(FLAGS_seed);
  o.print_decisions = absl::GetFlag(FLAGS_print_decisions);
  FUSEDNORM_RETURN_IF_ERROR(SetResize(&o));
  return o;
}

namespace {

// --output=PREFIX%0Nd SUFFIX (one %d or %0Nd, N <= 12, no other '%').
absl::Status SetShardPattern(const std::string& text, PackOptions* o) {
  const size_t pct = text.find('%');
  size_t d = pct == std::string::npos ? pct : text.find('d', pct);
  int width = 0;
  const bool parsed =
      d != std::string::npos &&
      (d == pct + 1 ||
       absl::SimpleAtoi(text.substr(pct + 1, d - pct - 1), &width)) &&
      width >= 0 && width <= 12 && text.find('%', d) == std::string::npos;
  if (!parsed) {
    return UsageError(
        absl::StrCat("--output=", text,
                     ": needs one %d or %0Nd for the shard number, e.g. "
                     "shards/train-%06d.tar"));
  }
  o->prefix = text.substr(0, pct);
  o->suffix = text.substr(d + 1);
  o->width = width;
  return absl::OkStatus();
}

// --jpeg-restart=keep|rows|N (N in 1..65535 MCUs).
absl::StatusOr<std::optional<RestartSpacing>> ParseJpegRestart(
    const std::string& text) {
  if (text == "keep") return std::nullopt;
  if (text == "rows") return RestartSpacing{true, 0};
  int64_t n;
  if (!absl::SimpleAtoi(text, &n) || n < 1 || n > 65535) {
    return UsageError(
        absl::StrCat("--jpeg-restart=", text,
                     ": not keep, rows or a count of MCUs (1..65535)"));
  }
  return RestartSpacing{false, n};
}

// --shard-bytes=N with an optional K, M or G suffix (powers of 1024).
absl::StatusOr<uint64_t> ParseBytes(const std::string& text) {
  uint64_t scale = 1;
  std::string digits = text;
  if (!digits.empty()) {
    const char unit = absl::ascii_toupper(digits.back());
    const uint64_t units[] = {uint64_t{1} << 10, uint64_t{1} << 20,
                              uint64_t{1} << 30};
    const size_t u = std::string("KMG").find(unit);
    if (u != std::string::npos) {
      scale = units[u];
      digits.pop_back();
    }
  }
  uint64_t n;
  if (!absl::SimpleAtoi(digits, &n) || n == 0 ||
      n > (uint64_t{1} << 50) / scale)
    return UsageError(absl::StrCat("--shard-bytes=", text,
                                   ": not a positive size like 1G or 500M"));
  return n * scale;
}

}  // namespace

std::string PackOptions::ShardPath(size_t index) const {
  std::string n = absl::StrCat(index);
  if (n.size() < static_cast<size_t>(width)) n.insert(0, width - n.size(), '0');
  return absl::StrCat(prefix, n, suffix);
}

absl::StatusOr<PackOptions> PackOptionsFromFlags() {
  PackOptions o;
  o.source.data = ResolvePath(absl::GetFlag(FLAGS_data));
  o.source.dataset = absl::GetFlag(FLAGS_dataset);
  o.source.path = ResolvePath(absl::GetFlag(FLAGS_path));
  o.source.images = 0;  // all of them
  if (o.source.data.empty()) {
    FUSEDNORM_RETURN_IF_ERROR(
        AsUsageError(CheckDatasetKind(o.source.dataset), "--dataset: "));
  }
  const std::string output = ResolvePath(absl::GetFlag(FLAGS_output));
  if (output.empty())
    return UsageError("--output (a shard pattern) is required");
  FUSEDNORM_RETURN_IF_ERROR(SetShardPattern(output, &o));
  o.max_side = absl::GetFlag(FLAGS_max_side);
  FUSEDNORM_RETURN_IF_ERROR(CheckRange("max-side", o.max_side, 0, kMaxSide));
  const std::string encoding = absl::GetFlag(FLAGS_encoding);
  if (encoding != "jpeg" && encoding != "raw") {
    return UsageError(
        absl::StrCat("--encoding=", encoding, ": not jpeg or raw"));
  }
  o.raw = encoding == "raw";
  o.quality = absl::GetFlag(FLAGS_quality);
  FUSEDNORM_RETURN_IF_ERROR(CheckRange("quality", o.quality, 1, 100));
  FUSEDNORM_ASSIGN_OR_RETURN(
      o.jpeg_restart, ParseJpegRestart(absl::GetFlag(FLAGS_jpeg_restart)));
  FUSEDNORM_ASSIGN_OR_RETURN(o.shard_bytes,
                             ParseBytes(absl::GetFlag(FLAGS_shard_bytes)));
  return o;
}

absl::StatusOr<RunOptions> RunOptionsFromFlags() {
  RunOptions o;
  RecipeOptions& r = o.recipe;
  FUSEDNORM_ASSIGN_OR_RETURN(r.normalization, NormalizationFromFlags());
  FUSEDNORM_ASSIGN_OR_RETURN(r.split,
                             AsFlag(ParseSplit(absl::GetFlag(FLAGS_split))));
  const std::string size = absl::GetFlag(FLAGS_size);
  if (!size.empty()) {
    FUSEDNORM_ASSIGN_OR_RETURN(const Size2 s, ParseSize(size));
    if (s.height != s.width) {
      return UsageError(
          absl::StrCat("--size=", size, ": run makes square crops (N)"));
    }
    r.size = s.height;
  }
  FUSEDNORM_ASSIGN_OR_RETURN(r.resize_filter, ResizeFilterFromFlag());
  FUSEDNORM_ASSIGN_OR_RETURN(
      r.on_error, AsFlag(ParseErrorPolicy(absl::GetFlag(FLAGS_on_error))));
  r.decode_scale = absl::GetFlag(FLAGS_decode_scale);
  r.images = absl::GetFlag(FLAGS_images);
  r.batch = absl::GetFlag(FLAGS_batch);
  o.epochs = absl::GetFlag(FLAGS_epochs);
  FUSEDNORM_RETURN_IF_ERROR(CheckRange("size", r.size, 1, 4096));
  FUSEDNORM_RETURN_IF_ERROR(CheckRange("images", r.images, 0, INT64_MAX));
  FUSEDNORM_RETURN_IF_ERROR(CheckRange("batch", r.batch, 1, INT64_MAX));
  FUSEDNORM_RETURN_IF_ERROR(CheckRange("epochs", o.epochs, 1, INT64_MAX));
  r.data = ResolvePath(absl::GetFlag(FLAGS_data));
  r.dataset = absl::GetFlag(FLAGS_dataset);
  r.path = ResolvePath(absl::GetFlag(FLAGS_path));
  if (r.data.empty()) {
    FUSEDNORM_RETURN_IF_ERROR(
        AsUsageError(CheckDatasetKind(r.dataset), "--dataset: "));
  }
  r.threads = absl::GetFlag(FLAGS_threads);
  r.seed = absl::GetFlag(FLAGS_seed);
  o.output = ResolvePath(absl::GetFlag(FLAGS_output));
  o.preview = ResolvePath(absl::GetFlag(FLAGS_preview));
  return o;
}

}  // namespace fusednorm
