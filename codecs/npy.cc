// .npy parsing and headers (npy.h).
#include "codecs/npy.h"

#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace fusednorm {
namespace {

absl::Status Bad(const std::string& what, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(what, ": ", why));
}

// The value after 'key': in a header dict, up to the next top-level comma or
// brace.
bool Field(absl::string_view header, absl::string_view key,
           std::string* value) {
  const size_t k = header.find(absl::StrCat("'", key, "'"));
  if (k == absl::string_view::npos) return false;
  size_t p = header.find(':', k);
  if (p == absl::string_view::npos) return false;
  ++p;
  int depth = 0;
  size_t e = p;
  for (; e < header.size(); ++e) {
    const char c = header[e];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
    if (depth < 0) return false;
  }
  *value = std::string(absl::StripAsciiWhitespace(header.substr(p, e - p)));
  return true;
}

// Parses a shape tuple "(a, b, ...)" into *dims; returns the element count.
// Every dimension must be in 1..2^24 and the count at most 2^34.
absl::StatusOr<uint64_t> ParseShape(const std::string& what,
                                    const std::string& shape,
                                    std::vector<int64_t>* dims) {
  absl::string_view text = absl::StripAsciiWhitespace(shape);
  if (!absl::ConsumePrefix(&text, "(") || !absl::ConsumeSuffix(&text, ")")) {
    return Bad(what, absl::StrCat("shape ", shape, " is not a tuple"));
  }
  uint64_t elements = 1;
  for (absl::string_view d :
       absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    int64_t v;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(d), &v) || v < 1 ||
        v > (int64_t{1} << 24)) {
      return Bad(what, absl::StrCat("shape ", shape,
                                    " has a dimension outside 1..16777216"));
    }
    dims->push_back(v);
    elements *= static_cast<uint64_t>(v);
    if (elements > (uint64_t{1} << 34))
      return Bad(what, absl::StrCat("shape ", shape, " is too large"));
  }
  return elements;
}

}  // namespace

absl::StatusOr<NpyArray> ParseNpy(absl::Span<const uint8_t> bytes,
                                  const std::string& what) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) {
    return Bad(what, "not a .npy file (no \\x93NUMPY magic)");
  }
  const int major = bytes[6];
  size_t header_len, start;
  if (major == 1) {
    header_len = bytes[8] | (bytes[9] << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return Bad(what, "truncated header");
    header_len = bytes[8] | (bytes[9] << 8) | (bytes[10] << 16) |
                 (size_t{bytes[11]} << 24);
    start = 12;
  } else {
    return Bad(
        what, absl::StrCat(".npy format version ", major, " is not supported"));
  }
  if (bytes.size() < start + header_len) return Bad(what, "truncated header");
  const absl::string_view header(
      reinterpret_cast<const char*>(bytes.data() + start), header_len);
  NpyArray a;
  std::string descr, fortran, shape;
  if (!Field(header, "descr", &descr) ||
      !Field(header, "fortran_order", &fortran) ||
      !Field(header, "shape", &shape)) {
    return Bad(what, "header lacks descr, fortran_order or shape");
  }
  a.descr = std::string(absl::StripSuffix(absl::StripPrefix(descr, "'"), "'"));
  if (fortran != "False")
    return Bad(what, "Fortran-order arrays are not supported");
  absl::StatusOr<uint64_t> elements = ParseShape(what, shape, &a.shape);
  if (!elements.ok()) return elements.status();
  const size_t item =
      a.descr.size() >= 2 ? static_cast<size_t>(a.descr.back() - '0') : 0;
  if (item < 1 || item > 8)
    return Bad(what, absl::StrCat("dtype ", a.descr, " is not supported"));
  const uint64_t need = *elements * item,
                 have = bytes.size() - start - header_len;
  if (have != need) {
    return Bad(what, absl::StrCat("shape ", shape, " of ", a.descr, " needs ",
                                  need, " data bytes but the file has ", have));
  }
  a.data = bytes.subspan(start + header_len);
  return a;
}

absl::StatusOr<NpyArray> ParseNpyImage(absl::Span<const uint8_t> bytes,
                                       const std::string& what) {
  absl::StatusOr<NpyArray> a = ParseNpy(bytes, what);
  if (!a.ok()) return a;
  if (a->descr != "|u1" && a->descr != "<u1" && a->descr != "u1")
    return Bad(what, absl::StrCat("dtype ", a->descr, " is not uint8"));
  if (a->shape.size() != 3 || a->shape[2] > 4)
    return Bad(what, "needs shape (H, W, C) with C in 1..4");
  return a;
}

std::string NpyHeader(const std::string& descr,
                      const std::vector<int64_t>& shape) {
  std::string dims = absl::StrJoin(shape, ", ");
  if (shape.size() == 1) dims += ",";
  std::string dict =
      absl::StrCat("{'descr': '", descr,
                   "', 'fortran_order': False, 'shape': (", dims, "), }");
  // Pad with spaces so that magic + lengths + dict + '\n' is a multiple of 64.
  const size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  return out + dict;
}

}  // namespace fusednorm
