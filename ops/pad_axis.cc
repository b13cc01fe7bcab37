// PadAxis (pad_axis.h): a mirrored period, or np.pad 1.x's reflecting rounds
// recorded and then undone.
#include "ops/pad_axis.h"

#include <algorithm>
#include <atomic>

namespace fusednorm {
namespace {

std::atomic<bool> numpy1_padding{false};

}  // namespace

void SetNumpy1Padding(bool numpy1) { numpy1_padding = numpy1; }
bool Numpy1Padding() { return numpy1_padding; }

PadAxis::PadAxis(int64_t n, int64_t before, int64_t after, PadMode mode,
                 bool numpy1)
    : n_(n), before_(before), after_(after), mode_(mode) {
  if ((mode != PadMode::kReflect && mode != PadMode::kSymmetric) || n < 2 ||
      !numpy1) {
    return;
  }
  // np.pad 1.x's _set_reflect_both, round by round: both sides take the
  // length filled before the round.
  const int64_t length = before + n + after;
  const int64_t edge = mode == PadMode::kSymmetric ? 0 : 1;
  for (int64_t lo = before, hi = before + n; lo > 0 || hi < length;) {
    const int64_t chunk = hi - lo - edge;
    const Round r{lo, hi, std::min(chunk, lo), std::min(chunk, length - hi)};
    rounds_.push_back(r);
    lo -= r.left;
    hi += r.right;
  }
}

int64_t PadAxis::Source(int64_t p) const {
  if (p < 0 || p >= before_ + n_ + after_) return -1;
  if (p >= before_ && p < before_ + n_) return p - before_;
  if (mode_ == PadMode::kConstant) return -1;
  if (mode_ == PadMode::kEdge || n_ == 1) return p < before_ ? 0 : n_ - 1;
  // Symmetric mirrors about the edge between two values, reflect about
  // the edge value itself.
  const int64_t shift = mode_ == PadMode::kSymmetric ? 1 : 0;
  if (rounds_.empty()) {  // NumPy 2: the mirrored axis, repeated
    const int64_t period = 2 * n_ - 2 + 2 * shift;
    const int64_t r = ((p - before_) % period + period) % period;
    return r < n_ ? r : period - r - shift;
  }
  for (auto r = rounds_.rbegin(); r != rounds_.rend(); ++r) {
    if (p < r->lo && p >= r->lo - r->left) {
      p = 2 * r->lo - p - shift;
    } else if (p >= r->hi && p < r->hi + r->right) {
      p = 2 * r->hi + shift - 2 - p;
    }
  }
  return p - before_;
}

}  // namespace fusednorm
