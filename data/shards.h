// WebDataset shards: tar files whose members are grouped into samples by
// key (the member's path up to the first '.' of its file name), read in
// place: local files memory-mapped, remote ones (http://, https://, s3://;
// data/remote_store.h) one ranged request per sample.
//
// A sample's image is its .jpg, .jpeg or .png member (decoded, as PIL's
// convert("RGB") does) or its .npy member (a uint8 (H, W, C) array, C in
// 1..4, used as it is); its label is its .cls member (an ASCII integer), or
// -1 without one. Other members are ignored. Opening indexes every shard, so
// that the dataset has a size and global shuffling and rank/world-size
// sharding work as for folders.
#ifndef FUSEDNORM_DATA_SHARDS_H_
#define FUSEDNORM_DATA_SHARDS_H_

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "data/dataset.h"
#include "data/shard_cache.h"

namespace fusednorm {

// True when `data` names shards rather than a folder: a URL, or a path that
// ends in ".tar" (possibly as the last of a comma-separated list, trailing
// commas aside) or has a brace pattern, unless it is an existing folder.
bool IsShardSpec(const std::string& data);

// The shard paths of a spec: a comma-separated list whose items may hold
// one brace range each, "train-{000000..000146}.tar" (the width of the
// first bound is kept). InvalidArgument for a malformed or reversed range,
// a path listed twice (as written: "a.tar" and "./a.tar" are two paths) or
// more than 1,000,000 paths.
absl::StatusOr<std::vector<std::string>> ExpandShardSpec(
    const std::string& spec);

// Maps and indexes the shards (all local, or all remote). Errors name the
// shard (and the byte offset of a bad header or member): a missing file, a
// corrupt archive, a sample with no image, a second image in one sample, a
// bad .cls, one local file under two paths (it would be read twice); for a
// URL also an HTTP status, a refused TLS peer. Remote shards
// keep whole copies in `cache.dir` when it is set (data/shard_cache.h), and
// their opening stops (Cancelled) once *cancel is true (null: never).
// Images are decoded (or, for .npy, checked) when a sample is read, so a
// corrupt image is the error of that sample.
absl::StatusOr<std::unique_ptr<Dataset>> OpenShards(
    const std::vector<std::string>& paths, const ShardCacheOptions& cache = {},
    const std::atomic<bool>* cancel = nullptr);

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_SHARDS_H_
