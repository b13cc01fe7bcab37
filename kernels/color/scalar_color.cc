// The scalar colour row (scalar_color.h): Pillow's C, one value at a time,
// with its types kept (float variables stay float, double constants make
// double expressions), so that it is the reference the other rows match.
#include "kernels/color/scalar_color.h"

#include <algorithm>
#include <cmath>

namespace fusednorm {
namespace {

// Blend.c's expression for one value: d + alpha * (x - d) in float,
// clamped outside [0, 1] as the extrapolating branch does, else truncated.
inline uint8_t BlendValue(uint8_t d, uint8_t x, float alpha) {
  const float v = static_cast<float>(static_cast<int>(d) +
                                     alpha * (static_cast<int>(x) -
                                              static_cast<int>(d)));
  if (alpha >= 0 && alpha <= 1.0f) return static_cast<uint8_t>(v);
  if (v <= 0.0f) return 0;
  if (v >= 255.0f) return 255;
  return static_cast<uint8_t>(v);
}

inline uint8_t Luma(const uint8_t* p) {
  return static_cast<uint8_t>((p[0] * 19595 + p[1] * 38470 + p[2] * 7471 +
                               0x8000) >>
                              16);
}

inline int Clip8(int v) { return v <= 0 ? 0 : v < 256 ? v : 255; }

void BlendConstant(const uint8_t* in, uint8_t* out, int64_t pixels,
                   int channels, float alpha, uint8_t degenerate) {
  const int colours = channels == 4 ? 3 : channels;
  for (int64_t i = 0; i < pixels; ++i, in += channels, out += channels) {
    for (int c = 0; c < colours; ++c) out[c] = BlendValue(degenerate, in[c], alpha);
    if (channels == 4) out[3] = in[3];
  }
}

void BlendGray(const uint8_t* in, uint8_t* out, int64_t pixels, int channels,
               float alpha) {
  for (int64_t i = 0; i < pixels; ++i, in += channels, out += channels) {
    const uint8_t l = Luma(in);
    const uint8_t a = channels == 4 ? in[3] : 0;
    for (int c = 0; c < 3; ++c) out[c] = BlendValue(l, in[c], alpha);
    if (channels == 4) out[3] = a;
  }
}

uint64_t LumaSum(const uint8_t* in, int64_t pixels, int channels) {
  uint64_t sum = 0;
  for (int64_t i = 0; i < pixels; ++i, in += channels)
    sum += channels == 1 ? in[0] : Luma(in);
  return sum;
}

// Convert.c's rgb2hsv_row.
void RgbToHsv(const uint8_t* in, uint8_t* hsv) {
  const uint8_t r = in[0], g = in[1], b = in[2];
  const uint8_t maxc = std::max(r, std::max(g, b));
  const uint8_t minc = std::min(r, std::min(g, b));
  uint8_t uh = 0, us = 0;
  if (minc != maxc) {
    const float cr = static_cast<float>(maxc - minc);
    const float s = cr / static_cast<float>(maxc);
    const float rc = static_cast<float>(maxc - r) / cr;
    const float gc = static_cast<float>(maxc - g) / cr;
    const float bc = static_cast<float>(maxc - b) / cr;
    float h;
    if (r == maxc) {
      h = bc - gc;
    } else if (g == maxc) {
      h = static_cast<float>(2.0 + rc - bc);
    } else {
      h = static_cast<float>(4.0 + gc - rc);
    }
    h = static_cast<float>(std::fmod(h / 6.0 + 1.0, 1.0));
    uh = static_cast<uint8_t>(Clip8(static_cast<int>(h * 255.0)));
    us = static_cast<uint8_t>(Clip8(static_cast<int>(s * 255.0)));
  }
  hsv[0] = uh;
  hsv[1] = us;
  hsv[2] = maxc;
}

// Convert.c's hsv2rgb for one pixel.
void HsvToRgb(const uint8_t* hsv, uint8_t* out) {
  const uint8_t h = hsv[0], s = hsv[1], v = hsv[2];
  if (s == 0) {
    out[0] = out[1] = out[2] = v;
    return;
  }
  const int i = static_cast<int>(std::floor(static_cast<float>(h) * 6.0 / 255.0));
  const float f =
      static_cast<float>(static_cast<float>(h) * 6.0 / 255.0 - static_cast<float>(i));
  const float fs = static_cast<float>(static_cast<float>(s) / 255.0);
  const int p = static_cast<int>(std::round(static_cast<float>(v) * (1.0 - fs)));
  const int q =
      static_cast<int>(std::round(static_cast<float>(v) * (1.0 - fs * f)));
  const int t = static_cast<int>(
      std::round(static_cast<float>(v) * (1.0 - fs * (1.0 - f))));
  const uint8_t up = static_cast<uint8_t>(Clip8(p));
  const uint8_t uq = static_cast<uint8_t>(Clip8(q));
  const uint8_t ut = static_cast<uint8_t>(Clip8(t));
  switch (i % 6) {
    case 0:
      out[0] = v, out[1] = ut, out[2] = up;
      break;
    case 1:
      out[0] = uq, out[1] = v, out[2] = up;
      break;
    case 2:
      out[0] = up, out[1] = v, out[2] = ut;
      break;
    case 3:
      out[0] = up, out[1] = uq, out[2] = v;
      break;
    case 4:
      out[0] = ut, out[1] = up, out[2] = v;
      break;
    default:
      out[0] = v, out[1] = up, out[2] = uq;
      break;
  }
}

void ShiftHue(const uint8_t* in, uint8_t* out, int64_t pixels, int channels,
              uint8_t shift) {
  for (int64_t i = 0; i < pixels; ++i, in += channels, out += channels) {
    uint8_t hsv[3];
    RgbToHsv(in, hsv);
    hsv[0] = static_cast<uint8_t>(hsv[0] + shift);
    HsvToRgb(hsv, out);
    if (channels == 4) out[3] = 255;
  }
}

void ToGray(const uint8_t* in, uint8_t* out, int64_t pixels, int channels,
            int out_channels) {
  for (int64_t i = 0; i < pixels; ++i, in += channels, out += out_channels) {
    const uint8_t l = Luma(in);
    for (int c = 0; c < out_channels; ++c) out[c] = l;
  }
}

bool Always() { return true; }

}  // namespace

ColorKernelInfo ScalarColorInfo() {
  return {"scalar",    "any CPU", 0,        &Always,    nullptr,
          &BlendConstant, &BlendGray, &LumaSum, &ShiftHue, &ToGray};
}

void ScalarRgbToHsv(const uint8_t* rgb, uint8_t* hsv) { RgbToHsv(rgb, hsv); }
void ScalarHsvToRgb(const uint8_t* hsv, uint8_t* rgb) { HsvToRgb(hsv, rgb); }

}  // namespace fusednorm
