// Flag values to library options (options.h): every value checked, every bad
// one a usage error naming the flag.
#include "tools/options.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/status.h"
#include "data/pack_settings.h"
#include "data/remote_url.h"
#include "data/shard_index.h"
#include "data/shards.h"
#include "ops/op_settings.h"
#include "pipeline/recipe.h"
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
    const absl::Status fits =
        ValidateOutputSize(o->size->height, o->size->width);
    if (!fits.ok()) return v.Error(kResizeToFlag, fits.message());
  }
  return absl::OkStatus();
}

// --erase and its probability and ranges.
absl::Status SetErase(const SettingValues& v, NormalizeOptions* o) {
  const std::string& erase = v.Text(kEraseFlag);
  if (erase == "random") {
    FUSEDNORM_ASSIGN_OR_RETURN(o->op.erase, EraseFromSettings(v));
    return absl::OkStatus();
  }
  // The draw's settings would do nothing: said, not ignored.
  for (const Setting* s :
       {&kErasePSetting, &kEraseScaleSetting, &kEraseRatioSetting}) {
    if (v.Given(*s)) return v.Error(*s, "is for --erase random only");
  }
  if (erase == "none") return absl::OkStatus();
  FUSEDNORM_ASSIGN_OR_RETURN(
      const std::vector<int64_t> r,
      Ints(v, kEraseFlag, 4, "not none, random or I,J,H,W"));
  o->erase = EraseRect{r[0], r[1], r[2], r[3]};
  return absl::OkStatus();
}

// `path` as the file system resolves it (relative to the working directory,
// links followed as far as they exist), or "" when it cannot say.
std::filesystem::path Resolved(const std::string& path) {
  std::error_code e;
  const std::filesystem::path p =
      std::filesystem::weakly_canonical(std::filesystem::absolute(path, e), e);
  return e ? std::filesystem::path() : p;
}

// Whether `path` lies inside a class folder of the image folder `root`
// (files directly in `root` are not read).
bool InClassFolder(const std::string& path, const std::string& root) {
  const std::filesystem::path p = Resolved(path), d = Resolved(root);
  if (p.empty() || d.empty()) return false;
  const auto [d_end, rest] =
      std::mismatch(d.begin(), d.end(), p.begin(), p.end());
  return d_end == d.end() && std::distance(rest, p.end()) >= 2;
}

// The local shard or index of `shards` that the file at `path` is, or "".
std::string ShardAt(const std::string& path,
                    const std::vector<std::string>& shards) {
  struct stat out, s;
  if (stat(path.c_str(), &out) != 0) return "";  // every shard exists
  for (const std::string& shard : shards) {
    if (IsRemotePath(shard)) continue;
    for (const std::string& file : {shard, ShardIndexPath(shard)}) {
      if (stat(file.c_str(), &s) == 0 && s.st_dev == out.st_dev &&
          s.st_ino == out.st_ino)
        return file;
    }
  }
  return "";
}

// The shards --data names, or none when it names none (or names them
// wrongly: opening the data says why).
std::vector<std::string> DataShards(const RecipeOptions& r) {
  if (r.data.empty() || !IsShardSpec(r.data)) return {};
  absl::StatusOr<std::vector<std::string>> shards = ExpandShardSpec(r.data);
  return shards.ok() ? *std::move(shards) : std::vector<std::string>();
}

// An output (`flag`'s `path`) may not replace what the dataset reads, nor
// join it: a file of an image folder's class, or (`shards`) a shard or its
// index.
absl::Status CheckOutsideData(const RecipeOptions& r, const char* flag,
                              const std::string& path, bool shards) {
  if (path.empty()) return absl::OkStatus();
  const bool shard_data = !r.data.empty() && IsShardSpec(r.data);
  std::string folder = shard_data ? "" : r.data;
  if (r.data.empty() && r.dataset == "folder") folder = r.path;
  if (!folder.empty() && InClassFolder(path, folder)) {
    return InvalidArgumentCat(flag, " = ", path,
                              " is inside a class folder of the dataset ",
                              folder, ": it would replace or join its images");
  }
  if (!shards) return absl::OkStatus();
  const std::string file = ShardAt(path, DataShards(r));
  if (file.empty()) return absl::OkStatus();
  return InvalidArgumentCat(flag, " = ", path, " is ", file,
                            ", which --data reads: it would be replaced");
}

// Whether `digits` is how pack writes a shard number `width` wide (%d: 0;
// %0Nd: N): no leading zero beyond the padding.
bool PackNumber(const std::string& digits, int width) {
  if (digits.empty() || digits.size() > 20 ||
      !std::all_of(digits.begin(), digits.end(), absl::ascii_isdigit)) {
    return false;
  }
  const size_t w = static_cast<size_t>(std::max(width, 1));
  return digits.size() == w || (digits.size() > w && digits[0] != '0');
}

// Whether pack's shard pattern (prefix, number, suffix) gives the name of
// the file at `path`: the names compared as written (made absolute) and
// with links followed, on either side.
bool PackNames(const PackOptions& p, const std::string& path) {
  const size_t slash = p.prefix.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "." : p.prefix.substr(0, slash + 1);
  const std::string rest =
      slash == std::string::npos ? p.prefix : p.prefix.substr(slash + 1);
  std::error_code e;
  std::string resolved_dir = Resolved(dir).string();
  while (!resolved_dir.empty() && resolved_dir.back() == '/') {
    resolved_dir.pop_back();
  }
  const std::string heads[] = {
      std::filesystem::absolute(p.prefix, e).lexically_normal().string(),
      resolved_dir.empty() ? "" : resolved_dir + "/" + rest};
  const std::string names[] = {
      std::filesystem::absolute(path, e).lexically_normal().string(),
      Resolved(path).string()};
  for (const std::string& head : heads) {
    for (const std::string& name : names) {
      if (head.empty() || name.size() <= head.size() + p.suffix.size() ||
          !absl::StartsWith(name, head) || !absl::EndsWith(name, p.suffix)) {
        continue;
      }
      if (PackNumber(name.substr(head.size(),
                                 name.size() - head.size() - p.suffix.size()),
                     p.width)) {
        return true;
      }
    }
  }
  return false;
}

// pack's shards may not be named as a shard it reads: the new set would
// replace it, or leave it beside the new shards when they are fewer.
absl::Status CheckPackOutput(const RecipeOptions& r, const PackOptions& p,
                             const std::string& pattern) {
  for (const std::string& shard : DataShards(r)) {
    if (IsRemotePath(shard) || !PackNames(p, shard)) continue;
    return InvalidArgumentCat(
        "--output = ", pattern, " names ", shard,
        ", which --data reads: the new shards would replace it, or leave it "
        "beside them");
  }
  return absl::OkStatus();
}

absl::StatusOr<NormalizeOptions> ReadNormalizeOptions(const SettingValues& v) {
  NormalizeOptions o;
  o.input = ResolvePath(v.Text(kInputFlag));
  o.output = ResolvePath(v.Text(kOutputFlag));
  if (o.input.empty() || o.output.empty())
    return UsageError("--input and --output are required");
  // The output is renamed into place: it would replace the input.
  if (SamePath(o.input, o.output)) {
    return InvalidArgumentCat("--output = ", o.output,
                              " is also the --input file");
  }
  FUSEDNORM_ASSIGN_OR_RETURN(o.op, NormalizationFromSettings(v));
  FUSEDNORM_ASSIGN_OR_RETURN(const std::string flip, v.Choice(kFlipFlag));
  if (flip != "random") o.flip = flip == "1";
  // The draw's probability would do nothing: said, not ignored.
  if (flip != "random" && v.Given(kFlipPSetting)) {
    return v.Error(kFlipPSetting, "is for --flip random only");
  }
  FUSEDNORM_ASSIGN_OR_RETURN(o.op.flip_p, v.Float(kFlipPSetting));
  FUSEDNORM_RETURN_IF_ERROR(SetErase(v, &o));
  FUSEDNORM_ASSIGN_OR_RETURN(o.seed, v.Uint64(kSeedSetting));
  FUSEDNORM_ASSIGN_OR_RETURN(o.print_decisions, v.Bool(kPrintDecisionsFlag));
  FUSEDNORM_RETURN_IF_ERROR(SetResize(v, &o));
  return o;
}

absl::StatusOr<PackCommandOptions> ReadPackOptions(const SettingValues& v) {
  PackCommandOptions o;
  o.source.data = ResolveDataPath(v.Text(kDataSetting));
  FUSEDNORM_ASSIGN_OR_RETURN(o.source.dataset, v.Choice(kDatasetSetting));
  o.source.path = ResolvePath(v.Text(kPathSetting));
  o.source.names.dataset = SettingName(kDatasetSetting, v.style());
  o.source.names.path = SettingName(kPathSetting, v.style());
  o.source.names.data = SettingName(kDataSetting, v.style());
  FUSEDNORM_RETURN_IF_ERROR(CheckDataSettings(o.source));
  FUSEDNORM_ASSIGN_OR_RETURN(o.pack, PackFromSettings(v));
  o.pack.prefix = ResolvePath(o.pack.prefix);
  const std::string pattern = ResolvePath(v.Text(kShardPatternSetting));
  FUSEDNORM_RETURN_IF_ERROR(
      CheckOutsideData(o.source, "--output", pattern, false));
  FUSEDNORM_RETURN_IF_ERROR(CheckPackOutput(o.source, o.pack, pattern));
  return o;
}

absl::StatusOr<RunOptions> ReadRunOptions(const SettingValues& v) {
  RunOptions o;
  FUSEDNORM_ASSIGN_OR_RETURN(o.recipe, RecipeFromSettings(v));
  o.recipe.data = ResolveDataPath(o.recipe.data);
  o.recipe.cache.dir = ResolvePath(o.recipe.cache.dir);
  o.recipe.path = ResolvePath(o.recipe.path);
  FUSEDNORM_RETURN_IF_ERROR(CheckDataSettings(o.recipe));
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t epochs, v.Int(kEpochsFlag));
  o.epochs = static_cast<int>(epochs);
  FUSEDNORM_ASSIGN_OR_RETURN(o.device_copy, v.Bool(kDeviceCopyFlag));
  FUSEDNORM_RETURN_IF_ERROR(CheckCudaDeviceUsed(
      v, o.recipe.loader.pinning, &kDeviceCopyFlag, o.device_copy));
  o.output = ResolvePath(v.Text(kOutputFlag));
  o.preview = ResolvePath(v.Text(kPreviewFlag));
  o.state_out = ResolvePath(v.Text(kStateOutFlag));
  o.resume = ResolvePath(v.Text(kResumeFlag));
  // Epoch numbers are 32 bits: a run may not wrap around to epoch 0.
  if (uint64_t{o.recipe.epoch} + uint64_t(o.epochs) > (uint64_t{1} << 32)) {
    return InvalidArgumentCat("--epoch = ", o.recipe.epoch,
                              " with --epochs = ", o.epochs,
                              " runs past epoch 4294967295, the last");
  }
  // Each output file is written whole and renamed into place: one path
  // for two would keep the last written (--resume may be --state-out).
  const std::pair<const char*, const std::string*> outputs[] = {
      {"--output", &o.output},
      {"--preview", &o.preview},
      {"--state-out", &o.state_out}};
  for (size_t i = 0; i < 3; ++i) {
    FUSEDNORM_RETURN_IF_ERROR(
        CheckOutsideData(o.recipe, outputs[i].first, *outputs[i].second, true));
    // The state a run resumes from may be replaced by the next state only.
    if (i < 2 && SamePath(*outputs[i].second, o.resume)) {
      return InvalidArgumentCat(outputs[i].first, " = ", *outputs[i].second,
                                " is also the --resume file");
    }
    for (size_t j = i + 1; j < 3; ++j) {
      if (SamePath(*outputs[i].second, *outputs[j].second)) {
        return InvalidArgumentCat(outputs[j].first, " = ", *outputs[j].second,
                                  " is also the ", outputs[i].first, " file");
      }
    }
  }
  return o;
}

}  // namespace

bool SamePath(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  if (a == b) return true;
  const std::filesystem::path pa = Resolved(a), pb = Resolved(b);
  return !pa.empty() && pa == pb;
}

std::string ResolvePath(const std::string& path) {
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || HasUrlScheme(path) || wd == nullptr ||
      *wd == '\0') {
    return path;
  }
  return absl::StrCat(wd, "/", path);
}

std::string ResolveDataPath(const std::string& data) {
  std::vector<std::string> items = absl::StrSplit(data, ',');
  for (std::string& item : items) item = ResolvePath(item);
  return absl::StrJoin(items, ",");
}

// Every error of reading a flag's value is a usage error.
absl::StatusOr<NormalizeOptions> NormalizeOptionsFromFlags(
    const SettingValues& flags) {
  absl::StatusOr<NormalizeOptions> o = ReadNormalizeOptions(flags);
  if (!o.ok()) return AsUsageError(o.status());
  return o;
}

absl::StatusOr<PackCommandOptions> PackOptionsFromFlags(
    const SettingValues& flags) {
  absl::StatusOr<PackCommandOptions> o = ReadPackOptions(flags);
  if (!o.ok()) return AsUsageError(o.status());
  return o;
}

absl::StatusOr<RunOptions> RunOptionsFromFlags(const SettingValues& flags) {
  absl::StatusOr<RunOptions> o = ReadRunOptions(flags);
  if (!o.ok()) return AsUsageError(o.status());
  return o;
}

}  // namespace fusednorm
