// The index of one WebDataset shard (data/shards.h): each sample's key,
// where its image lies in the shard, whether it is an .npy, its label; the
// shard's size and, when asked for, a digest of its bytes. Made by one
// sequential read of the shard (IndexShard) and kept beside it as text,
// SHARD.fnidx, by `fusednorm pack` and `fusednorm index`, so that opening
// shards reads kilobytes instead of every tar header.
//
// The text, one sample a line after two header lines:
//
//   fusednorm-shard-index 1
//   bytes 10240 mtime_ns 1764662400123456789 digest 02d766b1b7edef52
//     channels 3 samples 2            (one line)
//   1536 4321 image 7 000000001
//   6656 3072 npy -1 000000002
//   0 0 link -1 000000003 links%20to%20%22x.jpg%22...
//
// A line is the image member's offset and size, its kind (image, npy, or
// link: a sample that fails when read -- a link whose target is not in the
// archive, a .cls that is no label, an unreadable .npy -- with the reason
// last),
// the label (-1: none) and the key; keys and reasons escape '%', spaces
// and every byte outside printable ASCII as %XX, and an empty key is a
// lone %. The digest is "-" when the shard was indexed without one;
// mtime_ns is the shard's modification time when it was indexed (-1:
// unknown; before 1970, negative), which opening compares (data/shards.h).
#ifndef FUSEDNORM_DATA_SHARD_INDEX_H_
#define FUSEDNORM_DATA_SHARD_INDEX_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace fusednorm {

struct ShardEntry {
  std::string key;
  uint64_t offset = 0, size = 0;  // the image member's bytes
  bool npy = false;
  // Set: the sample fails when read, and why, after "its image " (a broken
  // link, a .cls that is no label, an .npy that cannot be read).
  std::string link_error;
  int64_t label = -1;
};

struct ShardIndex {
  uint64_t bytes = 0;     // the shard's size
  int64_t mtime_ns = -1;  // its modification time (ns since 1970), or -1
  std::string digest;     // core/digest.h of its bytes, 16 hex digits, or "-"
  int channels = 0;       // of every sample (0: no samples)
  std::vector<ShardEntry> samples;
};

// SHARD.fnidx.
std::string ShardIndexPath(const std::string& shard);

// The largest index read for a shard of `shard_bytes`: an index line per
// sample of at least 512 tar bytes, so a quarter of the shard's size (and
// at most 256 MiB, about 5 million samples). A larger one is refused before
// it is read, wherever it is.
uint64_t MaxShardIndexBytes(uint64_t shard_bytes);

// `key` with '%', spaces and every byte outside printable ASCII as %XX: as
// index lines hold keys, and as messages show them (a key is any bytes a
// tar member name holds, newlines and NULs included).
std::string EscapeKey(absl::string_view key);

// The index of a shard held in memory, with the digest of its bytes when
// `digest` (a read of every byte). Errors name `path` and the member: a
// corrupt archive, a sample without an image, a second image, a bad .cls,
// channel counts that differ.
absl::StatusOr<ShardIndex> IndexShard(absl::Span<const uint8_t> bytes,
                                      const std::string& path, bool digest);

// Indexes the shard at `path` with its digest and modification time (one
// sequential read) and writes its index to SHARD.fnidx atomically
// (data/atomic_file.h).
absl::StatusOr<ShardIndex> WriteShardIndex(const std::string& path);

// The first difference between the samples of two indexes of one shard
// ("" when they hold the same samples, labels and channels).
std::string FirstDifference(const ShardIndex& a, const ShardIndex& b);

// The index as its text.
std::string ShardIndexText(const ShardIndex& index);

// Reads an index's text; InvalidArgument naming `path` and the line for
// anything else (another format or version, a count that does not match,
// an image outside the shard's bytes).
absl::StatusOr<ShardIndex> ParseShardIndex(absl::string_view text,
                                           const std::string& path);

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_SHARD_INDEX_H_
