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

}  // namespace

Interruptible::Interruptible() {
  g_interrupted.store(false);
  struct sigaction action = {};
  action.sa_handler = &OnSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &old_int_);
  sigaction(SIGTERM, &action, &old_term_);
  sigaction(SIGHUP, &action, &old_hup_);
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
