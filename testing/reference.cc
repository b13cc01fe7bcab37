// The independent reference (reference.h): torchvision's steps one full pass
// at a time, and its own float16/bfloat16 rounding and layout encoding.
#include "testing/reference.h"

#include <cmath>
#include <cstring>

namespace fusednorm {
namespace testing_ref {
namespace {

template <typename T>
Chw<T> Make(const RefInput& in) {
  Chw<T> t;
  t.channels = in.channels;
  t.height = in.height;
  t.width = in.width;
  t.data.assign(in.channels * in.height * in.width, T(0));
  return t;
}

template <typename T>
void FlipInPlace(Chw<T>& t) {
  for (int64_t c = 0; c < t.channels; ++c) {
    for (int64_t h = 0; h < t.height; ++h) {
      for (int64_t w = 0; w < t.width / 2; ++w)
        std::swap(t.at(c, h, w), t.at(c, h, t.width - 1 - w));
    }
  }
}

template <typename T>
void EraseInPlace(Chw<T>& t, const EraseRect& r) {
  for (int64_t c = 0; c < t.channels; ++c) {
    for (int64_t h = r.top; h < r.top + r.height; ++h) {
      for (int64_t w = r.left; w < r.left + r.width; ++w) t.at(c, h, w) = T(0);
    }
  }
}

uint8_t Pixel(const RefInput& in, int c, int64_t h, int64_t w) {
  return in.pixels[h * in.row_stride + w * in.channels + c];
}

}  // namespace

Chw<float> TorchvisionFloat(const RefInput& in) {
  Chw<float> t = Make<float>(in);
  // ToTensor
  for (int c = 0; c < in.channels; ++c)
    for (int64_t h = 0; h < in.height; ++h)
      for (int64_t w = 0; w < in.width; ++w)
        t.at(c, h, w) = static_cast<float>(Pixel(in, c, h, w)) / 255.0f;
  if (in.flip) FlipInPlace(t);
  // Normalize: sub_ then div_
  for (int c = 0; c < in.channels; ++c)
    for (int64_t h = 0; h < in.height; ++h)
      for (int64_t w = 0; w < in.width; ++w) {
        float v = t.at(c, h, w) - in.mean[c];
        t.at(c, h, w) = v / in.std[c];
      }
  EraseInPlace(t, in.erase);
  return t;
}

Chw<float> FastFloat(const RefInput& in) {
  Chw<float> t = Make<float>(in);
  for (int c = 0; c < in.channels; ++c) {
    const float mul =
        static_cast<float>(1.0 / (255.0 * static_cast<double>(in.std[c])));
    const float sub = static_cast<float>(static_cast<double>(in.mean[c]) /
                                         static_cast<double>(in.std[c]));
    for (int64_t h = 0; h < in.height; ++h)
      for (int64_t w = 0; w < in.width; ++w) {
        const float product = static_cast<float>(Pixel(in, c, h, w)) * mul;
        t.at(c, h, w) = product - sub;
      }
  }
  if (in.flip) FlipInPlace(t);
  EraseInPlace(t, in.erase);
  return t;
}

Chw<double> Exact(const RefInput& in) {
  Chw<double> t = Make<double>(in);
  for (int c = 0; c < in.channels; ++c)
    for (int64_t h = 0; h < in.height; ++h)
      for (int64_t w = 0; w < in.width; ++w)
        t.at(c, h, w) = (Pixel(in, c, h, w) / 255.0 - in.mean[c]) /
                        static_cast<double>(in.std[c]);
  if (in.flip) FlipInPlace(t);
  EraseInPlace(t, in.erase);
  return t;
}

uint16_t FloatToBFloat16Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  // Add 0x7fff plus the lowest kept bit, then truncate: ties go to the even
  // neighbour.
  const uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>((u + rounding) >> 16);
}

uint16_t FloatToHalfBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const double a = std::fabs(static_cast<double>(f));
  if (a >= 65520.0) return sign | 0x7c00u;  // rounds to infinity
  // Scale so the half's unit in the last place becomes 1, then round to even
  // with rint.
  int exp;
  std::frexp(a, &exp);  // a = m * 2^exp, m in [0.5, 1)
  int e = exp - 1;      // a in [2^e, 2^(e+1))
  if (e < -14)
    e = -14;  // subnormal range shares the smallest normal's ulp (2^-24)
  const double ulp = std::ldexp(1.0, e - 10);
  const double q =
      std::nearbyint(a / ulp);  // integer count of ulps, ties to even
  // q * ulp is the rounded magnitude; build its bit pattern from the value
  // itself.
  const double r = q * ulp;
  if (r == 0) return sign;
  int rexp;
  std::frexp(r, &rexp);
  const int re = rexp - 1;
  if (re < -14)
    return sign | static_cast<uint16_t>(std::ldexp(r, 24));  // subnormal
  const uint16_t biased = static_cast<uint16_t>(re + 15);
  const uint16_t mant = static_cast<uint16_t>(std::ldexp(r, 10 - re) - 1024.0);
  return sign | static_cast<uint16_t>(biased << 10) | mant;
}

float HalfBitsToFloat(uint16_t h) {
  const int e = (h >> 10) & 0x1f;
  const int m = h & 0x3ff;
  double v;
  if (e == 0) {
    v = std::ldexp(static_cast<double>(m), -24);
  } else if (e == 31) {
    v = m ? NAN : INFINITY;
  } else {
    v = std::ldexp(1024.0 + m, e - 25);
  }
  return static_cast<float>((h & 0x8000) ? -v : v);
}

float BFloat16BitsToFloat(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

namespace {

size_t ElementIndex(int64_t height, int64_t width, int channels, Layout layout,
                    int c, int64_t h, int64_t w) {
  switch (layout) {
    case Layout::kHWC:
      return (h * width + w) * channels + c;
    case Layout::kHWC4:
      return (h * width + w) * 4 + c;
    case Layout::kCHW:
      return (c * height + h) * width + w;
  }
  return 0;
}

}  // namespace

std::vector<uint8_t> Encode(const Chw<float>& t, DType dtype, Layout layout) {
  const int stored = layout == Layout::kHWC4 ? 4 : static_cast<int>(t.channels);
  const size_t esize = dtype == DType::kFloat32 ? 4 : 2;
  // Every byte starts as +0.0: pad lanes stay so.
  std::vector<uint8_t> out(t.height * t.width * stored * esize, 0);
  for (int c = 0; c < t.channels; ++c)
    for (int64_t h = 0; h < t.height; ++h)
      for (int64_t w = 0; w < t.width; ++w) {
        const size_t i = ElementIndex(
            t.height, t.width, static_cast<int>(t.channels), layout, c, h, w);
        const float v = t.at(c, h, w);
        if (dtype == DType::kFloat32) {
          std::memcpy(&out[i * 4], &v, 4);
        } else {
          const uint16_t bits = dtype == DType::kFloat16
                                    ? FloatToHalfBits(v)
                                    : FloatToBFloat16Bits(v);
          std::memcpy(&out[i * 2], &bits, 2);
        }
      }
  return out;
}

float Decode(const std::vector<uint8_t>& bytes, int64_t height, int64_t width,
             int channels, DType dtype, Layout layout, int c, int64_t h,
             int64_t w) {
  const size_t i = ElementIndex(height, width, channels, layout, c, h, w);
  if (dtype == DType::kFloat32) {
    float f;
    std::memcpy(&f, &bytes[i * 4], 4);
    return f;
  }
  uint16_t bits;
  std::memcpy(&bits, &bytes[i * 2], 2);
  return dtype == DType::kFloat16 ? HalfBitsToFloat(bits)
                                  : BFloat16BitsToFloat(bits);
}

}  // namespace testing_ref
}  // namespace fusednorm
