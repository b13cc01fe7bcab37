// The augment matrix: every augment dispatch row this CPU supports against
// the scalar row (Pillow 9.4's C transcribed), bit for bit, for each
// kernel: 1, 3 and 4 channels (and 2, LA, for affine); images of 1x1, 1xN, Nx1, 2x2, 3x3, odd
// sizes and widths at and around every vector width; row strides longer
// than a row; affine matrices of every kind (identity, translations inside
// and beyond the image, shears, rotations at many angles, scales and
// mirrors, matrices outside 16.16's range, huge and tiny coefficients, ones
// whose positions overflow to NaN) with each filter, and BILINEAR and
// BICUBIC runs across every edge of the input and sums whose exact value
// is whole; sharpen factors inside and outside [0, 1]; lookups with random
// tables; histogram counts. Inputs are random (some of multiples of 10),
// read-only guarded buffers sized exactly (the last row is
// width * channels bytes); outputs guarded buffers poisoned first, whose
// untouched pixels must stay as they were: a read or write past either
// faults. The scalar row itself is pinned by a few literal results of
// Pillow 9.4 (PillowPins).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/augment/augment_dispatch.h"
#include "kernels/augment/scalar_augment.h"
#include "testing/guarded_buffer.h"

namespace fusednorm {
namespace {

using testing_ref::GuardedBuffer;

// Every supported row but the scalar one.
std::vector<const AugmentKernelInfo*> Rows() {
  std::vector<const AugmentKernelInfo*> rows;
  const auto& registry = AugmentKernels();
  for (const AugmentKernelInfo& row : registry.rows()) {
    if (registry.supported(row) && std::string(row.id) != "scalar") {
      rows.push_back(&row);
    }
  }
  return rows;
}

// Random bytes with runs of equal values (flat areas take other paths).
std::vector<uint8_t> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (uint8_t& x : v) x = static_cast<uint8_t>(rng());
  for (size_t i = 0; i + 3 < n; i += 13) v[i + 1] = v[i + 2] = v[i];
  return v;
}

// A read-only guarded image of `extra` bytes of stride past each row but
// the last.
struct Image {
  std::unique_ptr<GuardedBuffer> buffer;
  AugmentInput in;
};

// The image's bytes: `fill(n)` gives them.
Image MakeImageOf(int64_t h, int64_t w, int c, int64_t extra,
                  const std::function<std::vector<uint8_t>(size_t)>& fill) {
  const int64_t stride = w * c + extra;
  const size_t bytes = static_cast<size_t>((h - 1) * stride + w * c);
  Image image{std::make_unique<GuardedBuffer>(bytes), {}};
  const std::vector<uint8_t> v = fill(bytes);
  std::memcpy(image.buffer->data(), v.data(), bytes);
  image.buffer->MakeReadOnly();
  image.in = {image.buffer->data(), h, w, c, stride};
  return image;
}

Image MakeImage(int64_t h, int64_t w, int c, int64_t extra, uint32_t seed) {
  return MakeImageOf(h, w, c, extra,
                     [seed](size_t n) { return Random(n, seed); });
}

// A call of a kernel into `out`.
using Call = std::function<void(const AugmentKernelInfo&, uint8_t* out)>;

// `call` by every row into a guarded buffer of `bytes` poisoned with a
// pattern equals the scalar row's into the same pattern.
void ExpectRowsMatch(const Call& call, size_t bytes, const std::string& what) {
  std::vector<uint8_t> want(bytes);
  for (size_t i = 0; i < bytes; ++i) {
    want[i] = static_cast<uint8_t>(i * 131 + 7);
  }
  const std::vector<uint8_t> poison = want;
  call(ScalarAugmentInfo(), want.data());
  for (const AugmentKernelInfo* row : Rows()) {
    GuardedBuffer out(bytes);
    if (bytes > 0) std::memcpy(out.data(), poison.data(), bytes);
    call(*row, out.data());
    EXPECT_TRUE(out.CanaryIntact()) << row->id << ": " << what;
    for (size_t i = 0; i < bytes; ++i) {
      if (out.data()[i] != want[i]) {
        ADD_FAILURE() << row->id << ": " << what << ": byte " << i << " is "
                      << int{out.data()[i]} << ", scalar " << int{want[i]};
        break;
      }
    }
  }
}

void ExpectAffineMatches(const AugmentInput& in, const std::vector<double>& a,
                         AffineFilter filter, int64_t oh, int64_t ow,
                         const std::string& what) {
  ExpectRowsMatch(
      [&](const AugmentKernelInfo& k, uint8_t* out) {
        k.affine(in, a.data(), filter, out, oh, ow);
      },
      static_cast<size_t>(oh * ow * in.channels),
      absl::StrCat(what, " C", in.channels, " in ", in.height, "x", in.width,
                   "+", in.row_stride - in.width * in.channels, " out ", oh,
                   "x", ow, " filter ", static_cast<int>(filter)));
}

// Rotation by `degrees` about the centres of the input and the output, as
// Image.rotate makes it.
std::vector<double> Rotation(double degrees, double w, double h, double ow,
                             double oh) {
  const double t = degrees * M_PI / 180.0, c = std::cos(t), s = std::sin(t);
  return {c,  s, w / 2 - c * ow / 2 - s * oh / 2,
          -s, c, h / 2 + s * ow / 2 - c * oh / 2};
}

struct Matrix {
  std::string name;
  std::vector<double> a;
};

// Every kind of matrix, for an h x w input and an oh x ow output.
std::vector<Matrix> Matrices(double h, double w, double oh, double ow) {
  std::vector<Matrix> m = {
      {"identity", {1, 0, 0, 0, 1, 0}},
      {"translate 2,-3", {1, 0, 2, 0, 1, -3}},
      {"translate -1,1", {1, 0, -1, 0, 1, 1}},
      {"translate -2.5,1.25", {1, 0, -2.5, 0, 1, 1.25}},
      {"translate 0.5", {1, 0, 0.5, 0, 1, 0.5}},
      {"translate -0.5", {1, 0, -0.5, 0, 1, -0.5}},
      {"translate beyond", {1, 0, w + 3, 0, 1, 0}},
      {"translate before", {1, 0, 0, 0, 1, -h - 0.25}},
      {"shear x", {1, 0.3, -2, 0, 1, 0}},
      {"shear y", {1, 0, 0, -0.4, 1, 3}},
      {"shear both", {1, -1.7, 5, 0.2, 1, -1}},
      {"scale down", {2, 0, 0.25, 0, 3, 0}},
      {"scale up", {0.37, 0, 0, 0, 0.5, 0.1}},
      {"mirror", {-1, 0, w, 0, 1, 0}},
      {"flip", {1, 0, 0, 0, -1, h}},
      {"scale tiny", {1e-7, 0, 0.3, 0, 1e-7, 0.7}},
      {"all tiny", {1e-300, -1e-300, 0.5, 1e-300, 1e-300, 0.5}},
      {"outside fixed a2", {1, 0.1, 40000, 0.1, 1, 0}},
      {"outside fixed a5", {1, 0.1, 0, 0.1, 1, -40000}},
      {"double engine inside", {30000, 0.2, -14999, 0.1, 1, 0.2}},
      {"fixed edge", {1, 0.01, 32767.5 - ow - 0.01 * oh, 0.01, 1, 0}},
      {"fix overflow", {60000, 0.5, -30000, 0.5, 1, 0}},
      {"huge scale", {1e300, 0, 0, 0, -1e300, 0}},
      {"huge", {1e300, 1e300, 0, 1e300, -1e300, 0}},
      {"nan x", {1.7e308, -1.7e308, 0, 0, 0, 0.5}},
      {"nan y", {0, 0, 0.5, 1.7e308, -1.7e308, 0}},
      {"shear tiny", {1, 1e-9, 0, -1e-9, 1, 0}},
  };
  for (double degrees : {30.0, 45.0, 90.0, 180.0, 270.0, -90.0, 13.7, 123.0,
                         360.0, 89.99, -179.5}) {
    m.push_back(
        {absl::StrCat("rotate ", degrees), Rotation(degrees, w, h, ow, oh)});
  }
  return m;
}

// The affine kernels also take LA (2 channels), which the ops warp as La.
constexpr int kAffineChannels[] = {1, 2, 3, 4};

constexpr AffineFilter kFilters[] = {
    AffineFilter::kNearest, AffineFilter::kBilinear, AffineFilter::kBicubic};

// Every matrix and filter on small and degenerate shapes.
TEST(AugmentMatrix, AffineShapes) {
  const int64_t in_sizes[][2] = {{1, 1}, {1, 9}, {9, 1},  {2, 2},
                                 {3, 3}, {5, 7}, {13, 29}};
  const int64_t out_sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {3, 3}, {6, 35}};
  uint32_t seed = 1;
  for (int c : kAffineChannels) {
    for (const auto& is : in_sizes) {
      const Image image = MakeImage(is[0], is[1], c, seed % 3 ? 0 : 5, seed);
      ++seed;
      for (const auto& os : out_sizes) {
        for (const Matrix& m : Matrices(is[0], is[1], os[0], os[1])) {
          for (AffineFilter f : kFilters) {
            ExpectAffineMatches(image.in, m.a, f, os[0], os[1], m.name);
          }
        }
      }
    }
  }
}

// Output widths at and around every vector width (the vector loops' ends)
// and input widths likewise, strides longer than rows.
TEST(AugmentMatrix, AffineWidths) {
  std::vector<int64_t> widths;
  for (int64_t w = 1; w <= 70; ++w) widths.push_back(w);
  for (int64_t w : {127, 129, 257}) widths.push_back(w);
  uint32_t seed = 100;
  for (int c : kAffineChannels) {
    for (int64_t w : widths) {
      const Image image = MakeImage(4, w, c, w % 2 ? 0 : 64, ++seed);
      for (const Matrix& m :
           {Matrix{"identity", {1, 0, 0, 0, 1, 0}},
            Matrix{"translate", {1, 0, -1.5, 0, 1, 0.5}},
            Matrix{"scale", {0.7, 0, 0.2, 0, 1, 0}},
            Matrix{"shear", {1, 0.3, -0.6, 0, 1, 0}},
            Matrix{"rotate", Rotation(30, w, 4, w, 4)},
            Matrix{"rotate 180", Rotation(180, w, 4, w, 4)}}) {
        ExpectAffineMatches(image.in, m.a, AffineFilter::kNearest, 4, w,
                            m.name);
      }
      for (AffineFilter f : {AffineFilter::kBilinear, AffineFilter::kBicubic}) {
        ExpectAffineMatches(image.in, Rotation(30, w, 4, w, 4), f, 4, w,
                            "rotate");
        ExpectAffineMatches(image.in, {1, 0.3, -0.6, 0, 1, 0}, f, 4, w,
                            "shear");
        ExpectAffineMatches(image.in, {1, 0, 0, 0.2, 1, -0.3}, f, 4, w,
                            "shear y");
      }
    }
  }
}

// BILINEAR and BICUBIC where the vector rows' runs meet the input's edges:
// positions at x = -1 and width - 1 (and y likewise) in runs longer than a
// vector, the last row's last bytes read from every run end, one-row and
// one-column inputs stretched over wide outputs, and rows whose y is the
// same for every pixel (a3 = 0, and -0).
TEST(AugmentMatrix, AffineInterpolationEdges) {
  const int64_t in_sizes[][2] = {{1, 40}, {40, 1}, {2, 40},  {40, 2},
                                 {3, 33}, {7, 17}, {16, 16}, {5, 64}};
  uint32_t seed = 2000;
  for (int c : kAffineChannels) {
    for (const auto& is : in_sizes) {
      const double h = static_cast<double>(is[0]);
      const double w = static_cast<double>(is[1]);
      const Image image = MakeImage(is[0], is[1], c, seed % 2 ? 0 : 3, seed);
      ++seed;
      const int64_t oh = 2 * is[0] + 3, ow = 2 * is[1] + 5;
      // Stretch [-0.7, size + 0.7] of the input over the output; an
      // output the input's size shifted by fractions either way; a flip.
      const double sx = (w + 1.4) / static_cast<double>(ow);
      const double sy = (h + 1.4) / static_cast<double>(oh);
      for (const Matrix& m :
           {Matrix{"stretch", {sx, 0, -0.7, 0, sy, -0.7}},
            Matrix{"stretch -0", {sx, 0, -0.7, -0.0, sy, -0.7}},
            Matrix{"stretch sheared", {sx, 0.01, -0.7, 0.003, sy, -0.75}},
            Matrix{"shift -0.3", {1, 0, -0.3, 0, 1, -0.3}},
            Matrix{"shift 0.3", {1, 0, 0.3, 0, 1, 0.3}},
            Matrix{"shift 0.5", {1, 0, 0.5, 0, 1, 0.5}},
            Matrix{"flip both", {-1, 0, w, 0, -1, h}},
            Matrix{"rotate 7", Rotation(7, w, h, ow, oh)},
            Matrix{"rotate -93", Rotation(-93, w, h, ow, oh)}}) {
        for (AffineFilter f :
             {AffineFilter::kBilinear, AffineFilter::kBicubic}) {
          ExpectAffineMatches(image.in, m.a, f, oh, ow, m.name);
        }
      }
    }
  }
}

// Pixels that are multiples of 10 and matrices of tenths: the exact value of
// many BILINEAR and BICUBIC sums is a whole number, which the filters'
// roundings (with no multiply-add fused) leave at it or just below.
TEST(AugmentMatrix, AffineTenths) {
  uint32_t seed = 3000;
  for (int c : kAffineChannels) {
    const Image image = MakeImageOf(19, 37, c, 0, [&](size_t n) {
      std::mt19937 rng(++seed);
      std::vector<uint8_t> tens(n);
      for (uint8_t& v : tens) v = static_cast<uint8_t>(10 * (rng() % 26));
      return tens;
    });
    for (const Matrix& m :
         {Matrix{"shear tenths", {1, 0.1, 0.3, 0.2, 1, -0.3}},
          Matrix{"scale tenths", {0.7, 0.1, 0.9, -0.1, 0.6, 1.3}},
          Matrix{"rotate tenths", {0.8, 0.6, -0.4, -0.6, 0.8, 7.7}}}) {
      for (AffineFilter f : {AffineFilter::kBilinear, AffineFilter::kBicubic}) {
        ExpectAffineMatches(image.in, m.a, f, 23, 41, m.name);
      }
    }
    // Fractions of fifths and tenths on every output pixel.
    for (AffineFilter f : {AffineFilter::kBilinear, AffineFilter::kBicubic}) {
      ExpectAffineMatches(image.in, {0.2, 0, 0.1, 0, 0.1, 0.05}, f, 150, 150,
                          "tenths");
    }
  }
}

// Random shapes, strides and matrices of every kind.
TEST(AugmentMatrix, AffineRandom) {
  std::mt19937 rng(7);
  auto uniform = [&](double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng);
  };
  for (int i = 0; i < 400; ++i) {
    const int c = kAffineChannels[rng() % 4];
    const int64_t h = 1 + rng() % 40, w = 1 + rng() % 90;
    const int64_t oh = 1 + rng() % 30, ow = 1 + rng() % 90;
    const Image image = MakeImage(h, w, c, rng() % 2 ? 0 : rng() % 17, rng());
    std::vector<double> a;
    switch (rng() % 3) {
      case 0:
        a = Rotation(uniform(-180, 180), w, h, ow, oh);
        break;
      case 1:
        a = {uniform(-3, 3), uniform(-3, 3), uniform(-2 * w, 2 * w),
             uniform(-3, 3), uniform(-3, 3), uniform(-2 * h, 2 * h)};
        break;
      default:
        a = {uniform(0.1, 4), 0, uniform(-w, w), 0, uniform(0.1, 4),
             uniform(-h, h)};
    }
    ExpectAffineMatches(image.in, a, kFilters[rng() % 3], oh, ow,
                        absl::StrCat("random ", i));
  }
}

// A 224x224 image as the auto-augment ops see it, the larger
// positions and offsets included.
TEST(AugmentMatrix, AffineLargeImage) {
  for (int c : kAffineChannels) {
    const Image image = MakeImage(224, 224, c, 0, 224 + c);
    for (const Matrix& m : {Matrix{"shear", {1, 0.3, -33.6, 0, 1, 0}},
                            Matrix{"rotate", Rotation(30, 224, 224, 224, 224)},
                            Matrix{"translate", {1, 0, 100, 0, 1, 0}},
                            Matrix{"scale", {0.9, 0, 11.2, 0, 0.9, 11.2}}}) {
      ExpectAffineMatches(image.in, m.a, AffineFilter::kNearest, 224, 224,
                          m.name);
    }
    for (AffineFilter f : {AffineFilter::kBilinear, AffineFilter::kBicubic}) {
      ExpectAffineMatches(image.in, Rotation(30, 224, 224, 224, 224), f, 224,
                          224, "rotate");
      ExpectAffineMatches(image.in, {1, 0.3, -33.6, 0, 1, 0}, f, 224, 224,
                          "shear");
      ExpectAffineMatches(image.in, {1, 0, 0, -0.3, 1, 33.6}, f, 224, 224,
                          "shear y");
    }
  }
}

// 0.6, 1.1, 1.6 and 1.7 meet (degenerate, value) pairs where a fused
// multiply-add would round the blend differently.
constexpr float kAlphas[] = {0.0f, 0.1f, 0.5f, 1.0f, 1.9f, -0.3f,
                             1e9f, 0.6f, 1.1f, 1.6f, 1.7f};

void ExpectSharpenMatches(const AugmentInput& in, float alpha) {
  ExpectRowsMatch(
      [&](const AugmentKernelInfo& k, uint8_t* out) {
        k.sharpen(in, alpha, out);
      },
      static_cast<size_t>(in.height * in.width * in.channels),
      absl::StrCat("sharpen ", alpha, " C", in.channels, " ", in.height, "x",
                   in.width, "+", in.row_stride - in.width * in.channels));
}

TEST(AugmentMatrix, Sharpen) {
  std::vector<int64_t> widths;
  for (int64_t w = 1; w <= 70; ++w) widths.push_back(w);
  for (int64_t w : {127, 129, 257}) widths.push_back(w);
  uint32_t seed = 300;
  for (int c : {1, 3, 4}) {
    for (int64_t w : widths) {
      for (int64_t h : {1, 2, 3, 5}) {
        if (h != 3 && w > 8 && w % 5 != 0) continue;  // fewer heights
        const Image image = MakeImage(h, w, c, w % 3 ? 0 : 7, ++seed);
        // Every factor at the edge widths, three at the others.
        const bool all = w <= 8 || w % 5 == 0 || w > 70;
        for (float alpha :
             all ? std::vector<float>(std::begin(kAlphas), std::end(kAlphas))
                 : std::vector<float>{0.5f, 1.7f, -0.3f}) {
          ExpectSharpenMatches(image.in, alpha);
        }
      }
    }
  }
}

TEST(AugmentMatrix, SharpenLargeImage) {
  for (int c : {1, 3, 4}) {
    const Image image = MakeImage(224, 224, c, 0, 900 + c);
    for (float alpha : {1.5f, 1.1f, 0.6f})
      ExpectSharpenMatches(image.in, alpha);
  }
}

TEST(AugmentMatrix, LookUp) {
  uint32_t seed = 500;
  for (int c : {1, 3, 4}) {
    const std::vector<uint8_t> luts = Random(static_cast<size_t>(c) * 256, c);
    for (int64_t pixels : {0, 1, 2, 3, 5, 15, 16, 17, 21, 22, 63, 64, 65, 100,
                           127, 129, 257, 1000, 4099}) {
      const Image image = MakeImage(1, pixels == 0 ? 1 : pixels, c, 0, ++seed);
      ExpectRowsMatch(
          [&](const AugmentKernelInfo& k, uint8_t* out) {
            k.lookup(image.in.pixels, out, pixels, c, luts.data());
          },
          static_cast<size_t>(pixels * c),
          absl::StrCat("lookup C", c, " pixels ", pixels));
    }
  }
}

TEST(AugmentMatrix, Histogram) {
  uint32_t seed = 700;
  for (int c : {1, 3, 4}) {
    for (int64_t pixels : {1, 2, 3, 4, 5, 7, 17, 64, 1000, 4099}) {
      const Image image = MakeImage(1, pixels, c, 0, ++seed);
      // Counted here, on top of counts already there.
      std::vector<uint32_t> want(static_cast<size_t>(c) * 256);
      for (size_t i = 0; i < want.size(); ++i) {
        want[i] = static_cast<uint32_t>(i);
      }
      std::vector<uint32_t> start = want;
      for (int64_t i = 0; i < pixels * c; ++i) {
        ++want[(i % c) * 256 + image.in.pixels[i]];
      }
      std::vector<uint32_t> got = start;
      ScalarAugmentInfo().histogram(image.in.pixels, pixels, c, got.data());
      EXPECT_EQ(got, want) << "scalar C" << c << " pixels " << pixels;
      for (const AugmentKernelInfo* row : Rows()) {
        got = start;
        row->histogram(image.in.pixels, pixels, c, got.data());
        EXPECT_EQ(got, want) << row->id << " C" << c << " pixels " << pixels;
      }
    }
  }
}

// The input bytes of a pinned case: the sequence the generating script
// used (x = x * 1103515245 + 12345 mod 2^31, byte (x >> 16) & 255).
std::vector<uint8_t> PinBytes(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  uint32_t x = seed;
  for (uint8_t& b : v) {
    x = (x * 1103515245u + 12345u) & 0x7fffffffu;
    b = static_cast<uint8_t>((x >> 16) & 0xFF);
  }
  return v;
}

struct AffinePin {
  const char* name;
  int channels;
  int64_t height, width;
  uint32_t seed;
  int64_t out_height, out_width;
  std::vector<double> a;
  AffineFilter filter;
  std::vector<uint8_t> fill, want;
};

struct SharpenPin {
  const char* name;
  int channels;
  int64_t height, width;
  uint32_t seed;
  float alpha;
  std::vector<uint8_t> want;
};

// Results of Pillow 9.4.0 (Debian's python3-pil on x86-64), printed by a
// script that made each input image with Image.frombytes from PinBytes'
// sequence and ran, for the affine pins,
//   im.transform((out_width, out_height), Image.AFFINE, a, filter,
//                fillcolor=fill)
// (mode L, RGB, RGBA, or RGBa for 4-channel BILINEAR/BICUBIC, whose bands
// Pillow interpolates as they are), and for the sharpen pins
// ImageEnhance.Sharpness(im).enhance(alpha); then printed out.tobytes().
// The cases reach each engine: affine_fixed (rotation, shear), the scale
// engine, the double engine (check_fixed fails), the generic engine's
// bilinear and bicubic filters of 1, 3 and 4 bands; sharpen of L, RGB and
// RGBA inside and outside [0, 1].
// clang-format off
const AffinePin kAffinePins[] = {
    {"NearestRotationL", 1, 4, 5, 1, 4, 5,
     {0.8660254037844387, 0.49999999999999994, -0.6650635094610967,
      -0.49999999999999994, 0.8660254037844387, 1.5179491924311226},
     AffineFilter::kNearest, {9},
     {251, 251, 126, 129, 9, 189, 223, 251, 84, 107,
      1, 223, 124, 84, 246, 9, 191, 49, 225, 225}},
    {"NearestScaleL", 1, 4, 5, 2, 3, 4,
     {0.6, 0.0, 0.3, 0.0, 1.7, -0.2}, AffineFilter::kNearest, {9},
     {140, 33, 33, 255, 149, 19, 19, 220, 9, 9, 9, 9}},
    {"NearestDoubleEngineRgb", 3, 2, 3, 3, 2, 2,
     {30000.0, 0.2, -14999.0, 0.1, 1.0, 0.2}, AffineFilter::kNearest,
     {1, 2, 3},
     {120, 142, 180, 1, 2, 3, 61, 25, 229, 1, 2, 3}},
    {"NearestShearRgba", 4, 3, 4, 4, 3, 4,
     {1.0, 0.4, -0.7, 0.2, 1.0, 0.3}, AffineFilter::kNearest, {1, 2, 3, 4},
     {25,  102, 251, 127, 41,  202, 243, 16,  122, 67,  15,  93,
      138, 199, 232, 227, 181, 147, 128, 129, 115, 118, 100, 86,
      202, 57,  72,  70,  19,  14,  97,  14,  214, 240, 243, 63,
      1,   2,   3,   4,   1,   2,   3,   4,   1,   2,   3,   4}},
    {"BilinearShearRgb", 3, 4, 3, 5, 4, 3,
     {1.0, 0.4, -0.7, 0.2, 1.0, 0.3}, AffineFilter::kBilinear, {1, 2, 3},
     {175, 17,  140, 178, 58,  167, 168, 68,  196, 89,  56, 147,
      132, 140, 188, 118, 133, 162, 46,  120, 105, 83,  116, 139,
      190, 146, 131, 26,  49,  100, 1,   2,   3,   1,   2,   3}},
    {"BicubicRotationRgba", 4, 3, 4, 6, 3, 4,
     {0.9563047559630354, 0.29237170472273677, -0.351167069010176,
      -0.29237170472273677, 0.9563047559630354, 0.6502862755009204},
     AffineFilter::kBicubic, {0, 0, 0, 0},
     {219, 82,  112, 93,  153, 97,  229, 66,  57,  115, 255, 178,
      68,  48,  172, 239, 140, 82,  11,  112, 169, 193, 223, 80,
      116, 203, 51,  205, 99,  90,  109, 134, 0,   192, 133, 220,
      102, 198, 210, 109, 204, 221, 16,  19,  139, 219, 51,  31}},
    {"BicubicScaleL", 1, 4, 4, 7, 3, 5,
     {0.7, 0.1, -0.2, -0.1, 1.3, 0.1}, AffineFilter::kBicubic, {9},
     {92, 85, 79, 109, 148, 0, 50, 86, 60, 38, 171, 76, 138, 242, 104}},
};

const SharpenPin kSharpenPins[] = {
    {"SharpenRgb", 3, 5, 4, 8, 1.9f,
     {50,  240, 242, 153, 180, 1,   87,  12,  43,  189, 165, 70,
      31,  16,  111, 226, 255, 219, 153, 0,   55,  149, 205, 114,
      148, 105, 26,  0,   81,  123, 242, 155, 104, 104, 116, 68,
      244, 13,  105, 255, 255, 101, 2,   210, 21,  227, 179, 80,
      221, 254, 213, 43,  159, 244, 90,  180, 75,  251, 27,  128}},
    {"SharpenL", 1, 3, 3, 9, -0.3f,
     {248, 147, 111, 159, 147, 222, 141, 234, 37}},
    {"SharpenRgba", 4, 4, 5, 10, 0.5f,
     {191, 54,  237, 166, 247, 186, 194, 200, 31,  246, 85,  172,
      224, 13,  115, 160, 29,  58,  29,  198, 207, 123, 187, 163,
      157, 217, 60,  102, 92,  97,  79,  248, 146, 58,  154, 199,
      180, 89,  236, 82,  229, 3,   47,  117, 180, 182, 92,  114,
      36,  198, 97,  195, 54,  106, 108, 162, 92,  77,  9,   84,
      188, 22,  184, 57,  103, 248, 124, 149, 97,  120, 19,  28,
      51,  220, 246, 63,  66,  84,  15,  57}},
    {"SharpenLWide", 1, 3, 6, 11, 1e9f,
     {133, 216, 107, 172, 152, 150, 247, 255, 0,
      0,   0,   223, 64,  11,  245, 21,  174, 128}},
};

// clang-format on

TEST(AugmentMatrix, PillowPins) {
  for (const AffinePin& p : kAffinePins) {
    const std::vector<uint8_t> pixels =
        PinBytes(static_cast<size_t>(p.height * p.width * p.channels), p.seed);
    const AugmentInput in{pixels.data(), p.height, p.width, p.channels,
                          p.width * p.channels};
    std::vector<uint8_t> out(p.want.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = p.fill[i % p.channels];
    ScalarAugmentInfo().affine(in, p.a.data(), p.filter, out.data(),
                               p.out_height, p.out_width);
    EXPECT_EQ(out, p.want) << p.name;
  }
  for (const SharpenPin& p : kSharpenPins) {
    const std::vector<uint8_t> pixels =
        PinBytes(static_cast<size_t>(p.height * p.width * p.channels), p.seed);
    const AugmentInput in{pixels.data(), p.height, p.width, p.channels,
                          p.width * p.channels};
    std::vector<uint8_t> out(p.want.size());
    ScalarAugmentInfo().sharpen(in, p.alpha, out.data());
    EXPECT_EQ(out, p.want) << p.name;
  }
}

}  // namespace
}  // namespace fusednorm
