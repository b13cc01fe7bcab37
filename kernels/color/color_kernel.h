// The colour-kernel contract: the pixel arithmetic of torchvision's colour
// transforms on PIL images, which is Pillow's, exactly:
//
//   blend      ImageEnhance's Image.blend(degenerate, image, alpha) per
//              value: out = (uint8)(d + alpha * (x - d)) in float32 (the C
//              of Blend.c: int + float * int), truncated toward zero and,
//              outside alpha in [0, 1], clamped to 0..255. Brightness
//              blends with 0, Contrast with its mean (a constant), Color
//              with the pixel's own luma.
//   luma       Pillow's L of RGB: (19595 r + 38470 g + 7471 b + 0x8000)
//              >> 16 (Convert.c's L24); of L, the value itself.
//   hue        torchvision's adjust_hue: Pillow's RGB -> HSV (rgb2hsv_row),
//              the hue byte plus `shift` modulo 256, HSV -> RGB (hsv2rgb),
//              with Pillow's mix of float and double operations, floor and
//              round() where Pillow has them.
//
// A kernel applies a sequence of such steps to every pixel, each step's
// result rounded to uint8 as Pillow's intermediate images are, so that a
// ColorJitter's adjustments take one pass over the image (two when one is
// Contrast, whose mean is the whole image's before it).
//
// Images are rows of `pixels` pixels of 1, 3 or 4 channels (L, RGB, RGBA
// to Pillow); a 4th channel is alpha, which the blends keep, the hue
// conversion sets to 255 (Pillow's HSV has no alpha) and gray conversion
// drops. On L, Color and hue change nothing (torchvision returns the
// image). `in` and `out` may be the same buffer (every kernel reads a
// pixel before it writes it) but may not otherwise overlap. Kernels never
// validate or fail: the colour ops (ops/color.h) check everything first.
// Every row agrees with the scalar row bit for bit. No SIMD types here.
#ifndef FUSEDNORM_KERNELS_COLOR_COLOR_KERNEL_H_
#define FUSEDNORM_KERNELS_COLOR_COLOR_KERNEL_H_

#include <cstdint>

namespace fusednorm {

// One adjustment.
struct ColorStep {
  enum class Kind : uint8_t { kBlendConstant, kBlendGray, kHue };
  Kind kind = Kind::kBlendConstant;
  float alpha = 1.0f;      // the blends' factor (finite)
  uint8_t degenerate = 0;  // kBlendConstant: the constant blended with
  uint8_t shift = 0;       // kHue: added to the hue byte
};

// Most steps one call applies.
inline constexpr int kMaxColorSteps = 4;
// Most pixels one call takes (each SIMD lane's luma sum stays below 2^31).
// A call has fixed costs (a row's tables), so callers pass whole images
// where their rows are contiguous, in calls of up to this many pixels.
inline constexpr int64_t kMaxColorPixels = int64_t{1} << 20;

struct ColorKernelInfo {
  const char* id;     // "scalar", "highway", "highway_avx2", ...
  const char* needs;  // human-readable CPU features
  int priority;       // higher wins among the supported rows
  bool (*supported)();
  // The SIMD target the row dispatches to on this CPU, or nullptr.
  const char* (*target)();

  // Applies steps[0 .. count - 1] (count <= kMaxColorSteps) in order to
  // each of `pixels` (<= kMaxColorPixels) pixels; adds the result's luma sum to *luma_sum when it is not
  // null (count 0: a copy that sums).
  void (*adjust)(const uint8_t* in, uint8_t* out, int64_t pixels, int channels,
                 const ColorStep* steps, int count, uint64_t* luma_sum);
  // Writes each pixel's luma (channels 3 or 4) into `out_channels` (1 or
  // 3) values: Pillow's convert("L"), and the L replicated to RGB.
  void (*to_gray)(const uint8_t* in, uint8_t* out, int64_t pixels, int channels,
                  int out_channels);
};

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_COLOR_COLOR_KERNEL_H_
