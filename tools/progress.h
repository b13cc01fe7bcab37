// Progress lines of a long command on stderr: a bar redrawn in place when
// stderr is a terminal, otherwise one line a second (and one at the end).
#ifndef FUSEDNORM_TOOLS_PROGRESS_H_
#define FUSEDNORM_TOOLS_PROGRESS_H_

#include <chrono>
#include <cstddef>
#include <cstdio>

namespace fusednorm {

class Progress {
 public:
  // `total` batches are expected.
  Progress(FILE* err, size_t total);

  // Counts one more batch of `images` images and reports.
  void Batch(size_t images);
  // Ends the bar's line (terminal only).
  void Finish();

  size_t images() const { return images_; }
  // Seconds since construction.
  double seconds() const;

 private:
  FILE* err_;
  bool tty_;
  size_t total_, done_ = 0, images_ = 0;
  std::chrono::steady_clock::time_point start_, last_line_;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_TOOLS_PROGRESS_H_
