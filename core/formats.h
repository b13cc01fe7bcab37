// The output formats every layer speaks of: element types, layouts, numeric
// modes, and the channel limit. Plain enums and constexpr helpers only, so
// that kernel bodies built with ISA flags may include it (names and parsing
// are in core/format_names.h).
#ifndef FUSEDNORM_CORE_FORMATS_H_
#define FUSEDNORM_CORE_FORMATS_H_

#include <cstddef>

namespace fusednorm {

enum class DType { kFloat32, kFloat16, kBFloat16 };
// Output layouts (row strides are derived, never passed in):
//   kHWC   C values per pixel; row stride W*C*sizeof(T)
//   kHWC4  4 values per pixel, channels >= C are +0.0; row W*4*sizeof(T)
//   kCHW   planar; plane stride H*W*sizeof(T), row stride W*sizeof(T)
enum class Layout { kHWC, kHWC4, kCHW };
enum class Mode {
  kFast,              // y = float(x) * mul[c] - sub[c], two roundings, no FMA
  kTorchvisionExact,  // y = (x / 255.f - mean[c]) / std[c], each step rounded
                      // to float32
};

constexpr int kMaxChannels = 4;

// Returns the size in bytes of one element of `dtype`.
constexpr size_t DTypeSize(DType dtype) {
  return dtype == DType::kFloat32 ? 4 : 2;
}

// Returns the number of values per pixel the output layout stores for
// `channels` channels.
constexpr int StoredChannels(Layout layout, int channels) {
  return layout == Layout::kHWC4 ? 4 : channels;
}

}  // namespace fusednorm

#endif  // FUSEDNORM_CORE_FORMATS_H_
