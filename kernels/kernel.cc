#include "kernels/kernel.h"

namespace fusednorm {

const char* DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "float32";
    case DType::kFloat16:
      return "float16";
    case DType::kBFloat16:
      return "bfloat16";
  }
  return "?";
}

const char* LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kHWC:
      return "hwc";
    case Layout::kHWC4:
      return "hwc4";
    case Layout::kCHW:
      return "chw";
  }
  return "?";
}

const char* ModeName(Mode mode) {
  return mode == Mode::kFast ? "fast" : "exact";
}

void MakeKernelConstants(DType dtype, Layout layout, Mode mode,
                         const float* mean, const float* std,
                         KernelConstants* k) {
  k->dtype = dtype;
  k->layout = layout;
  k->mode = mode;
  for (int c = 0; c < kMaxChannels; ++c) {
    k->mean[c] = mean[c];
    k->std[c] = std[c];
    k->mul[c] = static_cast<float>(1.0 / (255.0 * static_cast<double>(std[c])));
    k->sub[c] = static_cast<float>(static_cast<double>(mean[c]) / std[c]);
    for (int x = 0; x < 256; ++x) {
      // torchvision: ToTensor divides by 255 in float32, Normalize subtracts
      // then divides.
      const float t = static_cast<float>(x) / 255.0f;
      k->table[c][x] = (t - mean[c]) / std[c];
    }
  }
}

}  // namespace fusednorm
