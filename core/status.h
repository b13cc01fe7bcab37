// Small status helpers: Debian's Abseil 20220623 has no ABSL_RETURN_IF_ERROR.
// Used by every layer above kernels (which never return a Status).
#ifndef FUSEDNORM_CORE_STATUS_H_
#define FUSEDNORM_CORE_STATUS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

// Evaluates `expr` (an absl::Status) and returns it from the enclosing function
// if not OK.
#define FUSEDNORM_RETURN_IF_ERROR(expr)                    \
  do {                                                     \
    const ::absl::Status fusednorm_status_ = (expr);       \
    if (!fusednorm_status_.ok()) return fusednorm_status_; \
  } while (0)

namespace fusednorm {

// Returns `status` with `prefix` put before its message (same code, same
// payloads); OK stays OK.
inline absl::Status PrefixStatus(const absl::Status& status,
                                 absl::string_view prefix) {
  if (status.ok()) return status;
  absl::Status out(status.code(), absl::StrCat(prefix, status.message()));
  status.ForEachPayload(
      [&out](absl::string_view url, const absl::Cord& payload) {
        out.SetPayload(url, payload);
      });
  return out;
}

// The fewest significant digits that read back as `v` (finite), and its
// decimal exponent in them (1.0000001: 8 and 0; 300: 1 and 2).
int ShortestDigits(double v, int* exponent);

// `v` in those digits, as printf's %g writes them (1.0000001, 0.5, 1e+39),
// whatever the program's locale; whole numbers below 10^16 in all their
// digits (200, not 2e+02).
std::string ShortestDouble(double v);

// `text`, or its first `most` bytes and "...": what a message shows of a
// value that may be long (a 5,000-digit number, a file's text).
std::string Shortened(absl::string_view text, size_t most = 40);

namespace status_internal {
// What a message shows of one part: a float or double in all the digits it
// needs (absl::StrCat's six would show 1.0000001 as 1), anything else as
// absl::StrCat does.
template <typename T>
const T& Part(const T& part) {
  return part;
}
inline std::string Part(double v) { return ShortestDouble(v); }
inline std::string Part(float v) { return ShortestDouble(v); }
}  // namespace status_internal

// What a message about per-channel values asks for: "(give 1 or 3)", or
// "(give 1)" for one channel.
inline std::string GiveValues(int channels) {
  return channels == 1 ? "(give 1)"
                       : absl::StrCat("(give 1 or ", channels, ")");
}

// InvalidArgument with a message made of `parts` (anything absl::StrCat
// takes; floating-point values in full).
template <typename... Parts>
absl::Status InvalidArgumentCat(const Parts&... parts) {
  return absl::InvalidArgumentError(
      absl::StrCat(status_internal::Part(parts)...));
}

}  // namespace fusednorm

#define FUSEDNORM_STATUS_CONCAT_INNER_(a, b) a##b
#define FUSEDNORM_STATUS_CONCAT_(a, b) FUSEDNORM_STATUS_CONCAT_INNER_(a, b)

// Evaluates `rexpr` (an absl::StatusOr<T>); returns its status if not OK, else
// moves the value into `lhs` (a declaration such as `auto x` or an existing
// variable).
#define FUSEDNORM_ASSIGN_OR_RETURN(lhs, rexpr) \
  FUSEDNORM_ASSIGN_OR_RETURN_IMPL_(            \
      FUSEDNORM_STATUS_CONCAT_(fusednorm_statusor_, __LINE__), lhs, rexpr)

#define FUSEDNORM_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                     \
  if (!statusor.ok()) return statusor.status();                \
  lhs = std::move(statusor).value()

#endif  // FUSEDNORM_CORE_STATUS_H_
