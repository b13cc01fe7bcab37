// Settings: every value a user can set, described once -- name, type,
// default, allowed values and help -- and read the same way whether it came
// from a command-line flag or a Python keyword.
//
// A Setting is a row of a table (ops/op_settings.h, pipeline/
// recipe_settings.h, tools/command_settings.h); an interface lists the rows
// it accepts. The command line turns "--batch-size=64" into the text "64";
// Python turns the keyword batch_size=64 into the same text (after checking
// its Python type). SettingValues then parses and validates that text, and
// its errors name the setting as the user wrote it ("--batch-size" or
// "batch_size") together with the value.
#ifndef FUSEDNORM_CORE_SETTINGS_H_
#define FUSEDNORM_CORE_SETTINGS_H_

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/geometry.h"
#include "core/names.h"

namespace fusednorm {

enum class SettingType {
  kBool,    // true|false (a bare flag is true)
  kInt,     // int64 in [min, max]
  kUint64,  // uint64 (seeds)
  kFloat,   // finite double in [min, max]
  kFloats,  // comma-separated finite doubles, each in [min, max]
  kText,    // any text (paths, patterns, ids)
  kChoice,  // one of `choices`
  kSize,    // N (square) or H,W, each side in [min, max]
};

inline constexpr double kNoLimit = std::numeric_limits<double>::infinity();

struct Setting {
  const char* name;  // snake_case: the Python keyword; flags use dashes
  SettingType type;
  // The default in text form; empty: unset (the reader decides).
  std::string default_value;
  const char* help;
  std::vector<std::string> choices = {};   // kChoice
  double min = -kNoLimit, max = kNoLimit;  // kInt, kFloat, kFloats, kSize
  int min_count = 1, max_count = 1;        // kFloats: how many values
  // kChoice: other spellings of some choices, {alias, choice}, e.g.
  // {"true", "mlock"} for a row that once was a bool. A row with both
  // "true" and "false" aliases also takes what a bool row takes: a bare
  // flag (true) and a Python bool.
  std::vector<std::pair<std::string, std::string>> aliases = {};
};

// The choice `text` names for row `s`: what an alias stands for, else the
// text itself.
const std::string& ResolveAlias(const Setting& s, const std::string& text);

// Whether the row takes bool values: kBool, or a choice with "true" and
// "false" aliases.
bool TakesBool(const Setting& s);

// A row's choices from an enum's names (core/names.h).
template <typename E>
std::vector<std::string> Choices(absl::Span<const Named<E>> names) {
  return NamesOf(names);
}

// How errors name a setting: as a flag or as a keyword.
enum class SettingStyle { kFlag, kKeyword };

// "--batch-size" or "batch_size".
std::string SettingName(const Setting& s, SettingStyle style);

// The setting with a value, as the user would write it: "--pinned cuda" or
// "pinned = \"cuda\"".
std::string SettingWithValue(const Setting& s, SettingStyle style,
                             const std::string& text);

// Whether `s` is a byte count read by SettingValues::Bytes (a kText
// setting: N with an optional K, M or G), so that a plain integer is one.
bool IsByteCount(const Setting& s);

// What is wrong with giving `text` for `s` at all, or "" when nothing is:
// an empty value for a setting that names a file or the dataset (a shell
// variable left unset would start over, write nothing or read the
// synthetic dataset) or for a choice. Flags and keywords both refuse it.
std::string EmptyValueProblem(const Setting& s, SettingStyle style,
                              absl::string_view text);

// The values given for a list of accepted settings, in text form.
class SettingValues {
 public:
  SettingValues(std::vector<const Setting*> accepted, SettingStyle style)
      : accepted_(std::move(accepted)), style_(style) {}

  // The accepted setting named `name` (snake_case), or nullptr.
  const Setting* Find(absl::string_view name) const;
  // Records `text` for `setting` (one of the accepted; a second value
  // replaces the first).
  void Set(const Setting& setting, std::string text);
  bool Given(const Setting& setting) const;
  // The given text, else the default of the accepted row of that name (an
  // interface may accept a copy of a row with another default), else the
  // row's own default. Both may be empty.
  const std::string& Text(const Setting& setting) const;

  // Typed values of the given text or the default: InvalidArgument naming
  // the setting and the value when it does not parse or is out of range.
  absl::StatusOr<bool> Bool(const Setting& setting) const;
  absl::StatusOr<int64_t> Int(const Setting& setting) const;
  absl::StatusOr<uint64_t> Uint64(const Setting& setting) const;
  // A size in bytes: N with an optional K, M or G (powers of 1024), at
  // most 2^50.
  absl::StatusOr<uint64_t> Bytes(const Setting& setting) const;
  absl::StatusOr<double> Float(const Setting& setting) const;
  absl::StatusOr<std::vector<double>> Floats(const Setting& setting) const;
  absl::StatusOr<Size2> Size(const Setting& setting) const;
  // kChoice: the choice the text names (an alias resolved), checked
  // against the choices; kText: the text.
  absl::StatusOr<std::string> Choice(const Setting& setting) const;
  // A kChoice setting as its enum value.
  template <typename E>
  absl::StatusOr<E> Enum(const Setting& setting,
                         absl::Span<const Named<E>> names) const {
    return ParseNamed(names, SettingName(setting, style_),
                      ResolveAlias(setting, Text(setting)));
  }

  // InvalidArgument "NAME = VALUE: WHY" for this setting.
  absl::Status Error(const Setting& setting, absl::string_view why) const;

  const std::vector<const Setting*>& accepted() const { return accepted_; }
  SettingStyle style() const { return style_; }

 private:
  std::vector<const Setting*> accepted_;
  SettingStyle style_;
  std::map<std::string, std::string> given_;
};

// The help lines of one setting: its flag or keyword, default, allowed
// values and description.
std::string SettingHelp(const Setting& setting, SettingStyle style);

}  // namespace fusednorm

#endif  // FUSEDNORM_CORE_SETTINGS_H_
