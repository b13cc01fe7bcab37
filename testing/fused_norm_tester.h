// A fluent tester for one FusedNormalization configuration on one kernel
// variant, for example
//
//   FusedNormTester().kernel("scalar_eigen").height(3).width(17)
//       .channels(3).input_padding(61).dtype(DType::kFloat16)
//       .layout(Layout::kCHW).flip(true).Test();
//
// Test() fills a guarded input (read-only, a PROT_NONE page after it) with
// random bytes, poisons a guarded output of exactly OutputBytes(), runs
// Apply(), and checks every output byte against the naive reference
// (testing/reference.h):
//
// - exact mode: bit-identical to torchvision's float32 order, narrowed to
//   float16/bfloat16 by round to nearest even;
// - fast mode: bit-identical to the float32 formula float(x) * mul - sub (two
//   roundings), narrowed likewise, and that formula within kFastModeBound of
//   the real result.
//
// Pad lanes and erased values must be +0.0, and no byte around the output may
// change.
#ifndef FUSEDNORM_TESTING_FUSED_NORM_TESTER_H_
#define FUSEDNORM_TESTING_FUSED_NORM_TESTER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/kernel.h"
#include "ops/fused_normalization.h"
#include "ops/presets.h"
#include "testing/reference.h"

namespace fusednorm {
namespace testing_ref {

// Fast mode's documented error against the real (double) result, per value:
//   |y - exact| <= kFastModeBound * (|x / (255 std)| + |mean / std|).
// Derivation: mul and sub are each rounded once to float (relative error u =
// 2^-24), float(x) * mul rounds once more and the subtraction once more;
// summing the first-order terms gives (2u + u) |x mul| + (u + u) |sub| <= 3u
// (|x mul| + |sub|); 4u leaves margin for the second-order terms. The bound is
// absolute because of cancellation near y = 0.
constexpr double kFastModeBound = 4.0 / 16777216.0;

class FusedNormTester {
 public:
  FusedNormTester& kernel(std::string id) {
    kernel_ = std::move(id);
    return *this;
  }
  FusedNormTester& height(int64_t v) {
    height_ = v;
    return *this;
  }
  FusedNormTester& width(int64_t v) {
    width_ = v;
    return *this;
  }
  FusedNormTester& channels(int v) {
    channels_ = v;
    return *this;
  }
  // Extra bytes at the end of every input row (row stride = width * channels +
  // padding).
  FusedNormTester& input_padding(int64_t v) {
    input_padding_ = v;
    return *this;
  }
  // Where the input starts: -1 (default) ends it right at the guard page, so
  // any read past its last byte faults; 0..63 starts it at that offset from a
  // 64-byte boundary instead (its end then up to 63 readable bytes before the
  // guard page).
  FusedNormTester& input_alignment(int v) {
    input_alignment_ = v;
    return *this;
  }
  // The same for the output; with 0..63 the bytes between its end and the
  // guard page are poisoned and must stay unchanged.
  FusedNormTester& output_alignment(int v) {
    output_alignment_ = v;
    return *this;
  }
  FusedNormTester& dtype(DType v) {
    dtype_ = v;
    return *this;
  }
  FusedNormTester& layout(Layout v) {
    layout_ = v;
    return *this;
  }
  FusedNormTester& mode(Mode v) {
    mode_ = v;
    return *this;
  }
  FusedNormTester& flip(bool v) {
    flip_ = v;
    return *this;
  }
  FusedNormTester& erase(EraseRect v) {
    erase_ = v;
    return *this;
  }
  // Normalization: a preset, or custom mean/std (one value per channel).
  FusedNormTester& preset(Preset v) {
    preset_ = v;
    mean_.clear();
    std_.clear();
    return *this;
  }
  FusedNormTester& mean_std(std::vector<float> mean, std::vector<float> std) {
    mean_ = std::move(mean);
    std_ = std::move(std);
    return *this;
  }
  // Forces non-temporal (true) or regular (false) stores.
  FusedNormTester& nontemporal(bool v) {
    nontemporal_ = v;
    return *this;
  }
  // Exact mode through IEEE divisions even where the CPU fuses multiply-adds
  // (AllowExactByFmaForTesting); the default lets the kernels use the checked
  // reciprocal form there.
  FusedNormTester& exact_by_division(bool v) {
    exact_by_division_ = v;
    return *this;
  }
  FusedNormTester& seed(uint32_t v) {
    seed_ = v;
    return *this;
  }

  // Runs the configuration and records gtest failures; returns the output
  // bytes, or nothing when the kernel does not cover the configuration (then
  // Create or Apply must refuse it as Unimplemented).
  std::vector<uint8_t> Test() const;

  // One line naming every setting, for failure messages.
  std::string Describe() const;

 private:
  // The op's options for this configuration; fills ref's mean and std from
  // those options (SetReferenceNormalization), not from the op.
  FusedNormalizationOptions Options(RefInput* ref) const;

  std::string kernel_ = "scalar_eigen";
  int64_t height_ = 1, width_ = 1;
  int channels_ = 3;
  int64_t input_padding_ = 0;
  int input_alignment_ = -1;
  int output_alignment_ = -1;
  DType dtype_ = DType::kFloat32;
  Layout layout_ = Layout::kHWC;
  Mode mode_ = Mode::kFast;
  bool flip_ = false;
  EraseRect erase_;
  Preset preset_ = Preset::kNoNorm;
  std::vector<float> mean_, std_;
  bool nontemporal_ = false;
  bool exact_by_division_ = false;
  uint32_t seed_ = 1;
};

}  // namespace testing_ref
}  // namespace fusednorm

#endif  // FUSEDNORM_TESTING_FUSED_NORM_TESTER_H_
