// The resize matrix: every resize dispatch row this CPU supports against the
// scalar reference row, bit for bit, for 1-4 channels over odd sizes (1 px,
// 1xN, Nx1, upscales, extreme ratios), boxes at every edge of a larger image,
// and random cases. Inputs are read-only guarded buffers ending where the
// image (or the row stride) ends, outputs guarded buffers of exactly the
// output's size: a read or write past either faults.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/resize/resize_dispatch.h"
#include "kernels/resize/resize_kernel.h"
#include "kernels/resize/scalar_resize.h"
#include "testing/guarded_buffer.h"

namespace fusednorm {
namespace {

using testing_ref::GuardedBuffer;

struct Case {
  int64_t image_h, image_w;  // the whole input image
  int64_t top, left, box_h, box_w;
  int64_t out_h, out_w;
  int64_t stride_pad;  // extra bytes per input row
};

std::string Describe(const Case& c, int channels) {
  return absl::StrCat("image ", c.image_h, "x", c.image_w, " box (", c.top, ",",
                      c.left, " ", c.box_h, "x", c.box_w, ") -> ", c.out_h, "x",
                      c.out_w, " C", channels, " pad ", c.stride_pad);
}

// Resizes with `row` and returns the output (checked for guard damage).
std::vector<uint8_t> Run(const ResizeKernelInfo& row, const Case& c,
                         int channels, const std::vector<uint8_t>& image) {
  const int64_t stride = c.image_w * channels + c.stride_pad;
  // The buffer ends where the last row's pixels end.
  const size_t size =
      static_cast<size_t>((c.image_h - 1) * stride + c.image_w * channels);
  GuardedBuffer in(size);
  std::copy(image.begin(), image.begin() + size, in.data());
  in.MakeReadOnly();
  GuardedBuffer out(static_cast<size_t>(c.out_h * c.out_w * channels));
  ResizeAxis h, v;
  PillowBilinearAxis(c.box_w, c.out_w, &h);
  PillowBilinearAxis(c.box_h, c.out_h, &v);
  ResizeScratch scratch;
  const size_t origin = static_cast<size_t>(c.top * stride + c.left * channels);
  ResizeArgs a{
      in.data() + origin, stride,  size - origin, channels, &h, &v, out.data(),
      c.out_w * channels, &scratch};
  row.fn(a);
  EXPECT_TRUE(out.CanaryIntact()) << row.id;
  return std::vector<uint8_t>(out.data(), out.data() + out.size());
}

void ExpectRowsAgree(const Case& c, int channels, std::mt19937* rng) {
  SCOPED_TRACE(Describe(c, channels));
  const int64_t stride = c.image_w * channels + c.stride_pad;
  std::vector<uint8_t> image(static_cast<size_t>(c.image_h * stride));
  for (uint8_t& b : image) b = static_cast<uint8_t>((*rng)());
  const std::vector<uint8_t> want = Run(ScalarResizeInfo(), c, channels, image);
  for (const ResizeKernelInfo& row : ResizeKernelTable()) {
    if (!row.supported()) continue;
    const std::vector<uint8_t> got = Run(row, c, channels, image);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i], want[i]) << "row " << row.id << " byte " << i;
    }
  }
}

// A box of box_h x box_w in each corner and the middle of a larger image.
std::vector<Case> Placements(int64_t box_h, int64_t box_w, int64_t out_h,
                             int64_t out_w) {
  const int64_t H = box_h + 3, W = box_w + 5;
  std::vector<Case> cases;
  for (int64_t top : {int64_t{0}, H - box_h, int64_t{1}}) {
    for (int64_t left : {int64_t{0}, W - box_w, int64_t{2}}) {
      for (int64_t pad : {0, 3}) {
        cases.push_back({H, W, top, left, box_h, box_w, out_h, out_w, pad});
      }
    }
  }
  // The box is the whole image.
  cases.push_back({box_h, box_w, 0, 0, box_h, box_w, out_h, out_w, 0});
  return cases;
}

TEST(ResizeMatrix, OddSizesAgreeWithScalar) {
  std::mt19937 rng(7);
  const int64_t sizes[][4] = {
      {1, 1, 1, 1},    {1, 1, 7, 5},     {1, 9, 1, 4},      {9, 1, 4, 1},
      {1, 37, 3, 19},  {37, 1, 19, 3},   {5, 7, 5, 7},      {5, 7, 11, 13},
      {33, 30, 11, 9}, {17, 300, 17, 2}, {300, 17, 3, 17},  {64, 64, 1, 1},
      {2, 500, 2, 1},  {41, 43, 97, 89}, {100, 75, 45, 45}, {3, 3, 200, 2},
  };
  for (const auto& s : sizes) {
    for (int channels = 1; channels <= 4; ++channels) {
      for (const Case& c : Placements(s[0], s[1], s[2], s[3])) {
        ExpectRowsAgree(c, channels, &rng);
      }
    }
  }
}

TEST(ResizeMatrix, RandomCasesAgreeWithScalar) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int64_t> side(1, 90);
  for (int i = 0; i < 300; ++i) {
    const int64_t image_h = side(rng), image_w = side(rng);
    const int64_t box_h = 1 + rng() % image_h, box_w = 1 + rng() % image_w;
    const Case c{image_h,
                 image_w,
                 static_cast<int64_t>(rng() % (image_h - box_h + 1)),
                 static_cast<int64_t>(rng() % (image_w - box_w + 1)),
                 box_h,
                 box_w,
                 side(rng),
                 side(rng),
                 static_cast<int64_t>(rng() % 5)};
    ExpectRowsAgree(c, 1 + static_cast<int>(rng() % 4), &rng);
  }
}

// The weights of every output sum to about one (2^22 in fixed point) and no
// window leaves the input.
TEST(ResizeMatrix, AxesStayInsideTheInput) {
  for (int64_t in : {1, 2, 3, 7, 224, 1000}) {
    for (int64_t out : {1, 2, 5, 224, 999, 3000}) {
      ResizeAxis axis;
      PillowBilinearAxis(in, out, &axis);
      for (int64_t i = 0; i < out; ++i) {
        ASSERT_GE(axis.start[i], 0);
        ASSERT_LE(axis.start[i] + axis.taps, in) << in << "->" << out;
        if (i > 0) {
          ASSERT_GE(axis.start[i], axis.start[i - 1]);
        }
        int64_t sum = 0;
        for (int k = 0; k < axis.taps; ++k) {
          sum += axis.weights[i * axis.taps + k];
        }
        ASSERT_NEAR(sum, 1 << kResizePrecisionBits, axis.taps)
            << in << "->" << out << " output " << i;
      }
    }
  }
}

TEST(ResizeMatrix, TableHasScalarAndHighway) {
  EXPECT_TRUE(FindResizeKernel("scalar").ok());
  EXPECT_TRUE(FindResizeKernel("highway").ok());
  EXPECT_EQ(FindResizeKernel("nope").status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace fusednorm
