// The scalar augment row: Pillow 9.4's C transcribed (augment_kernel.h), the
// row every other row is tested against, and the pieces of it the SIMD rows
// share so that each rule is written once: the choice of affine engine, the
// fixed-point coefficients and a span of that engine, the scale engine's
// column table and row loop, and the sharpen frame (border and small-image
// copies) around an interior-row function.
#ifndef FUSEDNORM_KERNELS_AUGMENT_SCALAR_AUGMENT_H_
#define FUSEDNORM_KERNELS_AUGMENT_SCALAR_AUGMENT_H_

#include <cstdint>

#include "kernels/augment/augment_kernel.h"

namespace fusednorm {

AugmentKernelInfo ScalarAugmentInfo();

// C's (int)v as x86-64 computes it (cvttsd2si): truncation toward zero, and
// INT32_MIN for NaN and for values outside int's range (undefined in C).
int32_t X86DoubleToInt32(double v);

// Geometry.c's engine for a transform into an out_height x out_width image:
// ImagingScaleAffine, affine_fixed, the double loop of ImagingTransformAffine
// (NEAREST), or ImagingGenericTransform (BILINEAR, BICUBIC).
enum class AffineEngine : uint8_t { kScale, kFixed, kFloat, kGeneric };
AffineEngine ChooseAffineEngine(const double a[6], AffineFilter filter,
                                int64_t out_height, int64_t out_width);

// affine_fixed's 16.16 coefficients: a0, a1, a3, a4 per pixel and row step,
// a2, a5 the position of output pixel (0, 0). Pillow adds them in int; they
// are kept as uint32 here, whose wrapping sums are what x86 gives.
struct FixedAffine {
  uint32_t a0, a1, a2, a3, a4, a5;
};
FixedAffine MakeFixedAffine(const double a[6]);

// affine_fixed for output row y, columns [x_begin, x_end); out_row is the
// row's first pixel.
void ScalarFixedAffineSpan(const AugmentInput& in, const FixedAffine& f,
                           int64_t y, int64_t x_begin, int64_t x_end,
                           uint8_t* out_row);

// ImagingGenericTransform (affine_transform and bilinear_filter8 /
// bilinear_filter32RGB or bicubic_filter8 / bicubic_filter32RGB, every
// channel a band) for output row y, columns [x_begin, x_end).
void ScalarGenericAffineSpan(const AugmentInput& in, const double a[6],
                             AffineFilter filter, int64_t y, int64_t x_begin,
                             int64_t x_end, uint8_t* out_row);

// Copies `count` pixels of `channels` bytes: out pixel i is in_row's pixel
// xin[i]. `readable` is the number of bytes readable from in_row on (to the
// end of the input). `consecutive`: xin[i] == xin[0] + i for every i.
using ScaleRunCopy = void (*)(const uint8_t* in_row, int64_t readable,
                              const int32_t* xin, int64_t count,
                              bool consecutive, int channels, uint8_t* out);

// ImagingScaleAffine (a[1] == a[3] == 0), its rows' runs copied by `copy`.
void ScaleAffineWith(const AugmentInput& in, const double a[6], uint8_t* out,
                     int64_t out_height, int64_t out_width, ScaleRunCopy copy);

// The sharpened bytes of pixels 1 .. width - 2 of a row (width >= 3) from
// its pixels and those of the rows above and below, written from
// out_row + channels on; `context` is what SharpenWith was given.
using SharpenRow = void (*)(const uint8_t* above, const uint8_t* row,
                            const uint8_t* below, int64_t width, int channels,
                            float alpha, void* context, uint8_t* out_row);

// Sharpness: an image under 3x3, the first and last rows and the first and
// last pixel of every row are copied (SMOOTH copies them, and the blend of
// a value with itself is the value); `interior` does the rest.
void SharpenWith(const AugmentInput& in, float alpha, uint8_t* out,
                 SharpenRow interior, void* context);

// SMOOTH's kernel values, float(k) / 13.0f as Pillow divides them.
inline constexpr float kSmoothSide = 1.0f / 13.0f;
inline constexpr float kSmoothCentre = 5.0f / 13.0f;

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_AUGMENT_SCALAR_AUGMENT_H_
