// A fluent tester for one FusedNormalization configuration on one kernel
// variant:
//
//   FusedNormTester().kernel("scalar_eigen").height(3).width(17).channels(3)
//       .input_padding(61).dtype(DType::kFloat16).layout(Layout::kCHW).flip(true).Test();
//
// Test() fills a guarded input (PROT_NONE page right after its last byte, then
// read-only) with random bytes, poisons a guarded output of exactly
// OutputBytes(), runs Apply(), and checks every output byte against the naive
// reference (testing/reference.h):
//   - exact mode: bit-identical to torchvision's float32 order, narrowed by
//   round to
//     nearest even for float16/bfloat16;
//   - fast mode: bit-identical to the float32 formula float(x) * mul - sub (two
//   roundings),
//     narrowed likewise; and that formula is within kFastModeBound of the real
//     result.
// Pad lanes and erased values must be +0.0; the bytes before the output must be
// untouched.
#ifndef FUSEDNORM_TESTING_FUSED_NORM_TESTER_H_
#define FUSEDNORM_TESTING_FUSED_NORM_TESTER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/kernel.h"
#include "ops/presets.h"

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
  // Starts the input at an odd address (one byte into its buffer; the end stays
  // guarded).
  FusedNormTester& unaligned_input(bool v) {
    unaligned_input_ = v;
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
  FusedNormTester& seed(uint32_t v) {
    seed_ = v;
    return *this;
  }

  // Runs the configuration and records gtest failures; returns the output
  // bytes, or nothing when the kernel does not cover the configuration (then
  // Create or Apply must refuse it as Unimplemented).
  std::vector<uint8_t> Test() const;

 private:
  std::string kernel_ = "scalar_eigen";
  int64_t height_ = 1, width_ = 1;
  int channels_ = 3;
  int64_t input_padding_ = 0;
  bool unaligned_input_ = false;
  DType dtype_ = DType::kFloat32;
  Layout layout_ = Layout::kHWC;
  Mode mode_ = Mode::kFast;
  bool flip_ = false;
  EraseRect erase_;
  Preset preset_ = Preset::kNoNorm;
  std::vector<float> mean_, std_;
  bool nontemporal_ = false;
  uint32_t seed_ = 1;
};

}  // namespace testing_ref
}  // namespace fusednorm

#endif  // FUSEDNORM_TESTING_FUSED_NORM_TESTER_H_
