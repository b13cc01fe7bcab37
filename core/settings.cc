// Parsing and checking setting values (settings.h).
#include "core/settings.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/status.h"

namespace fusednorm {
namespace {

// A range's end as a message shows it: integers as integers (16777216,
// not 1.67772e+07).
std::string Limit(double v) {
  if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0)
    return absl::StrCat(static_cast<int64_t>(v));
  return absl::StrCat(v);
}

// "min..max" for a message, leaving out infinite ends.
std::string Range(const Setting& s) {
  if (std::isinf(s.min) && std::isinf(s.max)) return "";
  if (std::isinf(s.max)) return absl::StrCat(">= ", Limit(s.min));
  if (std::isinf(s.min)) return absl::StrCat("<= ", Limit(s.max));
  return absl::StrCat("in ", Limit(s.min), "..", Limit(s.max));
}

// A value as a Python user wrote it: text quoted, numbers and bools bare,
// several numbers as a tuple.
std::string AsKeywordValue(const Setting& s, const std::string& text) {
  switch (s.type) {
    case SettingType::kText:
    case SettingType::kChoice:
      return absl::StrCat("\"", text, "\"");
    case SettingType::kBool:
      return text == "true" ? "True" : text == "false" ? "False" : text;
    case SettingType::kFloats:
    case SettingType::kSize:
      if (text.empty()) return "()";
      if (text.find(',') != std::string::npos)
        return absl::StrCat("(", absl::StrJoin(absl::StrSplit(text, ','), ", "),
                            ")");
      return text;
    default:
      return text;
  }
}

bool InRange(const Setting& s, double v) { return v >= s.min && v <= s.max; }

// Whether `text` is an integer's digits, with a sign or not, of any length
// (one past int64 is out of range, not "not an integer").
bool AllDigits(absl::string_view text) {
  absl::ConsumePrefix(&text, "-");
  return !text.empty() &&
         text.find_first_not_of("0123456789") == absl::string_view::npos;
}

}  // namespace

const std::string& ResolveAlias(const Setting& s, const std::string& text) {
  for (const auto& [alias, choice] : s.aliases) {
    if (text == alias) return choice;
  }
  return text;
}

bool TakesBool(const Setting& s) {
  if (s.type == SettingType::kBool) return true;
  bool yes = false, no = false;
  for (const auto& alias : s.aliases) {
    yes = yes || alias.first == "true";
    no = no || alias.first == "false";
  }
  return s.type == SettingType::kChoice && yes && no;
}

std::string SettingName(const Setting& s, SettingStyle style) {
  if (style == SettingStyle::kKeyword) return s.name;
  return absl::StrCat("--", absl::StrReplaceAll(s.name, {{"_", "-"}}));
}

namespace {

// The settings that name a file (or the dataset) a command reads or writes.
bool NamesAFile(const Setting& s) {
  for (const char* name : {"output", "preview", "state_out", "resume",
                           "cache_dir", "data", "path", "input"}) {
    if (s.name == absl::string_view(name)) return true;
  }
  return false;
}

}  // namespace

bool IsByteCount(const Setting& s) {
  return s.name == absl::string_view("cache_bytes") ||
         s.name == absl::string_view("shard_bytes");
}

std::string EmptyValueProblem(const Setting& s, SettingStyle style,
                              absl::string_view text) {
  if (!text.empty()) return "";
  const bool file = NamesAFile(s);
  if (!file && s.type != SettingType::kChoice) return "";
  const bool flag = style == SettingStyle::kFlag;
  return absl::StrCat(SettingName(s, style), flag ? "" : " = ''",
                      " is given an empty value: name ",
                      file ? "a file" : "one of its choices", ", or leave ",
                      flag ? "the flag out" : "it out (None)");
}

const Setting* SettingValues::Find(absl::string_view name) const {
  for (const Setting* s : accepted_) {
    if (name == s->name) return s;
  }
  return nullptr;
}

void SettingValues::Set(const Setting& setting, std::string text) {
  given_[setting.name] = std::move(text);
}

bool SettingValues::Given(const Setting& setting) const {
  return given_.count(setting.name) > 0;
}

const std::string& SettingValues::Text(const Setting& setting) const {
  const auto it = given_.find(setting.name);
  if (it != given_.end()) return it->second;
  const Setting* accepted = Find(setting.name);
  return accepted != nullptr ? accepted->default_value : setting.default_value;
}

std::string SettingWithValue(const Setting& s, SettingStyle style,
                             const std::string& text) {
  if (style == SettingStyle::kFlag)
    return absl::StrCat(SettingName(s, style), " ", text);
  return absl::StrCat(SettingName(s, style), " = ", AsKeywordValue(s, text));
}

absl::Status SettingValues::Error(const Setting& setting,
                                  absl::string_view why) const {
  // A number of hundreds of digits is shown by its first 40; a list is
  // shown whole (at most 64 values are read).
  const std::string text =
      AllDigits(Text(setting)) ? Shortened(Text(setting)) : Text(setting);
  if (style_ == SettingStyle::kFlag) {
    return absl::InvalidArgumentError(
        absl::StrCat(SettingName(setting, style_), "=", text, ": ", why));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(SettingName(setting, style_), " = ",
                   AsKeywordValue(setting, text), ": ", why));
}

absl::StatusOr<bool> SettingValues::Bool(const Setting& setting) const {
  const std::string t = absl::AsciiStrToLower(Text(setting));
  if (t == "true" || t == "1") return true;
  if (t == "false" || t == "0") return false;
  return Error(setting, "is not true or false");
}

absl::StatusOr<int64_t> SettingValues::Int(const Setting& setting) const {
  int64_t v;
  if (!absl::SimpleAtoi(Text(setting), &v)) {
    // Digits past int64 are an integer out of range, and said so.
    return Error(setting, AllDigits(Text(setting))
                              ? absl::StrCat("must be ", Range(setting))
                              : "is not an integer");
  }
  if (!InRange(setting, static_cast<double>(v)))
    return Error(setting, absl::StrCat("must be ", Range(setting)));
  return v;
}

absl::StatusOr<uint64_t> SettingValues::Uint64(const Setting& setting) const {
  uint64_t v;
  if (!absl::SimpleAtoi(Text(setting), &v))
    return Error(setting, "is not an integer in 0..2^64-1");
  return v;
}

absl::StatusOr<uint64_t> SettingValues::Bytes(const Setting& setting) const {
  std::string digits = Text(setting);
  uint64_t scale = 1;
  if (!digits.empty()) {
    const size_t u =
        std::string("KMG").find(absl::ascii_toupper(digits.back()));
    if (u != std::string::npos) {
      scale = uint64_t{1} << (10 * (u + 1));
      digits.pop_back();
    }
  }
  constexpr uint64_t kMost = uint64_t{1} << 50;
  uint64_t n;
  const bool parsed = absl::SimpleAtoi(digits, &n);
  const absl::string_view stripped = absl::StripAsciiWhitespace(digits);
  if (!parsed && (!AllDigits(stripped) || absl::StartsWith(stripped, "-")))
    return Error(setting, "is not a size like 1G, 500M or 4096");
  if (!parsed || n > kMost / scale) {  // too many digits, or bytes
    return Error(setting, absl::StrCat("must be at most ", kMost >> 30,
                                       "G (2^50 bytes)"));
  }
  return n * scale;
}

absl::StatusOr<double> SettingValues::Float(const Setting& setting) const {
  double v;
  if (!absl::SimpleAtod(Text(setting), &v) || !std::isfinite(v))
    return Error(setting, "is not a finite number");
  if (!InRange(setting, v))
    return Error(setting, absl::StrCat("must be ", Range(setting)));
  return v;
}

absl::StatusOr<std::vector<double>> SettingValues::Floats(
    const Setting& setting) const {
  std::vector<double> out;
  const std::string& t = Text(setting);
  // Empty text would split into one empty part: it is the count's error.
  const std::vector<absl::string_view> parts =
      t.empty() ? std::vector<absl::string_view>() : absl::StrSplit(t, ',');
  for (absl::string_view part : parts) {
    double v;
    if (!absl::SimpleAtod(part, &v) || !std::isfinite(v))
      return Error(setting,
                   absl::StrCat("\"", part, "\" is not a finite number"));
    if (!InRange(setting, v)) {
      return Error(setting,
                   absl::StrCat("each value must be ", Range(setting)));
    }
    out.push_back(v);
  }
  const int n = static_cast<int>(out.size());
  if (t.empty() || n < setting.min_count || n > setting.max_count) {
    return Error(setting,
                 setting.min_count == setting.max_count
                     ? absl::StrCat("needs ", setting.min_count, " values")
                     : absl::StrCat("needs ", setting.min_count, " to ",
                                    setting.max_count, " values"));
  }
  return out;
}

absl::StatusOr<Size2> SettingValues::Size(const Setting& setting) const {
  std::vector<int64_t> sides;
  for (absl::string_view part : absl::StrSplit(Text(setting), ',')) {
    int64_t v;
    if (!absl::SimpleAtoi(part, &v)) {
      return Error(setting, AllDigits(part)
                                ? absl::StrCat("sides must be ", Range(setting))
                                : "is not N or H,W");
    }
    sides.push_back(v);
  }
  if (sides.size() > 2) return Error(setting, "is not N or H,W");
  for (int64_t v : sides) {
    if (!InRange(setting, static_cast<double>(v)))
      return Error(setting, absl::StrCat("sides must be ", Range(setting)));
  }
  return Size2{sides[0], sides.back()};
}

absl::StatusOr<std::string> SettingValues::Choice(
    const Setting& setting) const {
  if (setting.type != SettingType::kChoice) return Text(setting);
  const std::string& t = ResolveAlias(setting, Text(setting));
  for (const std::string& c : setting.choices) {
    if (t == c) return t;
  }
  return Error(setting, absl::StrCat("is not one of ",
                                     absl::StrJoin(setting.choices, ", ")));
}

std::string SettingHelp(const Setting& s, SettingStyle style) {
  std::string out = absl::StrCat("  ", SettingName(s, style));
  if (s.type == SettingType::kChoice)
    absl::StrAppend(&out, " ", absl::StrJoin(s.choices, "|"));
  if (!s.default_value.empty())
    absl::StrAppend(&out, " (default ", s.default_value, ")");
  std::vector<std::string> aliases;
  for (const auto& [alias, choice] : s.aliases)
    aliases.push_back(absl::StrCat(alias, " = ", choice));
  if (!aliases.empty())
    absl::StrAppend(&out, " (also ", absl::StrJoin(aliases, ", "), ")");
  absl::StrAppend(&out, "\n      ", s.help, "\n");
  return out;
}

}  // namespace fusednorm
