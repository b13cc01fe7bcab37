// kernels/formats.h against the independent reference (testing/reference.h),
// which computes the same rules another way (frexp/ldexp, its own indexing).
#include "kernels/formats.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "core/format_names.h"
#include "gtest/gtest.h"
#include "testing/reference.h"

namespace fusednorm {
namespace {

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Every float whose float16 rounding is a close call: each half value, its
// neighbours' midpoints and one float ulp either side of them, both signs;
// then random floats below 2^17 in magnitude.
TEST(Formats, FloatToHalfBitsMatchesTheReference) {
  std::vector<float> cases;
  for (uint32_t h = 0; h < 0x7C00; ++h) {
    const float lo = testing_ref::HalfBitsToFloat(h);
    const float hi = testing_ref::HalfBitsToFloat(h + 1);  // 0x7C00: infinity
    const float mid = h + 1 == 0x7C00 ? 65520.0f : (lo + hi) / 2;
    for (float v :
         {lo, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) {
      cases.push_back(v);
      cases.push_back(-v);
    }
  }
  std::mt19937 gen(3);
  for (int i = 0; i < 1000000; ++i) {
    cases.push_back(FromBits(gen() % 0x48000000u | (gen() & 0x80000000u)));
  }
  int failures = 0;
  for (float v : cases) {
    const uint16_t got = FloatToHalfBits(v);
    const uint16_t want = testing_ref::FloatToHalfBits(v);
    if (got != want && failures++ < 5) {
      ADD_FAILURE() << v << ": got 0x" << std::hex << got << ", want 0x"
                    << want;
    }
  }
}

TEST(Formats, FloatToBFloat16BitsMatchesTheReference) {
  std::mt19937 gen(4);
  int failures = 0;
  for (int i = 0; i < 2000000; ++i) {
    uint32_t u = gen();
    if ((u & 0x7F800000u) == 0x7F800000u) continue;  // finite inputs only
    if (i % 2) u = (u & 0xFFFF0000u) | 0x8000u;      // exact ties
    const float v = FromBits(u);
    const uint16_t got = FloatToBFloat16Bits(v);
    const uint16_t want = testing_ref::FloatToBFloat16Bits(v);
    if (got != want && failures++ < 5) {
      ADD_FAILURE() << v << ": got 0x" << std::hex << got << ", want 0x"
                    << want;
    }
  }
}

TEST(Formats, DecodingMatchesTheReferenceForEveryPattern) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const float half = HalfBitsToFloat(b);
    const float ref = testing_ref::HalfBitsToFloat(b);
    if (std::isnan(ref)) {
      EXPECT_TRUE(std::isnan(half)) << std::hex << b;
    } else {
      EXPECT_EQ(std::memcmp(&half, &ref, 4), 0) << std::hex << b;
    }
    const float bf = BFloat16BitsToFloat(b);
    const float bf_ref = testing_ref::BFloat16BitsToFloat(b);
    EXPECT_EQ(std::memcmp(&bf, &bf_ref, 4), 0) << std::hex << b;
  }
}

// The reference encodes a tensor of distinct values; OutputIndex must find
// each one where the reference put it.
TEST(Formats, OutputIndexFindsWhatTheReferenceEncoded) {
  for (Layout layout : {Layout::kHWC, Layout::kHWC4, Layout::kCHW}) {
    for (int channels = 1; channels <= kMaxChannels; ++channels) {
      testing_ref::Chw<float> t;
      t.channels = channels;
      t.height = 3;
      t.width = 5;
      t.data.resize(channels * 3 * 5);
      for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = 1.0f + i;
      const std::vector<uint8_t> bytes =
          testing_ref::Encode(t, DType::kFloat32, layout);
      for (int c = 0; c < channels; ++c) {
        for (int64_t h = 0; h < 3; ++h) {
          for (int64_t w = 0; w < 5; ++w) {
            const int64_t i = OutputIndex(layout, 3, 5, channels, c, h, w);
            float v;
            std::memcpy(&v, &bytes[i * 4], 4);
            EXPECT_EQ(v, t.at(c, h, w)) << LayoutName(layout) << " c" << c;
          }
        }
      }
    }
  }
}

TEST(Formats, ErasedRowsAndPixels) {
  const EraseRect r{2, 3, 4, 5};  // rows 2..5, columns 3..7
  for (int64_t h = 0; h < 10; ++h) {
    EXPECT_EQ(ErasesRow(r, h), h >= 2 && h < 6) << h;
    for (int64_t w = 0; w < 10; ++w) {
      EXPECT_EQ(ErasesPixel(r, h, w), h >= 2 && h < 6 && w >= 3 && w < 8);
    }
  }
  for (const EraseRect& empty :
       {EraseRect{2, 3, 0, 5}, EraseRect{2, 3, 4, 0}}) {
    for (int64_t h = 0; h < 10; ++h) EXPECT_FALSE(ErasesRow(empty, h));
  }
}

}  // namespace
}  // namespace fusednorm
