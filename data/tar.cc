// Tar reading and header writing (tar.h).
#include "data/tar.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "core/status.h"

namespace fusednorm {
namespace {

// Field offsets and sizes of a ustar header.
constexpr size_t kName = 0, kNameLen = 100;
constexpr size_t kMode = 100, kSize = 124, kSizeLen = 12;
constexpr size_t kChecksum = 148, kChecksumLen = 8;
constexpr size_t kType = 156, kLinkName = 157, kLinkNameLen = 100;
constexpr size_t kMagic = 257;
constexpr size_t kPrefix = 345, kPrefixLen = 155;

// A numeric field: octal digits, optionally space/NUL-padded on both sides,
// or GNU base-256 (the first byte's top bit set).
bool ParseNumber(const uint8_t* field, size_t len, uint64_t* value) {
  *value = 0;
  if (field[0] & 0x80) {
    if (field[0] != 0x80) return false;  // negative or too large
    for (size_t i = 1; i < len; ++i) {
      if (*value >> 55) return false;
      *value = (*value << 8) | field[i];
    }
    return true;
  }
  size_t i = 0;
  while (i < len && (field[i] == ' ' || field[i] == 0)) ++i;
  bool digits = false;
  for (; i < len && field[i] >= '0' && field[i] <= '7'; ++i) {
    if (*value >> 60) return false;
    *value = *value * 8 + (field[i] - '0');
    digits = true;
  }
  for (; i < len; ++i) {
    if (field[i] != ' ' && field[i] != 0) return false;
  }
  return digits;
}

// A NUL-terminated (or full-width) string field.
std::string Text(const uint8_t* field, size_t len) {
  const void* nul = std::memchr(field, 0, len);
  const size_t n = nul ? static_cast<const uint8_t*>(nul) - field : len;
  return std::string(reinterpret_cast<const char*>(field), n);
}

bool AllZero(const uint8_t* block) {
  for (size_t i = 0; i < kTarBlock; ++i) {
    if (block[i] != 0) return false;
  }
  return true;
}

// The checksum: unsigned byte sum with the checksum field read as spaces
// (historic archives used a signed sum; both are accepted).
bool ChecksumMatches(const uint8_t* h) {
  uint64_t stored;
  if (!ParseNumber(h + kChecksum, kChecksumLen, &stored)) return false;
  int64_t unsigned_sum = 0, signed_sum = 0;
  for (size_t i = 0; i < kTarBlock; ++i) {
    const bool field = i >= kChecksum && i < kChecksum + kChecksumLen;
    const uint8_t b = field ? ' ' : h[i];
    unsigned_sum += b;
    signed_sum += static_cast<int8_t>(b);
  }
  return static_cast<int64_t>(stored) == unsigned_sum ||
         static_cast<int64_t>(stored) == signed_sum;
}

// What the extension headers before a member said about it.
struct Pending {
  std::string name;  // from pax path= or a GNU long name; "" if none
  std::string link;  // from pax linkpath= or a GNU long link name
  uint64_t size = 0;
  bool has_size = false;
  bool sparse = false;  // GNU.sparse.* records: the data is a sparse map
};

// Pax records "LEN key=value\n": the values of `path`, `linkpath` and
// `size` where present.
absl::Status ParsePax(absl::string_view records, Pending* p) {
  while (!records.empty()) {
    const size_t space = records.find(' ');
    uint64_t len;
    if (space == absl::string_view::npos ||
        !absl::SimpleAtoi(records.substr(0, space), &len) || len <= space + 1 ||
        len > records.size() || records[len - 1] != '\n') {
      return absl::InvalidArgumentError("malformed pax record");
    }
    const absl::string_view kv = records.substr(space + 1, len - space - 2);
    records.remove_prefix(len);
    const size_t eq = kv.find('=');
    if (eq == absl::string_view::npos)
      return absl::InvalidArgumentError("pax record without '='");
    const absl::string_view key = kv.substr(0, eq), value = kv.substr(eq + 1);
    if (key == "path") p->name = std::string(value);
    if (absl::StartsWith(key, "GNU.sparse.")) p->sparse = true;
    if (key == "linkpath") p->link = std::string(value);
    if (key == "size") {
      if (!absl::SimpleAtoi(value, &p->size))
        return absl::InvalidArgumentError("pax size is not a number");
      p->has_size = true;
    }
  }
  return absl::OkStatus();
}

// A link member, resolved once the whole index is read.
struct Link {
  size_t member;       // its entry in the index
  std::string target;  // the path it names, as stored
  bool symbolic;
};

// The member's name: a pax or GNU long name, else the header's (with the
// ustar prefix).
std::string MemberName(const uint8_t* h, const Pending& pending) {
  if (!pending.name.empty()) return pending.name;
  std::string name = Text(h + kName, kNameLen);
  if (std::memcmp(h + kMagic, "ustar", 5) == 0) {
    const std::string prefix = Text(h + kPrefix, kPrefixLen);
    if (!prefix.empty()) name = prefix + "/" + name;
  }
  return name;
}

// A header's type byte as an error shows it.
std::string TypeText(char type) {
  if (type > ' ' && type < 0x7f)
    return absl::StrCat("'", std::string(1, type), "'");
  return absl::StrFormat("0x%02x", static_cast<uint8_t>(type));
}

// Reads the header at `at`: appends a file or link to `out` (links also to
// `links`), records an extension in `pending`, and returns the offset of
// the next header.
absl::StatusOr<size_t> ReadMember(absl::Span<const uint8_t> bytes, size_t at,
                                  Pending* pending, std::vector<TarMember>* out,
                                  std::vector<Link>* links) {
  const uint8_t* h = bytes.data() + at;
  if (!ChecksumMatches(h)) return InvalidArgumentCat("bad header checksum");
  uint64_t size;
  if (!ParseNumber(h + kSize, kSizeLen, &size))
    return InvalidArgumentCat("bad size field");
  const char type = static_cast<char>(h[kType]);
  const bool file = type == '0' || type == 0 || type == '7';
  if (file && pending->has_size) size = pending->size;
  const size_t data = at + kTarBlock;
  if (size > bytes.size() - data) {
    return InvalidArgumentCat("member of ", size, " bytes runs past the end (",
                              bytes.size() - data, " bytes left)");
  }
  const size_t next = data + size + TarPadding(size);
  const absl::string_view body(reinterpret_cast<const char*>(h + kTarBlock),
                               size);
  if (type == 'x' || type == 'X') {  // 'X': Solaris's pax headers
    Pending p;
    FUSEDNORM_RETURN_IF_ERROR(ParsePax(body, &p));
    *pending = p;
  } else if (type == 'L') {
    pending->name = Text(h + kTarBlock, size);
  } else if (type == 'K') {
    pending->link = Text(h + kTarBlock, size);
  } else if (type == 'S' || type == 'M' || (file && pending->sparse)) {
    // Their bytes in the archive are not the file's: refused, never read
    // as they are or passed over.
    return InvalidArgumentCat(
        "member \"", MemberName(h, *pending), "\" is ",
        type == 'M' ? "the rest of a file from another volume (tar type 'M')"
                    : "a sparse file (GNU tar --sparse)",
        ", which a shard cannot hold: write the shard again without it");
  } else if (file) {
    out->push_back({MemberName(h, *pending), data, size, ""});
    *pending = Pending();
  } else if (type == '1' || type == '2') {
    const std::string target = pending->link.empty()
                                   ? Text(h + kLinkName, kLinkNameLen)
                                   : pending->link;
    links->push_back({out->size(), target, type == '2'});
    // Its header's place until the link is resolved: where errors point.
    out->push_back({MemberName(h, *pending), at, 0, ""});
    *pending = Pending();
  } else if (absl::string_view("34569gVDAEIN").find(type) !=
             absl::string_view::npos) {
    // Devices, directories, FIFOs, global headers, volume labels, directory
    // dumps, Solaris's ACLs and attributes, star's inode records and old
    // GNU renames hold no sample: passed over.
    *pending = Pending();
  } else {
    return InvalidArgumentCat("member \"", MemberName(h, *pending),
                              "\" has tar type ", TypeText(type),
                              ", which a shard cannot hold");
  }
  return std::min(next, bytes.size());
}

// `path` with "." and "x/.." steps removed, or "" when it leaves the
// archive's root.
std::string Normalize(const std::string& path) {
  std::vector<absl::string_view> parts;
  for (absl::string_view p : absl::StrSplit(path, '/', absl::SkipEmpty())) {
    if (p == ".") continue;
    if (p == "..") {
      if (parts.empty()) return "";
      parts.pop_back();
      continue;
    }
    parts.push_back(p);
  }
  return absl::StrJoin(parts, "/");
}

// The path a link names: a hard link's target is a path in the archive; a
// symbolic link's is relative to the link's directory.
std::string LinkTarget(const std::string& link_name, const Link& link) {
  if (!link.symbolic || absl::StartsWith(link.target, "/"))
    return Normalize(link.target);
  const size_t slash = link_name.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "" : link_name.substr(0, slash + 1);
  return Normalize(dir + link.target);
}

// Gives each link its target's bytes, following links up to 32 deep.
void ResolveLinks(const std::vector<Link>& links,
                  std::vector<TarMember>* members) {
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < members->size(); ++i)
    by_name[Normalize((*members)[i].name)] = i;
  std::map<size_t, const Link*> link_of;
  for (const Link& l : links) link_of[l.member] = &l;
  for (const Link& l : links) {
    TarMember& m = (*members)[l.member];
    size_t at = l.member;
    std::string why;
    for (int depth = 0; why.empty(); ++depth) {
      const auto link = link_of.find(at);
      if (link == link_of.end()) break;  // a regular file
      const std::string target = LinkTarget((*members)[at].name, *link->second);
      const auto found = by_name.find(target);
      if (depth == 32) {
        why = "links nest more than 32 deep (a cycle?)";
      } else if (target.empty() || found == by_name.end()) {
        why = absl::StrCat("links to \"", link->second->target,
                           "\", which is not a file of the archive");
      } else {
        at = found->second;
      }
    }
    m.link_error = why;
    if (why.empty()) {
      m.offset = (*members)[at].offset;
      m.size = (*members)[at].size;
    }
  }
}

}  // namespace

absl::StatusOr<std::vector<TarMember>> ReadTarIndex(
    absl::Span<const uint8_t> bytes, const std::string& what, TarEnd* end) {
  std::vector<TarMember> members;
  std::vector<Link> links;
  Pending pending;
  size_t at = 0;
  TarEnd ignored;
  if (end == nullptr) end = &ignored;
  *end = TarEnd();
  while (at + kTarBlock <= bytes.size()) {
    if (AllZero(bytes.data() + at)) {  // the end-of-archive blocks
      end->zero_blocks = true;
      end->at = at;
      end->data_after = std::any_of(bytes.begin() + at, bytes.end(),
                                    [](uint8_t b) { return b != 0; });
      break;
    }
    absl::StatusOr<size_t> next =
        ReadMember(bytes, at, &pending, &members, &links);
    if (!next.ok()) {
      return InvalidArgumentCat(what, ": tar header at byte ", at, ": ",
                                next.status().message());
    }
    at = *next;
  }
  // Fewer than a block left: only padding may remain.
  for (size_t i = at; i < bytes.size() && at + kTarBlock > bytes.size(); ++i) {
    if (bytes[i] != 0) {
      return InvalidArgumentCat(what, ": truncated tar header at byte ", at);
    }
  }
  ResolveLinks(links, &members);
  return members;
}

size_t TarPadding(uint64_t size) {
  return static_cast<size_t>((kTarBlock - size % kTarBlock) % kTarBlock);
}

absl::StatusOr<std::string> TarFileHeader(const std::string& name,
                                          uint64_t size) {
  if (size >= (uint64_t{1} << 33))
    return InvalidArgumentCat("tar member ", name, " is 8 GiB or larger");
  std::string prefix, base = name;
  if (name.size() > kNameLen) {
    const size_t slash = name.rfind('/', kPrefixLen);
    if (slash == std::string::npos || name.size() - slash - 1 > kNameLen ||
        slash == 0) {
      return InvalidArgumentCat("tar member name ", name, " is too long");
    }
    prefix = name.substr(0, slash);
    base = name.substr(slash + 1);
  }
  std::string h(kTarBlock, '\0');
  std::memcpy(&h[kName], base.data(), base.size());
  std::memcpy(&h[kMode], "0000644", 7);
  std::memcpy(&h[108], "0000000", 7);  // uid
  std::memcpy(&h[116], "0000000", 7);  // gid
  const std::string octal = absl::StrFormat("%011o", size);
  std::memcpy(&h[kSize], octal.data(), 11);
  std::memcpy(&h[136], "00000000000", 11);  // mtime
  h[kType] = '0';
  std::memcpy(&h[kMagic],
              "ustar\0"
              "00",
              8);
  std::memcpy(&h[kPrefix], prefix.data(), prefix.size());
  std::memset(&h[kChecksum], ' ', kChecksumLen);
  unsigned sum = 0;
  for (char c : h) sum += static_cast<uint8_t>(c);
  const std::string checksum = absl::StrFormat("%06o", sum);
  std::memcpy(&h[kChecksum], checksum.data(), 6);
  h[kChecksum + 6] = '\0';
  return h;
}

}  // namespace fusednorm
