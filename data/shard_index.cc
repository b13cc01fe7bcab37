// ShardIndex (shard_index.h): made from a shard's tar members, written and
// read as text.
#include "data/shard_index.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "codecs/codec.h"
#include "codecs/npy.h"
#include "core/digest.h"
#include "core/one_line.h"
#include "core/status.h"
#include "data/atomic_file.h"
#include "data/mapped_file.h"
#include "data/tar.h"

namespace fusednorm {
namespace {

constexpr char kMagic[] = "fusednorm-shard-index 1";

// Splits a member name into its sample key and lower-case extension.
void KeyAndExtension(const std::string& name, std::string* key,
                     std::string* ext) {
  const size_t slash = name.rfind('/');
  const size_t dot = name.find('.', slash == std::string::npos ? 0 : slash + 1);
  *key = name.substr(0, dot);
  *ext = dot == std::string::npos ? ""
                                  : absl::AsciiStrToLower(name.substr(dot + 1));
}

// Why a .cls's text is no label: out of range when it is an integer, else
// not one (a label is an int64; the text is shown, up to 40 bytes).
std::string ClsText(absl::string_view text) {
  absl::string_view digits = text;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+'))
    digits.remove_prefix(1);
  if (!digits.empty() &&
      std::all_of(digits.begin(), digits.end(), absl::ascii_isdigit)) {
    return "is past the int64 range of labels";
  }
  return absl::StrCat("\"", absl::CHexEscape(text.substr(0, 40)),
                      text.size() > 40 ? "...\"" : "\"", " is not an integer");
}

// The samples of a shard's members so far, which of them have their image,
// and every key seen (a sample's members come together).
struct Members {
  std::vector<ShardEntry>* samples = nullptr;
  std::vector<bool> images, labels;  // per sample: its image, its .cls seen
  std::unordered_set<std::string> keys;
};

// Makes sample `s` fail when read, saying why after "its image " (the
// first reason given stands). The index keeps the reason as a link's.
void SampleFails(ShardEntry* s, std::string why) {
  if (s->link_error.empty()) s->link_error = std::move(why);
}

// Adds member `m` to the samples (a new sample when its key differs from
// the last one's).
absl::Status AddMember(const TarMember& m, absl::Span<const uint8_t> bytes,
                       const std::string& path, Members* members) {
  std::string key, ext;
  KeyAndExtension(m.name, &key, &ext);
  const Codec* codec = CodecForExtension(ext);
  if (codec == nullptr && ext != "cls") return absl::OkStatus();
  std::vector<ShardEntry>* samples = members->samples;
  std::vector<bool>* images = &members->images;
  const std::string where =
      absl::StrCat(path, ": member ", EscapeKey(m.name), " at byte ", m.offset);
  if (samples->empty() || samples->back().key != key) {
    // A key seen before other keys would be a second sample of that key.
    if (!members->keys.insert(key).second) {
      return InvalidArgumentCat(where, ": key ", EscapeKey(key),
                                " again, after other keys (a sample's "
                                "members are next to each other)");
    }
    samples->push_back({key, 0, 0, false, "", -1});
    images->push_back(false);
    members->labels.push_back(false);
  }
  ShardEntry& s = samples->back();
  if (ext == "cls") {
    if (members->labels.back())
      return InvalidArgumentCat(where, ": a second .cls for key ",
                                EscapeKey(key));
    members->labels.back() = true;
    // A .cls that is no label fails its sample when it is read (on_error
    // decides, as for a corrupt image), not the shard.
    const absl::string_view text(
        reinterpret_cast<const char*>(bytes.data() + m.offset), m.size);
    const absl::string_view digits = absl::StripAsciiWhitespace(text);
    if (!m.link_error.empty()) {
      SampleFails(&s, absl::StrCat("has no label: its .cls ", m.link_error));
    } else if (!absl::SimpleAtoi(digits, &s.label)) {
      s.label = -1;
      SampleFails(&s, absl::StrCat("has no label: its .cls ", ClsText(digits)));
    }
    return absl::OkStatus();
  }
  if (images->back())
    return InvalidArgumentCat(where, ": a second image for key ",
                              EscapeKey(key));
  images->back() = true;
  s.npy = codec->channels == 0;  // the file says (.npy)
  s.offset = m.offset;
  s.size = m.size;
  if (!m.link_error.empty()) SampleFails(&s, m.link_error);
  return absl::OkStatus();
}

// The channel count of sample `s`: 3 for an encoded image (whatever else
// fails), an .npy's own from its header, else 0 (unknown): an .npy whose
// header cannot be read fails when read (a broken link's reason stands).
int Channels(ShardEntry* s, absl::Span<const uint8_t> bytes) {
  if (!s->npy) return 3;
  const absl::StatusOr<NpyArray> a =
      ParseNpyImage(bytes.subspan(s->offset, s->size), ".npy");
  if (a.ok()) return static_cast<int>(a->shape[2]);
  SampleFails(s, absl::StrCat("is an .npy that cannot be read (",
                              a.status().message(), ")"));
  return 0;
}

}  // namespace

std::string EscapeKey(absl::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u > 0x20 && u < 0x7f && u != '%') {
      out += c;
    } else {
      absl::StrAppend(&out, absl::StrFormat("%%%02X", u));
    }
  }
  return out;
}

namespace {

bool Unescape(absl::string_view text, std::string* out) {
  out->clear();
  for (size_t i = 0; i < text.size(); ++i) {
    const auto u = static_cast<unsigned char>(text[i]);
    if (u <= 0x20 || u >= 0x7f) return false;
    if (u != '%') {
      *out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return false;
    int v = 0;
    for (int k = 1; k <= 2; ++k) {
      const char h = text[i + k];
      if (!absl::ascii_isxdigit(h)) return false;
      v = v * 16 + (absl::ascii_isdigit(h) ? h - '0'
                                           : absl::ascii_tolower(h) - 'a' + 10);
    }
    *out += static_cast<char>(v);
    i += 2;
  }
  return true;
}

// The first line of *text, without its '\n', taken from it.
absl::string_view NextLine(absl::string_view* text) {
  const size_t end = text->find('\n');
  const absl::string_view line = text->substr(0, end);
  text->remove_prefix(end == absl::string_view::npos ? text->size() : end + 1);
  return line;
}

// One sample line (fields split at single spaces).
absl::Status ParseEntry(const std::vector<absl::string_view>& f,
                        uint64_t shard_bytes, ShardEntry* e) {
  if (f.size() != 5 && f.size() != 6)
    return absl::InvalidArgumentError("expected 5 fields (6 for a link)");
  if (!absl::SimpleAtoi(f[0], &e->offset) ||
      !absl::SimpleAtoi(f[1], &e->size) || !absl::SimpleAtoi(f[3], &e->label) ||
      !absl::ascii_isdigit(f[0][0]) || !absl::ascii_isdigit(f[1][0]))
    return absl::InvalidArgumentError("offset, size or label is not a number");
  if (e->offset > shard_bytes || e->size > shard_bytes - e->offset) {
    return InvalidArgumentCat("bytes ", e->offset, "..+", e->size,
                              " are not inside the shard's ", shard_bytes);
  }
  if (f[4] == "%") {
    e->key.clear();
  } else if (!Unescape(f[4], &e->key) || e->key.empty()) {
    return absl::InvalidArgumentError("the key is empty or badly escaped");
  }
  const bool link = f[2] == "link";
  if (!link && f[2] != "image" && f[2] != "npy")
    return InvalidArgumentCat("kind \"", f[2], "\" is not image, npy or link");
  if (link != (f.size() == 6) ||
      (link && (!Unescape(f[5], &e->link_error) || e->link_error.empty())))
    return absl::InvalidArgumentError("a link, and only a link, ends with why");
  e->npy = f[2] == "npy";
  return absl::OkStatus();
}

// The header's second line.
absl::Status ParseHeader(absl::string_view line, ShardIndex* index,
                         uint64_t* samples) {
  const std::vector<absl::string_view> f = absl::StrSplit(line, ' ');
  if (f.size() != 10 || f[0] != "bytes" || f[2] != "mtime_ns" ||
      f[4] != "digest" || f[6] != "channels" || f[8] != "samples" ||
      !absl::SimpleAtoi(f[1], &index->bytes) ||
      !absl::SimpleAtoi(f[3], &index->mtime_ns) ||
      !absl::SimpleAtoi(f[7], &index->channels) ||
      !absl::SimpleAtoi(f[9], samples) ||
      (f[5] != "-" &&
       (f[5].size() != 16 || f[5].find_first_not_of("0123456789abcdef") !=
                                 absl::string_view::npos)) ||
      index->channels < 0 || index->channels > 4) {
    return absl::InvalidArgumentError(
        "expected \"bytes N mtime_ns T digest HEX channels C samples N\"");
  }
  index->digest = std::string(f[5]);
  return absl::OkStatus();
}

}  // namespace

std::string ShardIndexPath(const std::string& shard) {
  return shard + ".fnidx";
}

uint64_t MaxShardIndexBytes(uint64_t shard_bytes) {
  constexpr uint64_t kMost = uint64_t{256} << 20;
  return std::min(kMost, shard_bytes / 4 + 65536);
}

absl::StatusOr<ShardIndex> IndexShard(absl::Span<const uint8_t> bytes,
                                      const std::string& path, bool digest) {
  TarEnd end;
  FUSEDNORM_ASSIGN_OR_RETURN(const std::vector<TarMember> members,
                             ReadTarIndex(bytes, path, &end));
  if (!end.zero_blocks) {
    // Every tar writer ends with zero blocks; a copy that ran out of room
    // may end at a member's end, its later samples gone without an error.
    std::fprintf(stderr,
                 "fusednorm: warning: %s has no end-of-archive blocks: if it "
                 "was cut short, the samples after the cut are missing\n",
                 OneLine(path).c_str());
  } else if (end.data_after) {
    std::fprintf(stderr,
                 "fusednorm: warning: %s ends at a zero block at byte %zu, "
                 "and data follows (another archive appended, as `cat a.tar "
                 "b.tar` makes?): it is not read; repack the shards (tar "
                 "reads past the end only with -i)\n",
                 OneLine(path).c_str(), end.at);
  }
  ShardIndex index;
  index.bytes = bytes.size();
  index.digest =
      digest ? Digest().Bytes(bytes.data(), bytes.size()).Hex() : "-";
  Members seen;
  seen.samples = &index.samples;
  for (const TarMember& m : members) {
    FUSEDNORM_RETURN_IF_ERROR(AddMember(m, bytes, path, &seen));
  }
  for (size_t i = 0; i < index.samples.size(); ++i) {
    ShardEntry& s = index.samples[i];
    const std::string what = absl::StrCat(path, ": key ", EscapeKey(s.key));
    if (!seen.images[i])
      return InvalidArgumentCat(what, " has no ", KnownExtensions(), " member");
    const int c = Channels(&s, bytes);
    if (c == 0) continue;  // unknown: it fails when read
    if (index.channels != 0 && c != index.channels) {
      return InvalidArgumentCat(what, ": ", c, " channels, earlier samples ",
                                index.channels);
    }
    index.channels = c;
  }
  return index;
}

absl::StatusOr<ShardIndex> WriteShardIndex(const std::string& path) {
  FUSEDNORM_ASSIGN_OR_RETURN(const std::unique_ptr<MappedFile> file,
                             MappedFile::Open(path));
  FUSEDNORM_ASSIGN_OR_RETURN(ShardIndex index,
                             IndexShard(file->bytes(), path, /*digest=*/true));
  index.mtime_ns = file->mtime_ns();
  // An index of bytes that changed while they were read is no index.
  FUSEDNORM_RETURN_IF_ERROR(file->CheckUnchanged());
  const std::string text = ShardIndexText(index);
  FUSEDNORM_RETURN_IF_ERROR(WriteFileAtomically(
      ShardIndexPath(path),
      {{reinterpret_cast<const uint8_t*>(text.data()), text.size()}}));
  return index;
}

std::string FirstDifference(const ShardIndex& a, const ShardIndex& b) {
  if (a.samples.size() != b.samples.size()) {
    return absl::StrCat(a.samples.size(), " samples against ",
                        b.samples.size());
  }
  if (a.channels != b.channels)
    return absl::StrCat(a.channels, " channels against ", b.channels);
  for (size_t i = 0; i < a.samples.size(); ++i) {
    const ShardEntry &x = a.samples[i], &y = b.samples[i];
    if (x.key != y.key || x.offset != y.offset || x.size != y.size ||
        x.npy != y.npy || x.link_error != y.link_error || x.label != y.label) {
      return absl::StrCat("sample ", i, " (key ", EscapeKey(x.key), ")");
    }
  }
  return "";
}

std::string ShardIndexText(const ShardIndex& index) {
  std::string out =
      absl::StrCat(kMagic, "\nbytes ", index.bytes, " mtime_ns ",
                   index.mtime_ns, " digest ", index.digest, " channels ",
                   index.channels, " samples ", index.samples.size(), "\n");
  for (const ShardEntry& e : index.samples) {
    const char* kind = !e.link_error.empty() ? "link" : e.npy ? "npy" : "image";
    // An empty key (a member named ".jpg") as a lone '%', which no escaped
    // key is.
    absl::StrAppend(&out, e.offset, " ", e.size, " ", kind, " ", e.label, " ",
                    e.key.empty() ? "%" : EscapeKey(e.key));
    if (!e.link_error.empty())
      absl::StrAppend(&out, " ", EscapeKey(e.link_error));
    out += '\n';
  }
  return out;
}

absl::StatusOr<ShardIndex> ParseShardIndex(absl::string_view text,
                                           const std::string& path) {
  if (NextLine(&text) != kMagic) {
    return InvalidArgumentCat(path,
                              ": not a shard index (its first line is "
                              "not \"",
                              kMagic, "\")");
  }
  if (text.empty()) return InvalidArgumentCat(path, ": line 2 is missing");
  ShardIndex index;
  uint64_t samples = 0;
  FUSEDNORM_RETURN_IF_ERROR(
      PrefixStatus(ParseHeader(NextLine(&text), &index, &samples),
                   absl::StrCat(path, ": line 2: ")));
  // Lines end in '\n', the last one's optional.
  const uint64_t follow = std::count(text.begin(), text.end(), '\n') +
                          (text.empty() || text.back() == '\n' ? 0 : 1);
  if (samples != follow) {
    return InvalidArgumentCat(path, ": line 2 says ", samples, " samples, ",
                              follow, " lines follow");
  }
  index.samples.resize(samples);
  for (size_t i = 0; i < samples; ++i) {
    const absl::Status entry = ParseEntry(absl::StrSplit(NextLine(&text), ' '),
                                          index.bytes, &index.samples[i]);
    if (!entry.ok())
      return PrefixStatus(entry, absl::StrCat(path, ": line ", i + 3, ": "));
  }
  // Channels 0: no sample, or none that says (each fails when read).
  const bool all_fail =
      std::all_of(index.samples.begin(), index.samples.end(),
                  [](const ShardEntry& e) { return !e.link_error.empty(); });
  if ((samples == 0 && index.channels != 0) ||
      (index.channels == 0 && !all_fail)) {
    return InvalidArgumentCat(path, ": line 2: channels ", index.channels,
                              " with ", samples, " samples");
  }
  return index;
}

}  // namespace fusednorm
