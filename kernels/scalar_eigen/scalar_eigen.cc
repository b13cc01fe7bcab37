// The portable kernel: one pixel at a time with Eigen's fixed-size arrays,
// float16/bfloat16 narrowing by Eigen. The slowest row and the one every
// CPU runs.
#include "kernels/scalar_eigen/scalar_eigen.h"

#include <cstdint>
#include <cstring>

#include "Eigen/Core"
#include "kernels/formats.h"

namespace fusednorm {
namespace {

// Narrows a float to the output element type, round to nearest even.
template <typename T>
T Narrow(float v);
template <>
float Narrow<float>(float v) {
  return v;
}
struct F16 {
  uint16_t bits;
};
struct BF16 {
  uint16_t bits;
};
template <>
F16 Narrow<F16>(float v) {
  return F16{Eigen::numext::bit_cast<uint16_t>(Eigen::half(v))};
}
template <>
BF16 Narrow<BF16>(float v) {
  return BF16{Eigen::numext::bit_cast<uint16_t>(Eigen::bfloat16(v))};
}

template <typename T>
void Run(const KernelConstants& k, const KernelArgs& a) {
  const int64_t H = a.height, W = a.width;
  const int C = a.channels;
  const int stored = StoredChannels(k.layout, C);
  const bool fast = k.mode == Mode::kFast;
  const Eigen::Array4f mul = Eigen::Map<const Eigen::Array4f>(k.mul);
  const Eigen::Array4f sub = Eigen::Map<const Eigen::Array4f>(k.sub);
  // No alignment is promised for the output: values are stored bytewise.
  uint8_t* out = static_cast<uint8_t*>(a.output);
  for (int64_t h = 0; h < H; ++h) {
    const uint8_t* in_row = a.input + h * a.input_row_stride;
    for (int64_t w = 0; w < W; ++w) {
      const uint8_t* px = in_row + (a.flip ? W - 1 - w : w) * C;
      // Channels beyond C (pad lanes) and erased pixels are +0.0.
      Eigen::Array4f v = Eigen::Array4f::Zero();
      if (!ErasesPixel(a.erase, h, w)) {
        Eigen::Array4f x = Eigen::Array4f::Zero();
        for (int c = 0; c < C; ++c) x[c] = px[c];
        if (fast) {
          v.head(C) = (x * mul - sub).head(C);
        } else {
          for (int c = 0; c < C; ++c) v[c] = k.table[c][px[c]];
        }
      }
      for (int c = 0; c < stored; ++c) {
        const T narrowed = Narrow<T>(v[c]);
        const int64_t index = OutputIndex(k.layout, H, W, C, c, h, w);
        std::memcpy(out + index * sizeof(T), &narrowed, sizeof(T));
      }
    }
  }
}

bool Always() { return true; }
bool CoversAll(DType, Layout, Mode, int channels) {
  return channels >= 1 && channels <= kMaxChannels;
}

}  // namespace

void ScalarEigenKernel(const KernelConstants& constants,
                       const KernelArgs& args) {
  switch (constants.dtype) {
    case DType::kFloat32:
      return Run<float>(constants, args);
    case DType::kFloat16:
      return Run<F16>(constants, args);
    case DType::kBFloat16:
      return Run<BF16>(constants, args);
  }
}

KernelInfo ScalarEigenKernelInfo() {
  return {"scalar_eigen", "none", 0, &Always, &CoversAll, &ScalarEigenKernel};
}

}  // namespace fusednorm
