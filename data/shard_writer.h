// Writing a dataset as WebDataset shards that any tar reader opens (Python's
// tarfile, GNU tar, WebDataset): each sample is a key (its index, 9 digits)
// with an image member and a .cls label member.
//
//   jpeg encoding: a JPEG or PNG sample's stored bytes, or, for an image
//                  shrunk to max_side (or a sample stored decoded), a JPEG at
//                  `quality`; every JPEG rewritten losslessly with restart
//                  markers (codecs/jpeg_transcode.h) unless asked to keep
//                  the bytes, and kept with a warning where it cannot be;
//   raw encoding:  a uint8 (H, W, C) .npy: nothing to decode at load time.
//
// A shard ends before the next sample would take it past shard_bytes. A
// sample larger than that on its own gets a shard of its own, and a warning
// naming it. Each shard is written atomically (data/atomic_file.h): a
// failed pack leaves only complete shards. Each shard's index is written
// beside it once the shard is (SHARD.fnidx, data/shard_index.h).
#ifndef FUSEDNORM_DATA_SHARD_WRITER_H_
#define FUSEDNORM_DATA_SHARD_WRITER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "codecs/jpeg_transcode.h"
#include "data/dataset.h"

namespace fusednorm {

struct PackOptions {
  // Shard i's path is prefix + i (zero-padded to `width` digits) + suffix.
  std::string prefix, suffix;
  int width = 0;
  int64_t max_side = 0;  // shrink images with a longer side (0: keep)
  bool raw = false;      // raw .npy members instead of JPEG
  int quality = 90;      // of re-encoded JPEGs
  // Restart markers for every JPEG member; nullopt: keep the bytes.
  std::optional<RestartSpacing> jpeg_restart = RestartSpacing{false, 4};
  uint64_t shard_bytes = uint64_t{1} << 30;

  std::string ShardPath(size_t index) const;
};

struct PackReport {
  size_t samples = 0;
  std::vector<std::string> shards;
  uint64_t bytes = 0;
  // JPEG members given restart markers, and those kept as they were.
  size_t restarts_added = 0, restarts_kept = 0;
  // One line per sample that got a shard of its own for its size, or whose
  // JPEG could not be rewritten.
  std::vector<std::string> warnings;
};

// Writes every sample of `dataset`; `progress` is told each sample done and
// returns whether to go on (false: Cancelled, only complete shards left).
// Errors name the sample (and its file) or the shard.
absl::StatusOr<PackReport> PackDataset(
    const Dataset& dataset, const PackOptions& options,
    absl::FunctionRef<bool(size_t)> progress);

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_SHARD_WRITER_H_
