// Interruptible (interrupt.h).
#include "tools/interrupt.h"

#include <atomic>

namespace fusednorm {
namespace {

std::atomic<bool> g_interrupted{false};

void OnSignal(int sig) {
  g_interrupted.store(true);
  signal(sig, SIG_DFL);  // a second one ends the process
}

// Handles `sig` unless it is ignored (nohup's SIGHUP, SIGINT of a
// background job of a shell): ignored, it stays so. The old action goes
// to *old.
void Catch(int sig, struct sigaction* old) {
  sigaction(sig, nullptr, old);
  if (old->sa_handler == SIG_IGN) return;
  struct sigaction action = {};
  action.sa_handler = &OnSignal;
  sigemptyset(&action.sa_mask);
  sigaction(sig, &action, nullptr);
}

}  // namespace

Interruptible::Interruptible() {
  g_interrupted.store(false);
  Catch(SIGINT, &old_int_);
  Catch(SIGTERM, &old_term_);
  Catch(SIGHUP, &old_hup_);
}

Interruptible::~Interruptible() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  sigaction(SIGHUP, &old_hup_, nullptr);
}

bool Interruptible::interrupted() { return g_interrupted.load(); }

absl::Status Interruptible::Status() {
  return absl::CancelledError("interrupted");
}

}  // namespace fusednorm
