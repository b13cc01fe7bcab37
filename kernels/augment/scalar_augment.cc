// The scalar augment row (scalar_augment.h): Pillow 9.4's Geometry.c,
// Filter.c and Blend.c one value at a time, with their types, operation
// order and engine choices kept, so that it is the reference the other rows
// match. Where Pillow's C converts a double outside int's range to int
// (undefined behaviour), the value x86-64 gives is taken (X86DoubleToInt32).
#include "kernels/augment/scalar_augment.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/color/color_kernel.h"
#include "kernels/color/scalar_color.h"

namespace fusednorm {
namespace {

// Geometry.c's COORD: -1 below zero, else truncation.
inline int32_t Coord(double v) { return v < 0.0 ? -1 : X86DoubleToInt32(v); }

// Geometry.c's FLOOR.
inline int32_t Floor(double v) {
  return v < 0.0 ? X86DoubleToInt32(std::floor(v)) : X86DoubleToInt32(v);
}

// C's (UINT8)v of a double on x86-64: the low byte of the int conversion.
inline uint8_t DoubleToByte(double v) {
  return static_cast<uint8_t>(static_cast<uint32_t>(X86DoubleToInt32(v)));
}

// check_fixed: the point (x, y) of the transform is within 16.16's range.
bool CheckFixed(const double a[6], int64_t x, int64_t y) {
  const double dx = static_cast<double>(x), dy = static_cast<double>(y);
  return std::fabs(dx * a[0] + dy * a[1] + a[2]) < 32768.0 &&
         std::fabs(dx * a[3] + dy * a[4] + a[5]) < 32768.0;
}

inline uint32_t Fix(double v) {
  return static_cast<uint32_t>(Floor(v * 65536.0 + 0.5));
}

inline void CopyPixel(const uint8_t* from, int channels, uint8_t* to) {
  for (int c = 0; c < channels; ++c) to[c] = from[c];
}

inline const uint8_t* PixelAt(const AugmentInput& in, int64_t x, int64_t y) {
  return in.pixels + y * in.row_stride + x * in.channels;
}

void FixedEngine(const AugmentInput& in, const double a[6], uint8_t* out,
                 int64_t out_height, int64_t out_width) {
  const FixedAffine f = MakeFixedAffine(a);
  const int64_t row_bytes = out_width * in.channels;
  for (int64_t y = 0; y < out_height; ++y) {
    ScalarFixedAffineSpan(in, f, y, 0, out_width, out + y * row_bytes);
  }
}

// ImagingTransformAffine's own double loop (NEAREST, outside fixed range).
void FloatEngine(const AugmentInput& in, const double a[6], uint8_t* out,
                 int64_t out_height, int64_t out_width) {
  const int C = in.channels;
  double xo = a[2] + a[1] * 0.5 + a[0] * 0.5;
  double yo = a[5] + a[4] * 0.5 + a[3] * 0.5;
  for (int64_t y = 0; y < out_height; ++y) {
    double xx = xo, yy = yo;
    uint8_t* o = out + y * out_width * C;
    for (int64_t x = 0; x < out_width; ++x, o += C) {
      const int32_t xin = Coord(xx);
      if (xin >= 0 && xin < in.width) {
        const int32_t yin = Coord(yy);
        if (yin >= 0 && yin < in.height) CopyPixel(PixelAt(in, xin, yin), C, o);
      }
      xx += a[0];
      yy += a[3];
    }
    xo += a[1];
    yo += a[4];
  }
}

void CopyRun(const uint8_t* in_row, int64_t, const int32_t* xin, int64_t count,
             bool, int channels, uint8_t* out) {
  for (int64_t i = 0; i < count; ++i, out += channels) {
    CopyPixel(in_row + int64_t{xin[i]} * channels, channels, out);
  }
}

// BILINEAR of Geometry.c: a + (b - a) * d, with int a and b in the first
// pass (the pixels) and doubles in the second.
template <typename T>
inline double Linear(T a, T b, double d) {
  return a + (b - a) * d;
}

// BICUBIC of Geometry.c, with its types: int pixels in the first pass,
// doubles in the second.
template <typename T>
inline double Cubic(T v1, T v2, T v3, T v4, double d) {
  const double p1 = v2;
  const double p2 = -v1 + v3;
  const double p3 = 2 * (v1 - v2) + v3 - v4;
  const double p4 = -v1 + v2 - v3 + v4;
  return p1 + d * (p2 + d * (p3 + d * p4));
}

inline int64_t Clip(int64_t v, int64_t size) {
  return v < 0 ? 0 : v < size ? v : size - 1;
}

// bilinear_filter8 / bilinear_filter32RGB (every channel a band); false
// when the point has no input pixel.
bool Bilinear(const AugmentInput& in, double xin, double yin, uint8_t* out) {
  if (xin < 0.0 || xin >= in.width || yin < 0.0 || yin >= in.height) {
    return false;
  }
  xin -= 0.5;
  yin -= 0.5;
  const int64_t x = Floor(xin), y = Floor(yin);
  const double dx = xin - x, dy = yin - y;
  const int C = in.channels;
  const int64_t x0 = Clip(x, in.width) * C, x1 = Clip(x + 1, in.width) * C;
  const uint8_t* row0 = in.pixels + Clip(y, in.height) * in.row_stride;
  const bool has_row1 = y + 1 >= 0 && y + 1 < in.height;
  const uint8_t* row1 =
      has_row1 ? in.pixels + (y + 1) * in.row_stride : nullptr;
  for (int b = 0; b < C; ++b) {
    const double v1 = Linear<int>(row0[x0 + b], row0[x1 + b], dx);
    const double v2 =
        has_row1 ? Linear<int>(row1[x0 + b], row1[x1 + b], dx) : v1;
    out[b] = DoubleToByte(Linear<double>(v1, v2, dy));
  }
  return true;
}

// One row's cubic of bicubic_filter8 / bicubic_filter32RGB, band b.
inline double CubicRow(const uint8_t* row, const int64_t* xs, int b,
                       double dx) {
  return Cubic<int>(row[xs[0] + b], row[xs[1] + b], row[xs[2] + b],
                    row[xs[3] + b], dx);
}

// bicubic_filter8 / bicubic_filter32RGB; false when the point has no input
// pixel.
bool Bicubic(const AugmentInput& in, double xin, double yin, uint8_t* out) {
  if (xin < 0.0 || xin >= in.width || yin < 0.0 || yin >= in.height) {
    return false;
  }
  xin -= 0.5;
  yin -= 0.5;
  int64_t x = Floor(xin), y = Floor(yin);
  const double dx = xin - x, dy = yin - y;
  --x;
  --y;
  const int C = in.channels;
  int64_t xs[4];
  for (int k = 0; k < 4; ++k) xs[k] = Clip(x + k, in.width) * C;
  for (int b = 0; b < C; ++b) {
    double v[4];
    v[0] = CubicRow(in.pixels + Clip(y, in.height) * in.row_stride, xs, b, dx);
    for (int k = 1; k < 4; ++k) {
      const bool inside = y + k >= 0 && y + k < in.height;
      v[k] = inside ? CubicRow(in.pixels + (y + k) * in.row_stride, xs, b, dx)
                    : v[k - 1];
    }
    const double r = Cubic<double>(v[0], v[1], v[2], v[3], dy);
    out[b] = r <= 0.0 ? 0 : r >= 255.0 ? 255 : DoubleToByte(r);
  }
  return true;
}

// ImagingGenericTransform with affine_transform and the filter.
void GenericAffine(const AugmentInput& in, const double a[6],
                   AffineFilter filter, uint8_t* out, int64_t out_height,
                   int64_t out_width) {
  const int64_t row_bytes = out_width * in.channels;
  for (int64_t y = 0; y < out_height; ++y) {
    ScalarGenericAffineSpan(in, a, filter, y, 0, out_width,
                            out + y * row_bytes);
  }
}

void Affine(const AugmentInput& in, const double a[6], AffineFilter filter,
            uint8_t* out, int64_t out_height, int64_t out_width) {
  if (out_height <= 0 || out_width <= 0) return;
  switch (ChooseAffineEngine(a, filter, out_height, out_width)) {
    case AffineEngine::kScale:
      return ScaleAffineWith(in, a, out, out_height, out_width, &CopyRun);
    case AffineEngine::kFixed:
      return FixedEngine(in, a, out, out_height, out_width);
    case AffineEngine::kFloat:
      return FloatEngine(in, a, out, out_height, out_width);
    case AffineEngine::kGeneric:
      return GenericAffine(in, a, filter, out, out_height, out_width);
  }
}

// Filter.c's clip8.
inline int Clip8(float v) {
  if (v <= 0.0f) return 0;
  if (v >= 255.0f) return 255;
  return static_cast<int>(v);
}

// Filter.c's KERNEL1x3 at value p[0], neighbours `step` bytes away.
inline float Kernel1x3(const uint8_t* p, int step, float k0, float k1,
                       float k2) {
  return static_cast<float>(p[-step]) * k0 + static_cast<float>(p[0]) * k1 +
         static_cast<float>(p[step]) * k2;
}

// SMOOTH at one value: the rows below, at and above it in Filter.c's order.
inline int Smooth(const uint8_t* above, const uint8_t* row,
                  const uint8_t* below, int step) {
  float ss = 0.0f;
  ss += 0.5;
  ss += Kernel1x3(below, step, kSmoothSide, kSmoothSide, kSmoothSide);
  ss += Kernel1x3(row, step, kSmoothSide, kSmoothCentre, kSmoothSide);
  ss += Kernel1x3(above, step, kSmoothSide, kSmoothSide, kSmoothSide);
  return Clip8(ss);
}

// The interior of a row: SMOOTH's value (the image's own alpha in a 4th
// channel, as Sharpness puts it back), blended with the image's by the
// colour row's blend (one rule for both).
void SharpenInterior(const uint8_t* above, const uint8_t* row,
                     const uint8_t* below, int64_t width, int channels,
                     float alpha, void*, uint8_t* out_row) {
  for (int64_t i = channels; i < (width - 1) * channels; ++i) {
    const int d = channels == 4 && i % 4 == 3
                      ? row[i]
                      : Smooth(above + i, row + i, below + i, channels);
    out_row[i] = ScalarBlendValue(static_cast<uint8_t>(d), row[i], alpha);
  }
}

void Sharpen(const AugmentInput& in, float alpha, uint8_t* out) {
  SharpenWith(in, alpha, out, &SharpenInterior, nullptr);
}

void LookUp(const uint8_t* in, uint8_t* out, int64_t pixels, int channels,
            const uint8_t* luts) {
  for (int64_t i = 0; i < pixels; ++i) {
    for (int c = 0; c < channels; ++c, ++in, ++out) *out = luts[c * 256 + *in];
  }
}

void Histogram(const uint8_t* in, int64_t pixels, int channels,
               uint32_t* hist) {
  for (int64_t i = 0; i < pixels; ++i) {
    for (int c = 0; c < channels; ++c, ++in) ++hist[c * 256 + *in];
  }
}

bool Always() { return true; }

}  // namespace

int32_t X86DoubleToInt32(double v) {
  if (v > -2147483649.0 && v < 2147483648.0) return static_cast<int32_t>(v);
  return INT32_MIN;
}

AffineEngine ChooseAffineEngine(const double a[6], AffineFilter filter,
                                int64_t out_height, int64_t out_width) {
  if (filter != AffineFilter::kNearest) return AffineEngine::kGeneric;
  if (a[1] == 0 && a[3] == 0) return AffineEngine::kScale;
  if (CheckFixed(a, 0, 0) && CheckFixed(a, out_width, out_height) &&
      CheckFixed(a, 0, out_height) && CheckFixed(a, out_width, 0)) {
    return AffineEngine::kFixed;
  }
  return AffineEngine::kFloat;
}

FixedAffine MakeFixedAffine(const double a[6]) {
  FixedAffine f;
  f.a0 = Fix(a[0]);
  f.a1 = Fix(a[1]);
  f.a3 = Fix(a[3]);
  f.a4 = Fix(a[4]);
  f.a2 = Fix(a[2] + a[0] * 0.5 + a[1] * 0.5);
  f.a5 = Fix(a[5] + a[3] * 0.5 + a[4] * 0.5);
  return f;
}

void ScalarFixedAffineSpan(const AugmentInput& in, const FixedAffine& f,
                           int64_t y, int64_t x_begin, int64_t x_end,
                           uint8_t* out_row) {
  const int C = in.channels;
  // Pillow adds a1 and a4 once per row and a0 and a3 once per pixel.
  const uint32_t yq = static_cast<uint32_t>(y),
                 xq = static_cast<uint32_t>(x_begin);
  uint32_t xx = f.a2 + yq * f.a1 + xq * f.a0;
  uint32_t yy = f.a5 + yq * f.a4 + xq * f.a3;
  for (int64_t x = x_begin; x < x_end; ++x, xx += f.a0, yy += f.a3) {
    const int32_t xin = static_cast<int32_t>(xx) >> 16;
    if (xin < 0 || xin >= in.width) continue;
    const int32_t yin = static_cast<int32_t>(yy) >> 16;
    if (yin < 0 || yin >= in.height) continue;
    CopyPixel(PixelAt(in, xin, yin), C, out_row + x * C);
  }
}

void ScalarGenericAffineSpan(const AugmentInput& in, const double a[6],
                             AffineFilter filter, int64_t y, int64_t x_begin,
                             int64_t x_end, uint8_t* out_row) {
  const int C = in.channels;
  const double yin = static_cast<double>(y) + 0.5;
  for (int64_t x = x_begin; x < x_end; ++x) {
    // affine_transform: a0 x + a1 y + a2 at the pixel's centre.
    const double xin = static_cast<double>(x) + 0.5;
    const double xx = a[0] * xin + a[1] * yin + a[2];
    const double yy = a[3] * xin + a[4] * yin + a[5];
    if (filter == AffineFilter::kBilinear) {
      Bilinear(in, xx, yy, out_row + x * C);
    } else {
      Bicubic(in, xx, yy, out_row + x * C);
    }
  }
}

void ScaleAffineWith(const AugmentInput& in, const double a[6], uint8_t* out,
                     int64_t out_height, int64_t out_width, ScaleRunCopy copy) {
  const int C = in.channels;
  const double x_start = a[2] + a[0] * 0.5;
  // Pillow tabulates each column's input column, and the run [xmin, xmax)
  // from the first to the last column that has one (a column inside it
  // without one would read column 0, from calloc's zeros; the columns'
  // positions are monotonic, so none does).
  int64_t xmin = out_width, xmax = 0;
  double xo = x_start;
  for (int64_t x = 0; x < out_width; ++x, xo += a[0]) {
    const int32_t xin = Coord(xo);
    if (xin >= 0 && xin < in.width) {
      xmax = x + 1;
      xmin = std::min(xmin, x);
    }
  }
  // The table in chunks of columns, each copied on every row.
  constexpr int64_t kChunk = 2048;
  int32_t table[kChunk];
  const int64_t in_bytes =
      (in.height - 1) * in.row_stride + in.width * in.channels;
  xo = x_start;
  for (int64_t c0 = 0; c0 < out_width; c0 += kChunk) {
    const int64_t c1 = std::min(c0 + kChunk, out_width);
    for (int64_t x = c0; x < c1; ++x, xo += a[0]) {
      const int32_t xin = Coord(xo);
      table[x - c0] = xin >= 0 && xin < in.width ? xin : 0;
    }
    const int64_t lo = std::max(c0, xmin), hi = std::min(c1, xmax);
    if (lo >= hi) continue;
    const int32_t* run = table + (lo - c0);
    bool consecutive = true;
    for (int64_t i = 1; i < hi - lo && consecutive; ++i) {
      consecutive = run[i] == run[0] + i;
    }
    double yo = a[5] + a[4] * 0.5;
    for (int64_t y = 0; y < out_height; ++y, yo += a[4]) {
      const int32_t yi = Coord(yo);
      if (yi < 0 || yi >= in.height) continue;
      const int64_t row = yi * in.row_stride;
      copy(in.pixels + row, in_bytes - row, run, hi - lo, consecutive, C,
           out + (y * out_width + lo) * C);
    }
  }
}

void SharpenWith(const AugmentInput& in, float alpha, uint8_t* out,
                 SharpenRow interior, void* context) {
  const int C = in.channels;
  const int64_t W = in.width, H = in.height, row_bytes = W * C;
  auto in_row = [&](int64_t y) { return in.pixels + y * in.row_stride; };
  if (H < 3 || W < 3) {
    for (int64_t y = 0; y < H; ++y) {
      std::memcpy(out + y * row_bytes, in_row(y), row_bytes);
    }
    return;
  }
  std::memcpy(out, in_row(0), row_bytes);
  for (int64_t y = 1; y < H - 1; ++y) {
    uint8_t* o = out + y * row_bytes;
    std::memcpy(o, in_row(y), C);
    interior(in_row(y - 1), in_row(y), in_row(y + 1), W, C, alpha, context, o);
    std::memcpy(o + (W - 1) * C, in_row(y) + (W - 1) * C, C);
  }
  std::memcpy(out + (H - 1) * row_bytes, in_row(H - 1), row_bytes);
}

AugmentKernelInfo ScalarAugmentInfo() {
  return {"scalar", "any CPU", 0,       &Always,   nullptr,
          &Affine,  &Sharpen,  &LookUp, &Histogram};
}

}  // namespace fusednorm
