// Test JPEGs through libjpeg's compress API (jpeg_files.h). libjpeg reports
// errors through error_exit, which longjmps back here.
#include "testing/jpeg_files.h"

// clang-format off
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <jpeglib.h>
// clang-format on

#include <algorithm>
#include <cmath>
#include <random>

namespace fusednorm {
namespace {

struct Error {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
};

void Exit(j_common_ptr cinfo) {
  std::longjmp(reinterpret_cast<Error*>(cinfo->err)->jump, 1);
}

void Quiet(j_common_ptr, int) {}

// A progression whose AC scans stop at point transform `al` (one DC scan,
// then one AC scan per component) into `scans` (num_components + 1).
void Unrefined(int al, jpeg_compress_struct* c, jpeg_scan_info* scans) {
  scans[0].comps_in_scan = c->num_components;
  for (int i = 0; i < c->num_components; ++i) scans[0].component_index[i] = i;
  scans[0].Ss = scans[0].Se = scans[0].Ah = scans[0].Al = 0;
  for (int i = 0; i < c->num_components; ++i) {
    jpeg_scan_info& s = scans[1 + i];
    s.comps_in_scan = 1;
    s.component_index[0] = i;
    s.Ss = 1;
    s.Se = 63;
    s.Ah = 0;
    s.Al = al;
  }
  c->scan_info = scans;
  c->num_scans = c->num_components + 1;
}

// Sets everything but the data source and destination from `spec`; `scans`
// holds a custom progression (5 entries).
void Configure(const JpegSpec& spec, jpeg_compress_struct* c,
               jpeg_scan_info* scans) {
  c->image_width = spec.width;
  c->image_height = spec.height;
  c->input_components = spec.components;
  c->in_color_space = spec.components == 1   ? JCS_GRAYSCALE
                      : spec.components == 4 ? JCS_CMYK
                                             : JCS_RGB;
  jpeg_set_defaults(c);
  if (spec.components == 4)
    jpeg_set_colorspace(c, spec.ycck ? JCS_YCCK : JCS_CMYK);
  jpeg_set_quality(c, spec.quality, TRUE);
  for (int i = 0; i < c->num_components; ++i) {
    const bool luma = i == 0 || i == 3;
    c->comp_info[i].h_samp_factor = luma ? spec.h_samp : 1;
    c->comp_info[i].v_samp_factor = luma ? spec.v_samp : 1;
  }
  c->restart_interval = spec.restart_mcus;
  c->restart_in_rows = spec.restart_rows;
  c->arith_code = spec.arithmetic ? TRUE : FALSE;
  c->optimize_coding = spec.optimize ? TRUE : FALSE;
  if (spec.progressive) jpeg_simple_progression(c);
  if (spec.unrefined_ac_bits > 0) Unrefined(spec.unrefined_ac_bits, c, scans);
}

// One octave of value noise: random values on a grid `step` pixels apart,
// interpolated with smoothstep weights.
void AddOctave(int h, int w, int step, double amplitude, std::mt19937* rng,
               std::vector<double>* out) {
  const int gh = h / step + 2, gw = w / step + 2;
  std::vector<double> grid(gh * gw);
  std::uniform_real_distribution<double> u(-1, 1);
  for (double& g : grid) g = u(*rng);
  for (int y = 0; y < h; ++y) {
    const int gy = y / step;
    double fy = static_cast<double>(y % step) / step;
    fy = fy * fy * (3 - 2 * fy);
    for (int x = 0; x < w; ++x) {
      const int gx = x / step;
      double fx = static_cast<double>(x % step) / step;
      fx = fx * fx * (3 - 2 * fx);
      const double* g = &grid[gy * gw + gx];
      const double top = g[0] + (g[1] - g[0]) * fx;
      const double bottom = g[gw] + (g[gw + 1] - g[gw]) * fx;
      (*out)[y * w + x] += amplitude * (top + (bottom - top) * fy);
    }
  }
}

// How the octaves' amplitude falls with their frequency: as step^0.3, more
// fine detail than a 1/f spectrum, which gives quality-90 files of about the
// bytes per pixel of photographs (0.45).
constexpr double kSlope = 0.3;

// Fractal noise: octaves from `coarsest` pixels down to `finest`, the
// amplitude (step / coarsest)^kSlope.
std::vector<double> Fractal(int h, int w, int coarsest, int finest,
                            std::mt19937* rng) {
  std::vector<double> f(h * w, 0.0);
  for (int step = coarsest; step >= finest; step /= 2) {
    AddOctave(h, w, step,
              std::pow(step / static_cast<double>(coarsest), kSlope), rng, &f);
  }
  return f;
}

}  // namespace

std::vector<uint8_t> EncodeTestJpeg(const JpegSpec& spec,
                                    const std::vector<uint8_t>& pixels) {
  jpeg_compress_struct c;
  Error e;
  c.err = jpeg_std_error(&e.pub);
  e.pub.error_exit = Exit;
  e.pub.emit_message = Quiet;
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  std::vector<uint8_t> out;
  if (setjmp(e.jump)) {
    jpeg_destroy_compress(&c);
    std::free(buffer);
    return {};
  }
  jpeg_create_compress(&c);
  jpeg_mem_dest(&c, &buffer, &size);
  jpeg_scan_info scans[5];
  Configure(spec, &c, scans);
  jpeg_start_compress(&c, TRUE);
  const size_t stride = static_cast<size_t>(spec.width) * spec.components;
  while (c.next_scanline < c.image_height) {
    JSAMPROW row =
        const_cast<uint8_t*>(pixels.data()) + c.next_scanline * stride;
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  out.assign(buffer, buffer + size);
  std::free(buffer);
  return out;
}

std::vector<uint8_t> NoisyGradient(int height, int width, int channels,
                                   uint32_t seed) {
  std::vector<uint8_t> px(static_cast<size_t>(height) * width * channels);
  std::mt19937 rng(seed);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width * channels; ++x) {
      px[(static_cast<size_t>(y) * width * channels) + x] =
          static_cast<uint8_t>(x * 3 + y * 5 + rng() % 40);
    }
  }
  return px;
}

std::vector<uint8_t> PhotoLike(int height, int width, uint32_t seed) {
  std::mt19937 rng(seed);
  const int h = height, w = width;
  std::vector<double> luma = Fractal(h, w, 128, 1, &rng);
  const std::vector<double> cb = Fractal(h, w, 128, 8, &rng);
  const std::vector<double> cr = Fractal(h, w, 128, 8, &rng);
  // Shapes: a flat offset of luma and colour inside, hard edges.
  std::uniform_real_distribution<double> u(0, 1);
  struct Shape {
    double cy, cx, ry, rx, dl, dcb, dcr;
  };
  std::vector<Shape> shapes(6 + rng() % 7);
  for (Shape& s : shapes) {
    s = {u(rng) * h,
         u(rng) * w,
         (0.05 + 0.3 * u(rng)) * h,
         (0.05 + 0.3 * u(rng)) * w,
         u(rng) * 1.6 - 0.8,
         u(rng) * 0.8 - 0.4,
         u(rng) * 0.8 - 0.4};
  }
  std::normal_distribution<double> noise(0, 2.0);
  std::vector<uint8_t> px(static_cast<size_t>(h) * w * 3);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      double l = luma[y * w + x], b = cb[y * w + x], r = cr[y * w + x];
      for (const Shape& s : shapes) {
        const double dy = (y - s.cy) / s.ry, dx = (x - s.cx) / s.rx;
        if (dy * dy + dx * dx < 1) {
          l += s.dl;
          b += s.dcb;
          r += s.dcr;
        }
      }
      const double Y = 128 + 55 * l, Cb = 30 * b, Cr = 30 * r;
      const double rgb[3] = {Y + 1.402 * Cr, Y - 0.344 * Cb - 0.714 * Cr,
                             Y + 1.772 * Cb};
      for (int c = 0; c < 3; ++c) {
        px[(static_cast<size_t>(y) * w + x) * 3 + c] = static_cast<uint8_t>(
            std::clamp(std::lround(rgb[c] + noise(rng)), 0L, 255L));
      }
    }
  }
  return px;
}

}  // namespace fusednorm
