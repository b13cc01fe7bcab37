// One axis of a pad as torchvision pads PIL images: a constant (Pillow's
// ImageOps.expand) or NumPy's np.pad in edge, reflect or symmetric mode.
//
// Reflect and symmetric pads longer than the axis differ between NumPy
// versions. NumPy 2.0 and later repeat the mirrored axis with its period
// (2(n - 1) for reflect, 2n for symmetric). NumPy 1.x reflects in rounds:
// each round adds, on each side, at most the length filled so far (less one
// for reflect), mirrored about the current edge, so when one side's pad is
// much longer than the other's the result is not periodic; Source() then
// undoes the rounds one by one, last first. Which one a process gets is the
// installed NumPy's (SetNumpy1Padding: the Python module sets it; the
// command line has NumPy 2's). An axis of one value pads as edge does.
#ifndef FUSEDNORM_OPS_PAD_AXIS_H_
#define FUSEDNORM_OPS_PAD_AXIS_H_

#include <cstdint>
#include <vector>

namespace fusednorm {

enum class PadMode { kConstant, kEdge, kReflect, kSymmetric };

// Whether reflecting pads made from now on follow NumPy 1.x's rounds
// (false: NumPy 2's periods, the default).
void SetNumpy1Padding(bool numpy1);
bool Numpy1Padding();

class PadAxis {
 public:
  // `n` >= 1 values padded by `before` and `after` (>= 0); `numpy1`: in
  // NumPy 1.x's rounds.
  PadAxis(int64_t n, int64_t before, int64_t after, PadMode mode, bool numpy1);

  // The value index in 0..n-1 that position `p` of the padded axis (0 is
  // the first padded position) shows; -1 where a constant pad shows its
  // fill, and for a position outside the padded axis.
  int64_t Source(int64_t p) const;

 private:
  struct Round {
    int64_t lo, hi;       // the filled positions before the round
    int64_t left, right;  // what it adds on each side
  };
  int64_t n_, before_, after_;
  PadMode mode_;
  std::vector<Round> rounds_;  // NumPy 1.x's reflect and symmetric
};

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_PAD_AXIS_H_
