// The per-image pixel ops of torchvision's functional API on PIL images
// that are Pillow's ImageOps tables and ImageEnhance.Sharpness, on the
// augment kernels (kernels/augment/augment_kernel.h):
//
//   posterize(bits)       value & ~(2^(8 - bits) - 1)
//   solarize(threshold)   value < threshold ? value : 255 - value
//   invert                255 - value
//   autocontrast          per channel, the histogram's lowest and highest
//                         values stretched to 0..255 (ImageOps' table:
//                         int(v * scale + offset), clamped)
//   equalize              per channel, ImageOps' step table of the
//                         histogram (Image.point clips its 256s to 255)
//   adjust_sharpness(f)   blend(SMOOTH(image), image, f)
//
// ImageOps' tables refuse LA and RGBA images (Pillow raises "not supported
// for this image mode"): these functions return InvalidArgument naming the
// op for 2 or 4 channels; sharpness takes any image (LA's as ops/alpha.h
// says).
#ifndef FUSEDNORM_OPS_ENHANCE_H_
#define FUSEDNORM_OPS_ENHANCE_H_

#include <array>
#include <cstdint>

#include "absl/status/status.h"
#include "core/image.h"
#include "kernels/augment/augment_kernel.h"

namespace fusednorm {

using ByteTable = std::array<uint8_t, 256>;

// The tables of one channel.
ByteTable PosterizeTable(int bits);         // bits in 0..8
ByteTable SolarizeTable(double threshold);  // any number
ByteTable InvertTable();
ByteTable AutoContrastTable(const uint64_t* histogram);  // 256 counts
ByteTable EqualizeTable(const uint64_t* histogram);

// The ops on whole images into `output` (the input's size and channels).
absl::Status Posterize(const AugmentKernelInfo& kernel, const ImageView& input,
                       int bits, Image* output);
absl::Status Solarize(const AugmentKernelInfo& kernel, const ImageView& input,
                      double threshold, Image* output);
absl::Status Invert(const AugmentKernelInfo& kernel, const ImageView& input,
                    Image* output);
absl::Status AutoContrast(const AugmentKernelInfo& kernel,
                          const ImageView& input, Image* output);
absl::Status Equalize(const AugmentKernelInfo& kernel, const ImageView& input,
                      Image* output);
// Pillow's blend factor is a float: `factor` is rounded to one.
absl::Status Sharpness(const AugmentKernelInfo& kernel, const ImageView& input,
                       double factor, Image* output);

// InvalidArgument naming `op` unless `channels` is 1 or 3 (ImageOps'
// tables take L and RGB images only).
absl::Status CheckTableChannels(const char* op, int channels);

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_ENHANCE_H_
