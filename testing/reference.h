// An independent, deliberately naive reference for FusedNormalization:
// torchvision's steps one at a time (ToTensor, flip, Normalize, erase), each a
// full pass over a CHW tensor, in double and in float32. It shares no code with
// the kernels: its own constants, its own float16/bfloat16 rounding, its own
// layout encoding.
#ifndef FUSEDNORM_TESTING_REFERENCE_H_
#define FUSEDNORM_TESTING_REFERENCE_H_

#include <cstdint>
#include <vector>

#include "kernels/kernel.h"

namespace fusednorm {
namespace testing_ref {

struct RefInput {
  const uint8_t* pixels = nullptr;  // HWC
  int64_t height = 0, width = 0;
  int channels = 0;
  int64_t row_stride = 0;
  std::vector<float> mean, std;  // one per channel
  bool flip = false;
  EraseRect erase;
};

// A CHW tensor: value(c, h, w) = data[(c * height + h) * width + w].
template <typename T>
struct Chw {
  int64_t channels = 0, height = 0, width = 0;
  std::vector<T> data;
  T& at(int64_t c, int64_t h, int64_t w) {
    return data[(c * height + h) * width + w];
  }
  const T& at(int64_t c, int64_t h, int64_t w) const {
    return data[(c * height + h) * width + w];
  }
};

// torchvision order in float32: x / 255.f, flip, (t - mean) / std, erase with
// 0.
Chw<float> TorchvisionFloat(const RefInput& in);

// Fast mode's formula in float32: float(x) * mul - sub, mul = float(1 / (255
// std)), sub = float(mean / std) (computed in double, rounded once), then flip
// and erase.
Chw<float> FastFloat(const RefInput& in);

// The exact real-number result, in double: (x / 255 - mean) / std, flip, erase.
Chw<double> Exact(const RefInput& in);

// Round to nearest even, by bit manipulation (finite inputs; overflow goes to
// infinity).
uint16_t FloatToHalfBits(float f);
uint16_t FloatToBFloat16Bits(float f);
float HalfBitsToFloat(uint16_t h);
float BFloat16BitsToFloat(uint16_t b);

// Encodes a float32 result into the bytes fusednorm's `dtype`/`layout` output
// holds (pad lanes +0.0).
std::vector<uint8_t> Encode(const Chw<float>& t, DType dtype, Layout layout);

// Reads element (c, h, w) back from an encoded output as float.
float Decode(const std::vector<uint8_t>& bytes, int64_t height, int64_t width,
             int channels, DType dtype, Layout layout, int c, int64_t h,
             int64_t w);

}  // namespace testing_ref
}  // namespace fusednorm

#endif  // FUSEDNORM_TESTING_REFERENCE_H_
