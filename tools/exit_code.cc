// Usage errors as a Status payload, and the exit status (exit_code.h).
#include "tools/exit_code.h"

#include "absl/strings/cord.h"
#include "core/status.h"

namespace fusednorm {
namespace {

// The payload that marks a usage error (its value is not read).
constexpr absl::string_view kUsagePayload = "fusednorm.tools/usage";

}  // namespace

absl::Status UsageError(absl::string_view message) {
  return AsUsageError(absl::InvalidArgumentError(message));
}

absl::Status AsUsageError(const absl::Status& status,
                          absl::string_view prefix) {
  if (status.ok()) return status;
  absl::Status usage = PrefixStatus(status, prefix);
  usage.SetPayload(kUsagePayload, absl::Cord());
  return usage;
}

int ExitCode(const absl::Status& status) {
  if (status.ok()) return 0;
  if (status.code() == absl::StatusCode::kCancelled) return 130;  // Ctrl-C
  return status.GetPayload(kUsagePayload).has_value() ? 2 : 1;
}

}  // namespace fusednorm
