// The tar format (POSIX ustar, with the pax and GNU long-name extensions
// Python's tarfile and GNU tar write) as WebDataset shards use it: an index
// of the regular files of an archive held in memory, each file's bytes left
// in place, and the headers for writing one.
//
// Reading validates every header it uses: the checksum, every numeric field
// (octal digits, or base-256 for large sizes), the size against the bytes
// that remain, NUL-terminated names. Any violation is InvalidArgument naming
// the archive and the header's byte offset; nothing is read outside `bytes`.
// We parse tar ourselves rather than through libarchive because a sample must
// be read where it lies in the memory-mapped shard, and libarchive hands out
// file contents only by copying them.
#ifndef FUSEDNORM_DATA_TAR_H_
#define FUSEDNORM_DATA_TAR_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace fusednorm {

inline constexpr size_t kTarBlock = 512;

// One file: its path in the archive and where its bytes lie. A hard or
// symbolic link to another file of the archive has that file's bytes; a
// link whose target is not a file of the archive has none, and
// `link_error` says why.
struct TarMember {
  std::string name;
  // Of the first data byte, from the archive's start; for a link that
  // names no file (link_error set), of its header.
  size_t offset = 0;
  size_t size = 0;
  std::string link_error;
};

// How an archive ended: at a zero block (tar writes two), or at its last
// byte, which a copy cut short at a member's end also does. Bytes other
// than zeros after the zero blocks are another archive appended (`cat
// a.tar b.tar`), which tar reads only with --ignore-zeros.
struct TarEnd {
  bool zero_blocks = false;
  size_t at = 0;            // where the first zero block starts
  bool data_after = false;  // a byte other than zero follows them
};

// The files of `bytes`, in archive order: regular files, and links
// resolved to the files they name (hard links by path, as GNU tar writes a
// file stored twice; symbolic links relative to their directory, through
// other links, up to 32 deep). Directories and global pax headers are
// passed over; the archive ends at a zero block or at its last byte
// (*end, when given, says which). `what` names the archive in errors.
absl::StatusOr<std::vector<TarMember>> ReadTarIndex(
    absl::Span<const uint8_t> bytes, const std::string& what,
    TarEnd* end = nullptr);

// The 512-byte ustar header of a regular file (mode 0644, mtime 0, owner 0),
// for names up to 255 bytes that have a '/' in the right place to split, or
// up to 100 bytes. InvalidArgument for a longer name or a size of 8 GiB or
// more.
absl::StatusOr<std::string> TarFileHeader(const std::string& name,
                                          uint64_t size);

// Zero bytes that pad a member of `size` bytes to whole blocks.
size_t TarPadding(uint64_t size);

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_TAR_H_
