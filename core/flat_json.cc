// WriteFlatJson and ReadFlatJson (flat_json.h): a small recursive-descent
// reader over the one shape they share.
#include "core/flat_json.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace fusednorm {
namespace {

bool PlainChar(char c) {
  return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

class Reader {
 public:
  Reader(absl::string_view text, absl::string_view what)
      : text_(text), what_(what) {}

  absl::StatusOr<std::map<std::string, FlatJsonValue>> Object() {
    std::map<std::string, FlatJsonValue> out;
    FUSEDNORM_RETURN_IF_ERROR(Expect('{'));
    if (Peek() == '}') return Close(out);
    for (;;) {
      const size_t at = SkipSpace();
      FUSEDNORM_ASSIGN_OR_RETURN(std::string key, String());
      if (out.count(key) != 0)
        return Error(at, "each key once, not \"" + key + "\" twice");
      FUSEDNORM_RETURN_IF_ERROR(Expect(':'));
      FUSEDNORM_ASSIGN_OR_RETURN(FlatJsonValue value, Value(key));
      out.emplace(std::move(key), std::move(value));
      if (Peek() == '}') return Close(out);
      FUSEDNORM_RETURN_IF_ERROR(Expect(','));
    }
  }

 private:
  absl::Status Error(size_t at, absl::string_view expected) const {
    return InvalidArgumentCat(
        what_, ": not a flat JSON object of numbers and strings: at byte ", at,
        " (of ", text_.size(), ") expected ", expected);
  }
  // JSON's white space: space, tab, line feed, carriage return.
  size_t SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
    return pos_;
  }
  char Peek() {
    SkipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  absl::Status Expect(char c) {
    if (Peek() != c)
      return Error(pos_, absl::StrCat("'", std::string(1, c), "'"));
    ++pos_;
    return absl::OkStatus();
  }
  absl::StatusOr<std::map<std::string, FlatJsonValue>> Close(
      std::map<std::string, FlatJsonValue>& out) {
    ++pos_;
    if (SkipSpace() != text_.size()) return Error(pos_, "the end");
    return std::move(out);
  }
  // A key (for == nullptr) or the value of key *for.
  absl::StatusOr<std::string> String(const std::string* for_key = nullptr) {
    if (Peek() != '"') return Error(pos_, "a string");
    const size_t begin = ++pos_;
    while (pos_ < text_.size() && PlainChar(text_[pos_])) ++pos_;
    if (pos_ >= text_.size() || text_[pos_] != '"') {
      return Error(pos_,
                   absl::StrCat("a printable ASCII character other than "
                                "'\\' or the closing '\"' in ",
                                for_key == nullptr
                                    ? std::string("a key")
                                    : "the string for \"" + *for_key + "\""));
    }
    return std::string(text_.substr(begin, pos_++ - begin));
  }
  absl::StatusOr<FlatJsonValue> Value(const std::string& key) {
    if (Peek() == '"') {
      FUSEDNORM_ASSIGN_OR_RETURN(std::string s, String(&key));
      return FlatJsonValue(std::move(s));
    }
    const size_t begin = pos_;
    uint64_t v = 0;
    while (pos_ < text_.size() && absl::ascii_isdigit(text_[pos_])) {
      const uint64_t d = static_cast<uint64_t>(text_[pos_] - '0');
      if (v > (~uint64_t{0} - d) / 10)
        return Error(begin, "an integer below 2^64 for \"" + key + "\"");
      v = v * 10 + d;
      ++pos_;
    }
    const std::string plain =
        "a string or a non-negative integer (no sign, fraction, exponent or "
        "leading zero) for \"" +
        key + "\"";
    if (pos_ == begin || (pos_ - begin > 1 && text_[begin] == '0'))
      return Error(begin, plain);
    if (pos_ < text_.size() &&
        (text_[pos_] == '.' || text_[pos_] == 'e' || text_[pos_] == 'E'))
      return Error(begin, plain);
    return FlatJsonValue(v);
  }

  absl::string_view text_, what_;
  size_t pos_ = 0;
};

}  // namespace

bool IsFlatJsonText(absl::string_view text) {
  for (const char c : text) {
    if (!PlainChar(c)) return false;
  }
  return true;
}

std::string WriteFlatJson(
    const std::vector<std::pair<std::string, FlatJsonValue>>& fields) {
  std::string out = "{";
  for (const auto& [key, value] : fields) {
    absl::StrAppend(&out, out.size() > 1 ? ", " : "", "\"", key, "\": ");
    if (const auto* n = std::get_if<uint64_t>(&value)) {
      absl::StrAppend(&out, *n);
    } else {
      absl::StrAppend(&out, "\"", std::get<std::string>(value), "\"");
    }
  }
  return out + "}";
}

absl::StatusOr<std::map<std::string, FlatJsonValue>> ReadFlatJson(
    absl::string_view text, absl::string_view what) {
  return Reader(text, what).Object();
}

}  // namespace fusednorm
