// The flags' values (tools/flags.h) turned into what the commands pass to
// the library. Every bad value is a usage error (tools/exit_code.h) naming
// the flag and the value; nothing is read from disk here.
#ifndef FUSEDNORM_TOOLS_OPTIONS_H_
#define FUSEDNORM_TOOLS_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "core/image.h"
#include "core/settings.h"
#include "data/shard_writer.h"
#include "ops/fused_normalization.h"
#include "ops/resize.h"
#include "pipeline/recipe.h"

namespace fusednorm {

// Returns `path` relative to where the user ran `bazel run`, which sets
// BUILD_WORKING_DIRECTORY (the program itself runs in its runfiles tree);
// absolute and empty paths and URLs are returned as they are.
std::string ResolvePath(const std::string& path);

// Whether two non-empty paths name one file ("o.npy" and "./o.npy"; a
// symbolic link and its target).
bool SamePath(const std::string& a, const std::string& b);

// --data's comma-separated items, each resolved as ResolvePath does.
std::string ResolveDataPath(const std::string& data);

// `fusednorm normalize`.
struct NormalizeOptions {
  std::string input, output;  // resolved paths
  // --flip and --erase=random become op.flip_p and op.erase; --flip=0|1 and
  // --erase=I,J,H,W override the drawn decisions.
  FusedNormalizationOptions op;
  std::optional<bool> flip;
  std::optional<EraseRect> erase;
  uint64_t seed = 0;
  bool print_decisions = false;
  // --resized-crop / --size / --resize-filter: each input's box (the whole
  // image without --resized-crop) resized to `size` before normalizing.
  std::optional<CropWindow> resized_crop;
  std::optional<Size2> size;
  ResizeFilter resize_filter = ResizeFilter::kPil;
};
absl::StatusOr<NormalizeOptions> NormalizeOptionsFromFlags(
    const SettingValues& flags);

// `fusednorm pack`.
struct PackCommandOptions {
  RecipeOptions source;  // data, dataset, path (every sample is packed)
  PackOptions pack;
};
absl::StatusOr<PackCommandOptions> PackOptionsFromFlags(
    const SettingValues& flags);

// `fusednorm run`.
struct RunOptions {
  RecipeOptions recipe;  // every pipeline setting
  int epochs = 0;
  std::string output, preview;  // resolved paths, or ""
  bool device_copy = false;     // each batch copied to recipe's cuda_device
  // --state-out and --resume: resolved paths, or "".
  std::string state_out, resume;
};
absl::StatusOr<RunOptions> RunOptionsFromFlags(const SettingValues& flags);

}  // namespace fusednorm

#endif  // FUSEDNORM_TOOLS_OPTIONS_H_
