// How a command's absl::Status becomes the program's exit status, in one
// place:
//
//   0  OK
//   2  a usage error: a bad flag or flag value (marked where it is found,
//      with UsageError or AsUsageError)
//   1  any other error: an unreadable input, bad file contents, a failed
//      write, memory that ran out
//   130  interrupted (Ctrl-C or SIGTERM), after the workers stopped and
//      partial files were removed
#ifndef FUSEDNORM_TOOLS_EXIT_CODE_H_
#define FUSEDNORM_TOOLS_EXIT_CODE_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace fusednorm {

// Returns InvalidArgument with `message`, marked as a usage error.
absl::Status UsageError(absl::string_view message);

// Returns `status` (same code) with `prefix` before its message, marked as a
// usage error; OK stays OK.
absl::Status AsUsageError(const absl::Status& status,
                          absl::string_view prefix = "");

// Returns 0, 1, 2 or 130 for `status`, as above.
int ExitCode(const absl::Status& status);

}  // namespace fusednorm

#endif  // FUSEDNORM_TOOLS_EXIT_CODE_H_
