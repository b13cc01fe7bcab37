// Ctrl-C (SIGINT), SIGTERM and SIGHUP (the terminal closed) for the
// commands: while an Interruptible is alive, those signals set a flag
// instead of killing the process at once, so that a command can cancel its
// workers (each finishes the sample it is on) and remove its partial files,
// then exit with status 130. A second signal kills the process as usual; a
// signal ignored when the Interruptible is made (under nohup, say) stays
// ignored.
#ifndef FUSEDNORM_TOOLS_INTERRUPT_H_
#define FUSEDNORM_TOOLS_INTERRUPT_H_

#include <signal.h>

#include "absl/status/status.h"

namespace fusednorm {

class Interruptible {
 public:
  Interruptible();
  ~Interruptible();
  Interruptible(const Interruptible&) = delete;
  Interruptible& operator=(const Interruptible&) = delete;

  // Whether a signal arrived since construction.
  static bool interrupted();
  // Cancelled("interrupted"): the status of a command that stopped for one.
  static absl::Status Status();

 private:
  struct sigaction old_int_, old_term_, old_hup_;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_TOOLS_INTERRUPT_H_
