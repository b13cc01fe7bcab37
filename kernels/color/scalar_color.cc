// The scalar colour row (scalar_color.h): Pillow's C, one value at a time,
// with its types kept (float variables stay float, double constants make
// double expressions), so that it is the reference the other rows match.
#include "kernels/color/scalar_color.h"

#include <algorithm>
#include <cmath>

namespace fusednorm {
namespace {

inline uint8_t Luma(const uint8_t* p) {
  return static_cast<uint8_t>(
      (p[0] * 19595 + p[1] * 38470 + p[2] * 7471 + 0x8000) >> 16);
}

inline int Clip8(int v) { return v <= 0 ? 0 : v < 256 ? v : 255; }

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
  int i;
  float f;
  ScalarHueSector(h, &i, &f);
  const float fs = ScalarSaturationFraction(s);
  const int p =
      static_cast<int>(std::round(static_cast<float>(v) * (1.0 - fs)));
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

// One step on one pixel of `channels` in p (in place).
void Step(const ColorStep& step, int channels, uint8_t* p) {
  const int colours = channels == 4 ? 3 : channels;
  switch (step.kind) {
    case ColorStep::Kind::kBlendConstant:
      for (int c = 0; c < colours; ++c)
        p[c] = ScalarBlendValue(step.degenerate, p[c], step.alpha);
      return;
    case ColorStep::Kind::kBlendGray: {
      if (channels == 1) return;  // L is its own degenerate
      const uint8_t l = Luma(p);
      for (int c = 0; c < 3; ++c) p[c] = ScalarBlendValue(l, p[c], step.alpha);
      return;
    }
    case ColorStep::Kind::kHue: {
      if (channels == 1) return;  // adjust_hue returns L images as they are
      uint8_t hsv[3];
      RgbToHsv(p, hsv);
      hsv[0] = static_cast<uint8_t>(hsv[0] + step.shift);
      HsvToRgb(hsv, p);
      if (channels == 4) p[3] = 255;
      return;
    }
  }
}

void Adjust(const uint8_t* in, uint8_t* out, int64_t pixels, int channels,
            const ColorStep* steps, int count, uint64_t* luma_sum) {
  uint64_t sum = 0;
  for (int64_t i = 0; i < pixels; ++i, in += channels, out += channels) {
    uint8_t p[4];
    for (int c = 0; c < channels; ++c) p[c] = in[c];
    for (int k = 0; k < count; ++k) Step(steps[k], channels, p);
    for (int c = 0; c < channels; ++c) out[c] = p[c];
    sum += channels == 1 ? p[0] : Luma(p);
  }
  if (luma_sum != nullptr) *luma_sum += sum;
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

uint8_t ScalarBlendValue(uint8_t d, uint8_t x, float alpha) {
  const float v =
      static_cast<float>(static_cast<int>(d) +
                         alpha * (static_cast<int>(x) - static_cast<int>(d)));
  if (alpha >= 0 && alpha <= 1.0f) return static_cast<uint8_t>(v);
  if (v <= 0.0f) return 0;
  if (v >= 255.0f) return 255;
  return static_cast<uint8_t>(v);
}

void ScalarHueSector(uint8_t h, int* i, float* f) {
  *i = static_cast<int>(std::floor(static_cast<float>(h) * 6.0 / 255.0));
  *f = static_cast<float>(static_cast<float>(h) * 6.0 / 255.0 -
                          static_cast<float>(*i));
}

float ScalarSaturationFraction(uint8_t s) {
  return static_cast<float>(static_cast<float>(s) / 255.0);
}

ColorKernelInfo ScalarColorInfo() {
  return {"scalar", "any CPU", 0, &Always, nullptr, &Adjust, &ToGray};
}

}  // namespace fusednorm
