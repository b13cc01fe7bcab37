// The augment-kernel contract: the pixel arithmetic of torchvision v1's
// auto-augment ops on PIL images that the colour kernels do not cover,
// which is Pillow 9.4's C, exactly:
//
//   affine     Image.transform(size, AFFINE, a, resample): output pixel
//              (x, y) reads the input at (a[0] (x + 0.5) + a[1] (y + 0.5)
//              + a[2], a[3] (x + 0.5) + a[4] (y + 0.5) + a[5]), through
//              Geometry.c's engines chosen by its own rules:
//                NEAREST: ImagingScaleAffine when a[1] == a[3] == 0, the
//                16.16 fixed-point affine_fixed when the four corners
//                pass check_fixed, else the double incremental loop;
//                BILINEAR, BICUBIC: ImagingGenericTransform with the
//                bilinear_filter / bicubic_filter of the channel count.
//              Output pixels whose point has no input pixel are left as
//              they are: the caller fills the output with the fill
//              colour first (Pillow's `new(mode, size, fillcolor)`). (A
//              point whose coordinates overflow to NaN, from huge
//              coefficients, passes Pillow's bounds check: BILINEAR and
//              BICUBIC write 0 there, what x86 makes of NaN as a byte.)
//   sharpen    ImageEnhance.Sharpness: Image.blend(SMOOTH(im), im,
//              alpha), where SMOOTH is Filter.c's 3x3 kernel (1 1 1, 1 5 1,
//              1 1 1) / 13 in float, rows summed in its order with its +0.5
//              and clip8, border rows and columns copied, and an image
//              under 3x3 copied whole; the blend is Blend.c's (the colour
//              kernels' blend, color_kernel.h). A 4th channel (alpha) is
//              kept.
//   lookup     Image.point with a table per channel (ImageOps' LUT ops:
//              Posterize, Solarize, Invert, AutoContrast, Equalize).
//   histogram  Image.histogram: a count per channel and value.
//
// Images are uint8 HWC of 1, 3 or 4 channels (L, RGB, RGBA); affine also
// takes 2 (LA, which the ops premultiply as Pillow does). Inputs may
// have a row stride; outputs are compact. `in` and `out` never overlap.
// Kernels never validate or fail and never read or write outside the
// buffers described (an affine matrix may be anything finite: points
// outside the input are never read). The augment ops (ops/augment_op.h)
// check everything first. Every row agrees with the scalar row bit for
// bit. No SIMD types here.
#ifndef FUSEDNORM_KERNELS_AUGMENT_AUGMENT_KERNEL_H_
#define FUSEDNORM_KERNELS_AUGMENT_AUGMENT_KERNEL_H_

#include <cstdint>

namespace fusednorm {

// Pillow's resampling filters of Image.transform.
enum class AffineFilter : uint8_t { kNearest, kBilinear, kBicubic };

// A uint8 HWC image the kernels read.
struct AugmentInput {
  const uint8_t* pixels;
  int64_t height, width;
  int channels;        // 1, 3 or 4 (affine: 1..4)
  int64_t row_stride;  // bytes, >= width * channels
};

struct AugmentKernelInfo {
  const char* id;     // "scalar", "highway", "highway_avx2", ...
  const char* needs;  // human-readable CPU features
  int priority;       // higher wins among the supported rows
  bool (*supported)();
  // The SIMD target the row dispatches to on this CPU, or nullptr.
  const char* (*target)();

  // The affine transform of `in` into the compact out_height x out_width
  // image `out` (in's channels) by Pillow's inverse matrix `a` (finite);
  // writes only the pixels whose point has an input pixel.
  void (*affine)(const AugmentInput& in, const double a[6], AffineFilter filter,
                 uint8_t* out, int64_t out_height, int64_t out_width);
  // Sharpness with blend factor `alpha` (finite): out has in's size.
  void (*sharpen)(const AugmentInput& in, float alpha, uint8_t* out);
  // out = luts[c * 256 + value] for each value of channel c, `pixels`
  // compact pixels of `channels`.
  void (*lookup)(const uint8_t* in, uint8_t* out, int64_t pixels, int channels,
                 const uint8_t* luts);
  // hist[c * 256 + value] += 1 for each value of channel c of `pixels`
  // compact pixels (at most 2^32 - 1 in all, counts included).
  void (*histogram)(const uint8_t* in, int64_t pixels, int channels,
                    uint32_t* hist);
};

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_AUGMENT_AUGMENT_KERNEL_H_
