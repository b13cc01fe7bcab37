// ImageOps' tables and ImageEnhance.Sharpness (enhance.h), with Python's
// arithmetic where ImageOps computes a table in Python.
#include "ops/enhance.h"

#include <algorithm>
#include <vector>

#include "core/status.h"
#include "ops/alpha.h"
#include "ops/image_blocks.h"

namespace fusednorm {
namespace {

// Pixels per kernel call: a call's counts stay below 2^32 (its histogram
// is added to 64-bit totals).
constexpr int64_t kBlockPixels = int64_t{1} << 30;

ByteTable Identity() {
  ByteTable t;
  for (int i = 0; i < 256; ++i) t[i] = static_cast<uint8_t>(i);
  return t;
}

// Image.point with tables[c * 256 + v] for channel c.
absl::Status LookUp(const AugmentKernelInfo& kernel, const ImageView& input,
                    const std::vector<uint8_t>& tables, Image* output) {
  const int C = input.channels;
  FUSEDNORM_RETURN_IF_ERROR(ShapeImage(input.height, input.width, C, output));
  ForEachBlock(input, kBlockPixels,
               [&](const uint8_t* in, int64_t offset, int64_t pixels) {
                 kernel.lookup(in, output->pixels.data() + offset * C, pixels,
                               C, tables.data());
               });
  return absl::OkStatus();
}

// The same table for every channel.
absl::Status LookUpAll(const AugmentKernelInfo& kernel, const char* op,
                       const ImageView& input, const ByteTable& table,
                       Image* output) {
  FUSEDNORM_RETURN_IF_ERROR(CheckTableChannels(op, input.channels));
  std::vector<uint8_t> tables;
  for (int c = 0; c < input.channels; ++c) {
    tables.insert(tables.end(), table.begin(), table.end());
  }
  return LookUp(kernel, input, tables, output);
}

// A table per channel made from the channel's histogram.
absl::Status LookUpByHistogram(const AugmentKernelInfo& kernel, const char* op,
                               const ImageView& input,
                               ByteTable (*make)(const uint64_t*),
                               Image* output) {
  FUSEDNORM_RETURN_IF_ERROR(CheckTableChannels(op, input.channels));
  const int C = input.channels;
  std::vector<uint64_t> histogram(C * 256, 0);
  std::vector<uint32_t> block(C * 256);
  ForEachBlock(input, kBlockPixels,
               [&](const uint8_t* in, int64_t, int64_t pixels) {
                 std::fill(block.begin(), block.end(), 0u);
                 kernel.histogram(in, pixels, C, block.data());
                 for (size_t i = 0; i < block.size(); ++i) {
                   histogram[i] += block[i];
                 }
               });
  std::vector<uint8_t> tables;
  for (int c = 0; c < C; ++c) {
    const ByteTable t = make(histogram.data() + c * 256);
    tables.insert(tables.end(), t.begin(), t.end());
  }
  return LookUp(kernel, input, tables, output);
}

}  // namespace

absl::Status CheckTableChannels(const char* op, int channels) {
  if (channels == 1 || channels == 3) return absl::OkStatus();
  return InvalidArgumentCat(op, ": images of ", channels,
                            " channels are not supported (Pillow's ImageOps "
                            "tables take L and RGB images only)");
}

ByteTable PosterizeTable(int bits) {
  const int mask = ~((1 << (8 - bits)) - 1);
  ByteTable t;
  for (int i = 0; i < 256; ++i) t[i] = static_cast<uint8_t>(i & mask);
  return t;
}

ByteTable SolarizeTable(double threshold) {
  ByteTable t;
  for (int i = 0; i < 256; ++i) {
    t[i] = static_cast<uint8_t>(i < threshold ? i : 255 - i);
  }
  return t;
}

ByteTable InvertTable() {
  ByteTable t;
  for (int i = 0; i < 256; ++i) t[i] = static_cast<uint8_t>(255 - i);
  return t;
}

ByteTable AutoContrastTable(const uint64_t* h) {
  // Python's loops leave lo at 255 and hi at 0 when every count is 0.
  int lo = 0, hi = 255;
  while (lo < 255 && h[lo] == 0) ++lo;
  while (hi > 0 && h[hi] == 0) --hi;
  if (hi <= lo) return Identity();
  const double scale = 255.0 / (hi - lo);
  const double offset = -static_cast<double>(lo) * scale;
  ByteTable t;
  for (int i = 0; i < 256; ++i) {
    // int() truncates toward zero (|v| < 2^16 here); then 0..255.
    const int n = static_cast<int>(i * scale + offset);
    t[i] = static_cast<uint8_t>(std::clamp(n, 0, 255));
  }
  return t;
}

ByteTable EqualizeTable(const uint64_t* h) {
  uint64_t total = 0, last = 0;
  int nonzero = 0;
  for (int i = 0; i < 256; ++i) {
    if (h[i] == 0) continue;
    total += h[i];
    last = h[i];
    ++nonzero;
  }
  if (nonzero <= 1) return Identity();
  const uint64_t step = (total - last) / 255;
  if (step == 0) return Identity();
  uint64_t n = step / 2;
  ByteTable t;
  for (int i = 0; i < 256; ++i) {
    t[i] = static_cast<uint8_t>(std::min<uint64_t>(255, n / step));
    n += h[i];
  }
  return t;
}

absl::Status Posterize(const AugmentKernelInfo& kernel, const ImageView& input,
                       int bits, Image* output) {
  return LookUpAll(kernel, "Posterize", input, PosterizeTable(bits), output);
}

absl::Status Solarize(const AugmentKernelInfo& kernel, const ImageView& input,
                      double threshold, Image* output) {
  return LookUpAll(kernel, "Solarize", input, SolarizeTable(threshold), output);
}

absl::Status Invert(const AugmentKernelInfo& kernel, const ImageView& input,
                    Image* output) {
  return LookUpAll(kernel, "Invert", input, InvertTable(), output);
}

absl::Status AutoContrast(const AugmentKernelInfo& kernel,
                          const ImageView& input, Image* output) {
  return LookUpByHistogram(kernel, "AutoContrast", input, &AutoContrastTable,
                           output);
}

absl::Status Equalize(const AugmentKernelInfo& kernel, const ImageView& input,
                      Image* output) {
  return LookUpByHistogram(kernel, "Equalize", input, &EqualizeTable, output);
}

absl::Status Sharpness(const AugmentKernelInfo& kernel, const ImageView& input,
                       double factor, Image* output) {
  const int C = input.channels;
  if (C == 2) {
    return OnGrayOfLA(
        input,
        [&](const ImageView& gray, Image* out) {
          return Sharpness(kernel, gray, factor, out);
        },
        output);
  }
  FUSEDNORM_RETURN_IF_ERROR(ShapeImage(input.height, input.width, C, output));
  const AugmentInput in{input.pixels.data(), input.height, input.width, C,
                        input.row_stride};
  kernel.sharpen(in, static_cast<float>(factor), output->pixels.data());
  return absl::OkStatus();
}

}  // namespace fusednorm
