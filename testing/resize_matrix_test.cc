// The resize matrix: every resize dispatch row this CPU supports against the
// scalar reference row, bit for bit, in both pass orders, for 1-4 channels
// over odd sizes (1 px, 1xN, Nx1, upscales, extreme ratios), boxes at every
// edge of a larger image, and random cases; and the scalar row's two orders
// against its two passes run one at a time. Inputs are read-only guarded
// buffers ending where the image (or the row stride) ends, outputs guarded
// buffers of exactly the output's size: a read or write past either
// faults.
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

constexpr ResizePassOrder kOrders[] = {ResizePassOrder::kHorizontalFirst,
                                       ResizePassOrder::kVerticalFirst};

const char* OrderName(ResizePassOrder order) {
  return order == ResizePassOrder::kVerticalFirst ? "vertical first"
                                                  : "horizontal first";
}

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

// Resizes with `row` through axes h and v in `order` and `scratch` (kept by
// the caller or fresh) and returns the output (checked for guard damage).
std::vector<uint8_t> RunRow(const ResizeKernelInfo& row, const Case& c,
                            int channels, const std::vector<uint8_t>& image,
                            const ResizeAxis& h, const ResizeAxis& v,
                            ResizeScratch* scratch, ResizePassOrder order) {
  const int64_t stride = c.image_w * channels + c.stride_pad;
  // The buffer ends where the last row's pixels end.
  const size_t size =
      static_cast<size_t>((c.image_h - 1) * stride + c.image_w * channels);
  GuardedBuffer in(size);
  std::copy(image.begin(), image.begin() + size, in.data());
  in.MakeReadOnly();
  GuardedBuffer out(static_cast<size_t>(c.out_h * c.out_w * channels));
  const size_t origin = static_cast<size_t>(c.top * stride + c.left * channels);
  ResizeArgs a{
      in.data() + origin, stride,  size - origin, channels, &h, &v, out.data(),
      c.out_w * channels, scratch, order};
  row.fn(a);
  EXPECT_TRUE(out.CanaryIntact()) << row.id;
  return std::vector<uint8_t>(out.data(), out.data() + out.size());
}

// The same with Pillow's weights and a fresh scratch.
std::vector<uint8_t> RunRow(const ResizeKernelInfo& row, const Case& c,
                            int channels, const std::vector<uint8_t>& image,
                            ResizePassOrder order) {
  ResizeAxis h, v;
  PillowBilinearAxis(c.box_w, c.out_w, &h);
  PillowBilinearAxis(c.box_h, c.out_h, &v);
  ResizeScratch scratch;
  return RunRow(row, c, channels, image, h, v, &scratch, order);
}

std::vector<uint8_t> RandomImage(const Case& c, int channels,
                                 std::mt19937* rng) {
  const int64_t stride = c.image_w * channels + c.stride_pad;
  std::vector<uint8_t> image(static_cast<size_t>(c.image_h * stride));
  for (uint8_t& b : image) b = static_cast<uint8_t>((*rng)());
  return image;
}

void ExpectRowsAgree(const Case& c, int channels, std::mt19937* rng) {
  SCOPED_TRACE(Describe(c, channels));
  const std::vector<uint8_t> image = RandomImage(c, channels, rng);
  for (const ResizePassOrder order : kOrders) {
    const std::vector<uint8_t> want =
        RunRow(ScalarResizeInfo(), c, channels, image, order);
    for (const ResizeKernelInfo& row : ResizeKernelTable()) {
      if (!row.supported()) continue;
      const std::vector<uint8_t> got = RunRow(row, c, channels, image, order);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i], want[i])
            << "row " << row.id << ", " << OrderName(order) << ", byte " << i;
      }
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
      {1, 1, 1, 1},
      {1, 1, 7, 5},
      {1, 9, 1, 4},
      {9, 1, 4, 1},
      {1, 37, 3, 19},
      {37, 1, 19, 3},
      {5, 7, 5, 7},
      {5, 7, 11, 13},
      {33, 30, 11, 9},
      {17, 300, 17, 2},
      {300, 17, 3, 17},
      {64, 64, 1, 1},
      {2, 500, 2, 1},
      {41, 43, 97, 89},
      {100, 75, 45, 45},
      {3, 3, 200, 2},
      // One axis the identity, the other resized; the horizontal one past
      // what the Highway rows' byte windows hold (7.5x), the vertical one
      // as far (7.5x).
      {20, 50, 20, 40},
      {50, 20, 40, 20},
      {40, 300, 30, 40},
      {300, 40, 40, 30},
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

// One scratch kept across resizes of different sizes, channel counts and
// boxes, each size twice in a row (once in each pass order), as a worker
// keeps it: tables a row keeps from one call to the next must be rebuilt
// whenever the sizes change and reused only when they do not.
TEST(ResizeMatrix, KeptScratchAgreesWithScalar) {
  std::mt19937 rng(13);
  std::uniform_int_distribution<int64_t> side(1, 120);
  for (const ResizeKernelInfo& row : ResizeKernelTable()) {
    if (!row.supported()) continue;
    ResizeScratch scratch;
    for (int i = 0; i < 60; ++i) {
      const int64_t h = side(rng), w = side(rng);
      const Case c{h, w, 0, 0, h, w, 1 + side(rng) % 80, 1 + side(rng) % 80, 0};
      const int channels = 1 + static_cast<int>(rng() % 4);
      SCOPED_TRACE(Describe(c, channels));
      ResizeAxis ha, va;
      PillowBilinearAxis(c.box_w, c.out_w, &ha);
      PillowBilinearAxis(c.box_h, c.out_h, &va);
      for (int again = 0; again < 2; ++again) {
        const ResizePassOrder order = kOrders[(i + again) % 2];
        const std::vector<uint8_t> image = RandomImage(c, channels, &rng);
        ASSERT_EQ(RunRow(row, c, channels, image, ha, va, &scratch, order),
                  RunRow(ScalarResizeInfo(), c, channels, image, order))
            << "row " << row.id << ", " << OrderName(order)
            << (again ? " (sizes repeated)" : "");
      }
    }
  }
}

// Axes with weights Pillow's filter does not make (negative ones, sums far
// from one, a lone weight of exactly one): every row must still follow
// resize_kernel.h's formula, clamp included, as the scalar row does.
TEST(ResizeMatrix, UnusualWeightsAgreeWithScalar) {
  std::mt19937 rng(17);
  for (int i = 0; i < 80; ++i) {
    const Case c{12, 37, 1, 2, 10, 33, 7, 25, static_cast<int64_t>(rng() % 3)};
    const int channels = 1 + static_cast<int>(rng() % 4);
    ResizeAxis h, v;
    PillowBilinearAxis(c.box_w, c.out_w, &h);
    PillowBilinearAxis(c.box_h, c.out_h, &v);
    ResizeAxis* axis = i % 2 ? &h : &v;
    const int32_t one = int32_t{1} << kResizePrecisionBits;
    const int kind = i % 8 / 2;
    for (int64_t o = 0; o < axis->out_size; ++o) {
      int32_t* w = &axis->weights[o * axis->taps];
      // Kinds: Pillow's own; any in -2^21 .. 2^21; a sum just past what the
      // Highway rows' pair path takes (pair_tables.h); a lone one.
      for (int k = 0; k < axis->taps; ++k) {
        if (kind == 1) w[k] = static_cast<int32_t>(rng() % (one + 1)) - one / 2;
        if (kind == 3) w[k] = 0;
      }
      if (kind == 2) w[0] += 4100;
      if (kind == 3) w[rng() % axis->taps] = one;
    }
    SCOPED_TRACE(Describe(c, channels) + " weights kind " +
                 std::to_string(kind));
    const std::vector<uint8_t> image = RandomImage(c, channels, &rng);
    for (const ResizePassOrder order : kOrders) {
      ResizeScratch fresh;
      const std::vector<uint8_t> want =
          RunRow(ScalarResizeInfo(), c, channels, image, h, v, &fresh, order);
      for (const ResizeKernelInfo& row : ResizeKernelTable()) {
        if (!row.supported()) continue;
        ResizeScratch scratch;
        ASSERT_EQ(RunRow(row, c, channels, image, h, v, &scratch, order), want)
            << "row " << row.id << ", " << OrderName(order);
      }
    }
  }
}

// The scalar row's orders are its two passes one at a time: a resize of one
// axis (the other axis the identity, whose pass copies), then one of the
// other axis from that result, with uint8 in between. The orders must differ
// somewhere, or the matrix would not tell them apart.
TEST(ResizeMatrix, ScalarOrdersAreOnePassThenTheOther) {
  std::mt19937 rng(19);
  std::uniform_int_distribution<int64_t> side(2, 70);
  const ResizeKernelInfo scalar = ScalarResizeInfo();
  int differ = 0;
  for (int i = 0; i < 200; ++i) {
    const int64_t image_h = side(rng), image_w = side(rng);
    const Case box{image_h, image_w,   0,         0, image_h,
                   image_w, side(rng), side(rng), 0};
    const int channels = 1 + static_cast<int>(rng() % 4);
    SCOPED_TRACE(Describe(box, channels));
    ResizeAxis h, v, keep_w, keep_out_h, keep_h, keep_out_w;
    PillowBilinearAxis(box.box_w, box.out_w, &h);
    PillowBilinearAxis(box.box_h, box.out_h, &v);
    PillowBilinearAxis(box.box_w, box.box_w, &keep_w);
    PillowBilinearAxis(box.out_h, box.out_h, &keep_out_h);
    PillowBilinearAxis(box.box_h, box.box_h, &keep_h);
    PillowBilinearAxis(box.out_w, box.out_w, &keep_out_w);
    const std::vector<uint8_t> image = RandomImage(box, channels, &rng);
    std::vector<uint8_t> want[2];
    for (const bool vertical_first : {false, true}) {
      // The first pass's case and axes, then the second's on its result.
      Case first = box, second = box;
      if (vertical_first) {
        first.out_w = box.box_w;
        second.image_h = second.box_h = box.out_h;
      } else {
        first.out_h = box.box_h;
        second.image_w = second.box_w = box.out_w;
      }
      ResizeScratch scratch;
      const std::vector<uint8_t> mid =
          vertical_first ? RunRow(scalar, first, channels, image, keep_w, v,
                                  &scratch, ResizePassOrder::kHorizontalFirst)
                         : RunRow(scalar, first, channels, image, h, keep_h,
                                  &scratch, ResizePassOrder::kHorizontalFirst);
      want[vertical_first] =
          vertical_first ? RunRow(scalar, second, channels, mid, h, keep_out_h,
                                  &scratch, ResizePassOrder::kHorizontalFirst)
                         : RunRow(scalar, second, channels, mid, keep_out_w, v,
                                  &scratch, ResizePassOrder::kHorizontalFirst);
    }
    for (const ResizePassOrder order : kOrders) {
      ResizeScratch scratch;
      ASSERT_EQ(RunRow(scalar, box, channels, image, h, v, &scratch, order),
                want[order == ResizePassOrder::kVerticalFirst])
          << OrderName(order);
    }
    differ += want[0] != want[1];
  }
  EXPECT_GT(differ, 20) << "cases where the two orders give other bytes";
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
