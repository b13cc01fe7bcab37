// The colour matrix: every colour dispatch row this CPU supports against
// the scalar row (Pillow's C transcribed), bit for bit, for each kernel,
// 1, 3 and 4 channels, widths 1 .. past several vectors, factors inside
// and outside [0, 1] and at their edges, in place and out of place; the
// hue conversion over every 24-bit colour for a few shifts. Inputs are
// random, read-only guarded buffers; outputs guarded buffers poisoned
// first: a read or write past either faults. The scalar row itself is
// checked against Pillow by the Python parity tests
// (python/color_parity_test.py).
#include <cstdint>
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

constexpr int kWidths[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63,
                           64, 65, 100, 127, 129, 255, 257, 1000};

TEST(ColorMatrix, BlendConstant) {
  const float alphas[] = {0.0f, 1.0f, 0.5f, 0.6f, 1.4f, 0.9999999f,
                          1.0000001f, 2.5f, 100.0f, -0.3f, 1e-7f};
  for (const ColorKernelInfo* row : Rows()) {
    for (int channels : {1, 3, 4}) {
      for (int width : kWidths) {
        const auto input = Random(static_cast<size_t>(width * channels),
                                  static_cast<uint32_t>(width * channels));
        for (float alpha : alphas) {
          for (int degenerate : {0, 1, 117, 255}) {
            ExpectRowMatches(
                *row,
                [&](const ColorKernelInfo& k, const uint8_t* in, uint8_t* out,
                    int64_t n) {
                  k.blend_constant(in, out, n, channels, alpha,
                                   static_cast<uint8_t>(degenerate));
                },
                input, width, input.size(),
                absl::StrCat("C", channels, " w", width, " alpha ", alpha,
                             " d ", degenerate));
          }
        }
      }
    }
  }
}

TEST(ColorMatrix, BlendGrayAndGrayscale) {
  const float alphas[] = {0.0f, 1.0f, 0.6f, 1.4f, 3.0f, -1.0f};
  for (const ColorKernelInfo* row : Rows()) {
    for (int channels : {3, 4}) {
      for (int width : kWidths) {
        const auto input = Random(static_cast<size_t>(width * channels),
                                  static_cast<uint32_t>(7 * width + channels));
        for (float alpha : alphas) {
          ExpectRowMatches(
              *row,
              [&](const ColorKernelInfo& k, const uint8_t* in, uint8_t* out,
                  int64_t n) { k.blend_gray(in, out, n, channels, alpha); },
              input, width, input.size(),
              absl::StrCat("blend_gray C", channels, " w", width, " ", alpha));
        }
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

TEST(ColorMatrix, LumaSum) {
  for (const ColorKernelInfo* row : Rows()) {
    for (int channels : {1, 3, 4}) {
      for (int width : kWidths) {
        const auto input = Random(static_cast<size_t>(width * channels),
                                  static_cast<uint32_t>(width + 3 * channels));
        EXPECT_EQ(row->luma_sum(input.data(), width, channels),
                  ScalarColorInfo().luma_sum(input.data(), width, channels))
            << row->id << " C" << channels << " w" << width;
      }
    }
    // A long row of white pixels: the sum past 2^31.
    std::vector<uint8_t> white(size_t{3} << 24, 255);
    EXPECT_EQ(row->luma_sum(white.data(), int64_t{1} << 24, 3),
              uint64_t{255} << 24)
        << row->id;
  }
}

TEST(ColorMatrix, ShiftHueRandomRows) {
  for (const ColorKernelInfo* row : Rows()) {
    for (int channels : {3, 4}) {
      for (int width : kWidths) {
        const auto input = Random(static_cast<size_t>(width * channels),
                                  static_cast<uint32_t>(width * 11 + channels));
        for (int shift : {0, 1, 25, 128, 230, 255}) {
          ExpectRowMatches(
              *row,
              [&](const ColorKernelInfo& k, const uint8_t* in, uint8_t* out,
                  int64_t n) {
                k.shift_hue(in, out, n, channels, static_cast<uint8_t>(shift));
              },
              input, width, input.size(),
              absl::StrCat("C", channels, " w", width, " shift ", shift));
        }
      }
    }
  }
}

// Every 24-bit colour, one row of 2^24 pixels, for each row and a few shifts.
TEST(ColorMatrix, ShiftHueEveryColour) {
  std::vector<uint8_t> all(size_t{3} << 24);
  for (uint32_t c = 0; c < (1u << 24); ++c) {
    all[3 * c] = static_cast<uint8_t>(c >> 16);
    all[3 * c + 1] = static_cast<uint8_t>(c >> 8);
    all[3 * c + 2] = static_cast<uint8_t>(c);
  }
  std::vector<uint8_t> want(all.size()), got(all.size());
  for (int shift : {0, 231}) {
    ScalarColorInfo().shift_hue(all.data(), want.data(), int64_t{1} << 24, 3,
                                static_cast<uint8_t>(shift));
    for (const ColorKernelInfo* row : Rows()) {
      if (std::string(row->id) == "scalar") continue;
      row->shift_hue(all.data(), got.data(), int64_t{1} << 24, 3,
                     static_cast<uint8_t>(shift));
      size_t differ = 0, first = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        if (got[i] != want[i] && differ++ == 0) first = i;
      }
      EXPECT_EQ(differ, 0u) << row->id << " shift " << shift
                            << ": first at colour " << first / 3;
    }
  }
}

}  // namespace
}  // namespace fusednorm
