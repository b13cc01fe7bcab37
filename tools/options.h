// The flags of tools/flags.h turned into what the commands pass to the
// library. Every bad value is a usage error (tools/exit_code.h) naming the
// flag and the value; nothing is read from disk here.
#ifndef FUSEDNORM_TOOLS_OPTIONS_H_
#define FUSEDNORM_TOOLS_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "kernels/kernel.h"
#include "ops/fused_normalization.h"
#include "ops/image.h"
#include "ops/resize.h"
#include "pipeline/jpeg_transcode.h"
#include "pipeline/recipe.h"

namespace fusednorm {

// Returns `path` relative to where the user ran `bazel run`, which sets
// BUILD_WORKING_DIRECTORY (the program itself runs in its runfiles tree);
// absolute and empty paths are returned as they are.
std::string ResolvePath(const std::string& path);

// --preset or --mean/--std, --dtype, --layout, --mode and --kernel. Flip and
// erase are left off (each command sets its own).
absl::StatusOr<FusedNormalizationOptions> NormalizationFromFlags();

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
absl::StatusOr<NormalizeOptions> NormalizeOptionsFromFlags();

// `fusednorm pack`.
struct PackOptions {
  RecipeOptions source;  // data, dataset, path (every sample is packed)
  // --output: shard paths are prefix + the index (zero-padded to `width`) +
  // suffix.
  std::string prefix, suffix;
  int width = 0;
  int64_t max_side = 0;  // 0: keep the size
  bool raw = false;      // --encoding=raw
  int quality = 90;
  // --jpeg-restart: the restart markers every JPEG gets (nullopt: keep).
  std::optional<RestartSpacing> jpeg_restart = RestartSpacing{false, 4};
  uint64_t shard_bytes = uint64_t{1} << 30;

  std::string ShardPath(size_t index) const;
};
absl::StatusOr<PackOptions> PackOptionsFromFlags();

// `fusednorm run`.
struct RunOptions {
  RecipeOptions recipe;  // every pipeline setting
  int epochs = 0;
  std::string output, preview;  // resolved paths, or ""
};
absl::StatusOr<RunOptions> RunOptionsFromFlags();

}  // namespace fusednorm

#endif  // FUSEDNORM_TOOLS_OPTIONS_H_
