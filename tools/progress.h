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
  // `total` steps are expected, named `unit` ("batches", "shards"), each
  // of some items named `items` ("images", "samples") for the rate.
  Progress(FILE* err, size_t total, const char* unit = "batches",
           const char* items = "images");

  // Counts one more step of `images` items and reports.
  void Batch(size_t images);
  // Ends the bar's line (terminal only).
  void Finish();

  size_t images() const { return images_; }
  // Seconds since construction.
  double seconds() const;

 private:
  FILE* err_;
  const char* unit_;
  const char* items_;
  bool tty_;
  size_t total_, done_ = 0, images_ = 0;
  std::chrono::steady_clock::time_point start_, last_line_;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_TOOLS_PROGRESS_H_
