// Progress (progress.h).
#include "tools/progress.h"

#include <unistd.h>

#include <string>

namespace fusednorm {

Progress::Progress(FILE* err, size_t total, const char* unit, const char* items)
    : err_(err),
      unit_(unit),
      items_(items),
      tty_(isatty(fileno(err)) != 0),
      total_(total),
      start_(std::chrono::steady_clock::now()),
      last_line_(start_) {}

double Progress::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start_)
      .count();
}

void Progress::Batch(size_t images) {
  ++done_;
  images_ += images;
  const auto now = std::chrono::steady_clock::now();
  const double rate = images_ / seconds();
  if (tty_) {
    const int bar = static_cast<int>(30.0 * done_ / total_);
    std::fprintf(
        err_, "\r[%s%s] %zu/%zu %s, %.0f %s/s", std::string(bar, '=').c_str(),
        std::string(30 - bar, ' ').c_str(), done_, total_, unit_, rate, items_);
  } else if (std::chrono::duration<double>(now - last_line_).count() >= 1.0 ||
             done_ == total_) {
    std::fprintf(err_, "%zu/%zu %s, %.0f %s/s\n", done_, total_, unit_, rate,
                 items_);
    last_line_ = now;
  }
}

void Progress::Finish() {
  if (tty_) std::fprintf(err_, "\n");
}

}  // namespace fusednorm
