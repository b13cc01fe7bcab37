// The colour matrix: every colour dispatch row this CPU supports against
// the scalar row (Pillow's C transcribed), bit for bit, for each kernel,
// 1, 3 and 4 channels, widths 1 .. past several vectors, factors inside
// and outside [0, 1] and at their edges, in place and out of place; the
// hue conversion over every 24-bit colour for a few shifts. Inputs are
// random, read-only guarded buffers; outputs guarded buffers poisoned
// first: a read or write past either faults. The scalar row itself is
// checked against Pillow by the Python parity tests
// (python/color_parity_test.py).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/color/color_dispatch.h"
#include "kernels/color/scalar_color.h"
#include "testing/guarded_buffer.h"

namespace fusednorm {
namespace {

using testing_ref::GuardedBuffer;

std::vector<const ColorKernelInfo*> Rows() {
  std::vector<const ColorKernelInfo*> rows;
  const auto& registry = ColorKernels();
  for (const ColorKernelInfo& row : registry.rows()) {
    if (registry.supported(row)) rows.push_back(&row);
  }
  return rows;
}

std::vector<uint8_t> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (uint8_t& x : v) x = static_cast<uint8_t>(rng());
  // Runs of equal values and grey pixels, which take other branches.
  for (size_t i = 0; i + 3 < n; i += 17) v[i + 1] = v[i + 2] = v[i];
  return v;
}

// A kernel call on one row of pixels.
using Call = std::function<void(const ColorKernelInfo&, const uint8_t* in,
                                uint8_t* out, int64_t pixels)>;

// `call` with `row` on `input`, out of place (guarded, poisoned output of
// out_bytes) and in place; both must equal the scalar row's out-of-place
// result.
void ExpectRowMatches(const ColorKernelInfo& row, const Call& call,
                      const std::vector<uint8_t>& input, int64_t pixels,
                      size_t out_bytes, const std::string& what) {
  SCOPED_TRACE(absl::StrCat(row.id, ": ", what));
  GuardedBuffer in(input.size());
  std::memcpy(in.data(), input.data(), input.size());
  in.MakeReadOnly();
  std::vector<uint8_t> want(out_bytes, 0xA5);
  call(ScalarColorInfo(), in.data(), want.data(), pixels);
  GuardedBuffer out(out_bytes);
  std::memset(out.data(), 0x5A, out_bytes);
  call(row, in.data(), out.data(), pixels);
  EXPECT_TRUE(out.CanaryIntact());
  ASSERT_EQ(0, std::memcmp(out.data(), want.data(), out_bytes));
  if (out_bytes != input.size()) return;  // in place only where sizes agree
  GuardedBuffer same(input.size());
  std::memcpy(same.data(), input.data(), input.size());
  call(row, same.data(), same.data(), pixels);
  ASSERT_EQ(0, std::memcmp(same.data(), want.data(), out_bytes));
}

constexpr int kWidths[] = {1,  2,  3,  4,  5,  7,   8,   9,   15,  16,  17,
                           31, 33, 63, 64, 65, 100, 127, 129, 255, 257, 1000};

ColorStep Blend(float alpha, int degenerate) {
  ColorStep s;
  s.kind = ColorStep::Kind::kBlendConstant;
  s.alpha = alpha;
  s.degenerate = static_cast<uint8_t>(degenerate);
  return s;
}
ColorStep Gray(float alpha) {
  ColorStep s;
  s.kind = ColorStep::Kind::kBlendGray;
  s.alpha = alpha;
  return s;
}
ColorStep Hue(int shift) {
  ColorStep s;
  s.kind = ColorStep::Kind::kHue;
  s.shift = static_cast<uint8_t>(shift);
  return s;
}

// `steps` by `row` and by the scalar row, the luma sums too.
void ExpectAdjustMatches(const ColorKernelInfo& row, int channels, int width,
                         const std::vector<ColorStep>& steps,
                         const std::string& what) {
  const auto input = Random(static_cast<size_t>(width * channels),
                            static_cast<uint32_t>(width * 31 + channels));
  ExpectRowMatches(
      row,
      [&](const ColorKernelInfo& k, const uint8_t* in, uint8_t* out,
          int64_t n) {
        k.adjust(in, out, n, channels, steps.data(),
                 static_cast<int>(steps.size()), nullptr);
      },
      input, width, input.size(),
      absl::StrCat(what, " C", channels, " w", width));
  // The luma sums of the results, added to what the counter held.
  uint64_t once_want = 5, once_got = 5;
  std::vector<uint8_t> a(input.size()), b(input.size());
  ScalarColorInfo().adjust(input.data(), a.data(), width, channels,
                           steps.data(), static_cast<int>(steps.size()),
                           &once_want);
  row.adjust(input.data(), b.data(), width, channels, steps.data(),
             static_cast<int>(steps.size()), &once_got);
  EXPECT_EQ(once_got, once_want)
      << row.id << " " << what << " C" << channels << " w" << width;
}

// Each blend alone at factors inside and outside [0, 1] and their edges,
// with several constants.
TEST(ColorMatrix, Blends) {
  const float alphas[] = {0.0f,       1.0f, 0.5f,   0.6f,  1.4f,  0.9999999f,
                          1.0000001f, 2.5f, 100.0f, -0.3f, 1e-7f, 1e9f};
  for (const ColorKernelInfo* row : Rows()) {
    for (int channels : {1, 3, 4}) {
      for (int width : kWidths) {
        for (float alpha : alphas) {
          for (int d : {0, 1, 117, 255}) {
            ExpectAdjustMatches(*row, channels, width, {Blend(alpha, d)},
                                absl::StrCat("blend ", alpha, " d ", d));
          }
          ExpectAdjustMatches(*row, channels, width, {Gray(alpha)},
                              absl::StrCat("gray ", alpha));
        }
      }
    }
  }
}

// Sequences as ColorJitter makes them, every order of the four kinds, and
// a copy that only sums.
TEST(ColorMatrix, StepSequences) {
  std::vector<ColorStep> four = {Blend(1.3f, 0), Blend(0.7f, 120), Gray(1.4f),
                                 Hue(231)};
  std::sort(four.begin(), four.end(),
            [](const ColorStep& a, const ColorStep& b) {
              return a.kind < b.kind || (a.kind == b.kind && a.alpha < b.alpha);
            });
  for (const ColorKernelInfo* row : Rows()) {
    for (int channels : {1, 3, 4}) {
      for (int width : {1, 7, 8, 17, 65, 257}) {
        ExpectAdjustMatches(*row, channels, width, {}, "copy");
        std::vector<ColorStep> steps = four;
        int orders = 0;
        do {
          ExpectAdjustMatches(*row, channels, width, steps,
                              absl::StrCat("order ", orders++));
        } while (std::next_permutation(
            steps.begin(), steps.end(),
            [](const ColorStep& a, const ColorStep& b) {
              return a.kind < b.kind || (a.kind == b.kind && a.alpha < b.alpha);
            }));
      }
    }
  }
}

TEST(ColorMatrix, Grayscale) {
  for (const ColorKernelInfo* row : Rows()) {
    for (int channels : {3, 4}) {
      for (int width : kWidths) {
        const auto input = Random(static_cast<size_t>(width * channels),
                                  static_cast<uint32_t>(7 * width + channels));
        for (int out_channels : {1, 3}) {
          ExpectRowMatches(
              *row,
              [&](const ColorKernelInfo& k, const uint8_t* in, uint8_t* out,
                  int64_t n) { k.to_gray(in, out, n, channels, out_channels); },
              input, width, static_cast<size_t>(width * out_channels),
              absl::StrCat("to_gray C", channels, "->", out_channels, " w",
                           width));
        }
      }
    }
  }
}

TEST(ColorMatrix, HueRandomRows) {
  for (const ColorKernelInfo* row : Rows()) {
    for (int channels : {3, 4}) {
      for (int width : kWidths) {
        for (int shift : {0, 1, 25, 128, 230, 255}) {
          ExpectAdjustMatches(*row, channels, width, {Hue(shift)},
                              absl::StrCat("hue ", shift));
        }
      }
    }
  }
}

// Every 24-bit colour, in rows of kMaxColorPixels, for every SIMD row this
// CPU supports: two shifts for the dispatched row, one for the per-target
// rows (their hue arithmetic is the same, in other vector widths); every
// shift for the dispatched row with FUSEDNORM_EXHAUSTIVE=1 (about five
// minutes: every (h, s, v) hsv2rgb meets).
void ExpectEveryColourMatches(const ColorKernelInfo& row,
                              const std::vector<uint8_t>& all,
                              const std::vector<int>& shifts) {
  std::vector<uint8_t> want(all.size()), got(all.size());
  for (int shift : shifts) {
    const ColorStep step = Hue(shift);
    // In calls of kMaxColorPixels, the most a call takes.
    for (int64_t at = 0; at < (int64_t{1} << 24); at += kMaxColorPixels) {
      ScalarColorInfo().adjust(all.data() + 3 * at, want.data() + 3 * at,
                               kMaxColorPixels, 3, &step, 1, nullptr);
      row.adjust(all.data() + 3 * at, got.data() + 3 * at, kMaxColorPixels, 3,
                 &step, 1, nullptr);
    }
    size_t differ = 0, first = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      if (got[i] != want[i] && differ++ == 0) first = i;
    }
    EXPECT_EQ(differ, 0u) << row.id << " shift " << shift
                          << ": first at colour " << first / 3;
  }
}

TEST(ColorMatrix, HueEveryColour) {
  std::vector<uint8_t> all(size_t{3} << 24);
  for (uint32_t c = 0; c < (1u << 24); ++c) {
    all[3 * c] = static_cast<uint8_t>(c >> 16);
    all[3 * c + 1] = static_cast<uint8_t>(c >> 8);
    all[3 * c + 2] = static_cast<uint8_t>(c);
  }
  std::vector<int> shifts = {0, 231};
  if (const char* e = std::getenv("FUSEDNORM_EXHAUSTIVE"); e && *e == '1') {
    shifts.clear();
    for (int shift = 0; shift < 256; ++shift) shifts.push_back(shift);
  }
  for (const ColorKernelInfo* row : Rows()) {
    const std::string id = row->id;
    if (id == "scalar") continue;  // the reference
    ExpectEveryColourMatches(*row, all,
                             id == "highway" ? shifts : std::vector<int>{231});
  }
}

}  // namespace
}  // namespace fusednorm
