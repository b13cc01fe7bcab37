// ParseTransformList (transform_list.h): a recursive-descent reader of the
// list grammar, one function per production.
#include "ops/transform_list.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace fusednorm {
namespace {

// What Python's float() gives for a number past double's range: an
// infinity, or a zero for a negative exponent, with the number's sign.
double OutOfRange(const std::string& digits) {
  const bool negative = !digits.empty() && digits[0] == '-';
  const size_t e = digits.find_first_of("eE");
  const bool tiny =
      e != std::string::npos && e + 1 < digits.size() && digits[e + 1] == '-';
  const double magnitude = tiny ? 0.0 : std::numeric_limits<double>::infinity();
  return negative ? -magnitude : magnitude;
}

bool IsNameStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

class Parser {
 public:
  Parser(absl::string_view text, absl::string_view list)
      : text_(text), list_(list) {}

  absl::StatusOr<std::vector<OpCall>> List() {
    std::vector<OpCall> ops;
    SkipSpace();
    if (AtEnd()) return ops;
    FUSEDNORM_RETURN_IF_ERROR(TopLevel(&ops));
    SkipSpace();
    if (AtEnd()) return ops;
    // Only a list in brackets or a Compose ends before the text does.
    if (ops.empty()) return Error("unexpected text after the empty list");
    return Error(absl::StrCat("unexpected text after the list that ends at ",
                              ops.back().name, " (position ", ops.size() - 1,
                              ")"));
  }

 private:
  bool AtEnd() const { return at_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[at_]; }
  // The character at at_ as the text holds it: a whole UTF-8 sequence (a
  // typographic quote pasted into a list), else one byte.
  std::string CharHere() const {
    size_t n = 1;
    const auto lead = static_cast<unsigned char>(Peek());
    const size_t want = lead >= 0xF0   ? 4
                        : lead >= 0xE0 ? 3
                        : lead >= 0xC0 ? 2
                                       : 1;
    while (n < want && at_ + n < text_.size() &&
           (static_cast<unsigned char>(text_[at_ + n]) & 0xC0) == 0x80) {
      ++n;
    }
    return std::string(text_.substr(at_, n == want ? n : 1));
  }
  void SkipSpace() {
    while (!AtEnd() && absl::ascii_isspace(text_[at_])) ++at_;
  }
  bool Eat(char c) {
    SkipSpace();
    if (Peek() != c) return false;
    ++at_;
    return true;
  }

  // "LIST: character N (in OP, position K): WHY". N counts characters, not
  // bytes: UTF-8's continuation bytes (10xxxxxx) are not counted.
  absl::Status Error(absl::string_view why) const {
    const size_t characters = std::count_if(
        text_.begin(), text_.begin() + std::min(at_, text_.size()),
        [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
    std::string where = absl::StrCat(list_, ": character ", characters + 1);
    if (!op_.empty()) {
      absl::StrAppend(&where, " (in ", op_, ", position ", position_, ")");
    }
    return InvalidArgumentCat(where, ": ", why);
  }

  // The ops of the whole text, of a Compose([...]) around them, or of a
  // list written as Python's, [...].
  absl::Status TopLevel(std::vector<OpCall>* ops) {
    SkipSpace();
    if (Eat('[')) return Items(']', ops);
    const size_t start = at_;
    FUSEDNORM_ASSIGN_OR_RETURN(std::string name, Name());
    if (name == "Compose" && Eat('(')) {
      if (!Eat('[') && !Eat('('))
        return Error("Compose takes a list: Compose([...])");
      const char close = text_[at_ - 1] == '[' ? ']' : ')';
      FUSEDNORM_RETURN_IF_ERROR(Items(close, ops));
      if (!Eat(')')) return Error("expected ')' after Compose's list");
      return absl::OkStatus();
    }
    at_ = start;
    return Items('\0', ops);
  }

  // Ops separated by commas, up to `close` (or the end when '\0'), which
  // is consumed.
  absl::Status Items(char close, std::vector<OpCall>* ops) {
    for (;;) {
      SkipSpace();
      if (close != '\0' && Eat(close)) return absl::OkStatus();
      if (close == '\0' && AtEnd()) return absl::OkStatus();
      position_ = ops->size();
      FUSEDNORM_ASSIGN_OR_RETURN(OpCall call, Op(0));
      ops->push_back(std::move(call));
      op_.clear();
      if (Eat(',')) continue;
      SkipSpace();
      if (close != '\0' && Eat(close)) return absl::OkStatus();
      if (close == '\0' && AtEnd()) return absl::OkStatus();
      return Error(absl::StrCat(
          close == '\0'
              ? "expected ',' between ops"
              : absl::StrCat("expected ',' or '", std::string(1, close), "'"),
          " after ", ops->back().name, " (position ", position_, ")"));
    }
  }

  // A character outside ASCII where a name or the punctuation after one
  // goes (a letter with an accent, a pasted no-break space or full-width
  // parenthesis).
  absl::Status NotAscii() const {
    return Error(absl::StrCat("'", CharHere(),
                              "' is not ASCII: names are made of ASCII "
                              "letters, digits and '_', and the list's "
                              "punctuation is ASCII"));
  }

  // A dotted name; the part after the last dot.
  absl::StatusOr<std::string> Name() {
    SkipSpace();
    if (static_cast<unsigned char>(Peek()) >= 0x80) return NotAscii();
    if (!IsNameStart(Peek())) return Error("expected the name of an op");
    std::string last;
    for (;;) {
      const size_t start = at_;
      while (IsNameChar(Peek())) ++at_;
      if (static_cast<unsigned char>(Peek()) >= 0x80) return NotAscii();
      last = std::string(text_.substr(start, at_ - start));
      if (Peek() != '.' || at_ + 1 >= text_.size() ||
          !IsNameStart(text_[at_ + 1]))
        return last;
      ++at_;
    }
  }

  // NAME or NAME(args), `depth` values deep.
  absl::StatusOr<OpCall> Op(int depth) {
    SkipSpace();
    OpCall call;
    call.offset = at_;
    FUSEDNORM_ASSIGN_OR_RETURN(call.name, Name());
    op_ = call.name;
    if (!Eat('(')) return call;
    FUSEDNORM_RETURN_IF_ERROR(Arguments(depth, &call));
    return call;
  }

  // The arguments after '(' up to and including ')'.
  absl::Status Arguments(int depth, OpCall* call) {
    bool keywords = false;
    for (;;) {
      if (Eat(')')) return absl::OkStatus();
      OpArgument arg;
      SkipSpace();
      const size_t start = at_;
      if (IsNameStart(Peek())) {
        while (IsNameChar(Peek())) ++at_;
        const std::string word(text_.substr(start, at_ - start));
        SkipSpace();
        if (Peek() == '=' &&
            (at_ + 1 >= text_.size() || text_[at_ + 1] != '=')) {
          ++at_;
          arg.keyword = word;
        } else {
          at_ = start;
        }
      }
      if (arg.keyword.empty() && keywords)
        return Error("a positional argument follows a keyword argument");
      keywords = keywords || !arg.keyword.empty();
      FUSEDNORM_ASSIGN_OR_RETURN(arg.value, Value(depth + 1));
      call->args.push_back(std::move(arg));
      if (Eat(',')) continue;
      if (Eat(')')) return absl::OkStatus();
      return Error("expected ',' or ')' after an argument");
    }
  }

  absl::StatusOr<ArgValue> Value(int depth) {
    if (depth > kMaxArgDepth) return Error("values are nested too deeply");
    SkipSpace();
    const char c = Peek();
    if (c == '(' || c == '[') return Tuple(depth);
    if (c == '\'' || c == '"') return String();
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' ||
        c == '.')
      return Number();
    if (IsNameStart(c)) return NameValue(depth);
    return Error(AtEnd() ? "the text ends where a value should be"
                         : absl::StrCat("unexpected '", CharHere(), "'"));
  }

  absl::StatusOr<ArgValue> Tuple(int depth) {
    const char close = Peek() == '(' ? ')' : ']';
    ++at_;
    std::vector<ArgValue> items;
    for (;;) {
      if (Eat(close)) return ArgValue::Tuple(std::move(items));
      FUSEDNORM_ASSIGN_OR_RETURN(ArgValue item, Value(depth + 1));
      items.push_back(std::move(item));
      if (Eat(',')) continue;
      if (Eat(close)) return ArgValue::Tuple(std::move(items));
      return Error(
          absl::StrCat("expected ',' or '", std::string(1, close), "'"));
    }
  }

  absl::StatusOr<ArgValue> String() {
    const char quote = text_[at_++];
    std::string s;
    while (!AtEnd() && text_[at_] != quote) {
      if (text_[at_] == '\\' && at_ + 1 < text_.size()) ++at_;
      s += text_[at_++];
    }
    if (AtEnd()) return Error("a string is not closed");
    ++at_;
    return ArgValue::Text(std::move(s));
  }

  absl::StatusOr<ArgValue> Number() {
    const size_t start = at_;
    if (Peek() == '-' || Peek() == '+') ++at_;
    if (IsNameStart(Peek())) {  // -inf, +inf
      const size_t word = at_;
      while (IsNameChar(Peek())) ++at_;
      const std::string w(text_.substr(word, at_ - word));
      if (w != "inf" && w != "nan")
        return Error(absl::StrCat("\"", text_.substr(start, at_ - start),
                                  "\" is not a number"));
      const double v = w == "inf" ? HUGE_VAL : NAN;
      return ArgValue::Float(text_[start] == '-' ? -v : v);
    }
    bool is_float = false;
    // The number's characters, and any letters run into it (an error).
    while (!AtEnd()) {
      const char c = text_[at_];
      if (c == '.' || c == 'e' || c == 'E') {
        is_float = true;
        ++at_;
        if ((c == 'e' || c == 'E') && (Peek() == '-' || Peek() == '+')) ++at_;
      } else if (IsNameChar(c)) {
        ++at_;
      } else {
        break;
      }
    }
    std::string digits;
    for (const char c : text_.substr(start, at_ - start))
      if (c != '_') digits += c;
    errno = 0;
    char* end = nullptr;
    if (!is_float) {
      const long long v = std::strtoll(digits.c_str(), &end, 10);
      if (end == digits.c_str() + digits.size() && errno == 0 &&
          !digits.empty())
        return ArgValue::Int(v);
      if (errno == ERANGE)
        return Error(
            absl::StrCat(Shortened(digits), " is too large for an integer"));
    } else {
      // from_chars ignores the locale (strtod would stop at the point where
      // the program's locale writes a comma); it takes no '+'.
      const char* first = digits.c_str();
      const char* last = first + digits.size();
      if (first != last && *first == '+') ++first;
      double v = 0;
      const std::from_chars_result r = std::from_chars(first, last, v);
      if (r.ec == std::errc() && r.ptr == last && first != last)
        return ArgValue::Float(v);
      if (r.ec == std::errc::result_out_of_range && r.ptr == last)
        return ArgValue::Float(OutOfRange(digits));
    }
    return Error(absl::StrCat("\"", digits, "\" is not a number"));
  }

  // None, True, False, inf, nan, a bare name, or an op inside a value.
  absl::StatusOr<ArgValue> NameValue(int depth) {
    const size_t start = at_;
    FUSEDNORM_ASSIGN_OR_RETURN(const std::string last, Name());
    const std::string full(text_.substr(start, at_ - start));
    SkipSpace();
    if (Peek() == '(') {
      const std::string outer_op = op_;
      const size_t outer_position = position_;
      at_ = start;
      FUSEDNORM_ASSIGN_OR_RETURN(OpCall inner, Op(depth + 1));
      op_ = outer_op;
      position_ = outer_position;
      return CallArg(std::move(inner));
    }
    if (full == "None") return ArgValue::None();
    if (full == "True" || full == "False")
      return ArgValue::Bool(full == "True");
    if (full == "inf") return ArgValue::Float(HUGE_VAL);
    if (full == "nan") return ArgValue::Float(NAN);
    return ArgValue::Name(full);
  }

  absl::string_view text_;
  absl::string_view list_;
  size_t at_ = 0;
  std::string op_;       // the op being read, for errors
  size_t position_ = 0;  // its position in the list
};

}  // namespace

absl::StatusOr<ArgValue> ParseArgValue(absl::string_view text) {
  const std::string wrapped = absl::StrCat("Value(", text, ")");
  FUSEDNORM_ASSIGN_OR_RETURN(std::vector<OpCall> calls,
                             ParseTransformList(wrapped, "a value"));
  if (calls.size() != 1 || calls[0].args.size() != 1 ||
      !calls[0].args[0].keyword.empty()) {
    return InvalidArgumentCat("\"", text, "\" is not one value");
  }
  return calls[0].args[0].value;
}

absl::StatusOr<std::vector<OpCall>> ParseTransformList(absl::string_view text,
                                                       absl::string_view list) {
  return Parser(text, list).List();
}

ArgValue CallArg(OpCall call) {
  ArgValue v;
  v.kind = ArgValue::Kind::kCall;
  v.call = std::make_shared<const OpCall>(std::move(call));
  return v;
}

ArgValue CallArg(std::string name, std::vector<NamedArg> args) {
  OpCall call;
  call.name = std::move(name);
  for (NamedArg& a : args)
    call.args.push_back({std::move(a.name), std::move(a.value)});
  return CallArg(std::move(call));
}

}  // namespace fusednorm
