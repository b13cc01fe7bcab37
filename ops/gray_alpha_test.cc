// LA images (2 channels) in the ops that Pillow runs on them: the colour
// ops and ImageEnhance's sharpness give the L image's result with the
// image's own alpha (adjust_hue: alpha 255), Grayscale gives the L
// channel, the warps keep both channels, and ImageOps' tables refuse LA.
// python/transforms_parity_test.py and augment_parity_test.py compare the
// pixels with torchvision's.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/alpha.h"
#include "ops/transform.h"
#include "testing/expect_error.h"
#include "testing/make_op.h"

namespace fusednorm {
namespace {

// A random LA image and its L channel as an L image.
struct GrayAlpha {
  Image la, gray;
  explicit GrayAlpha(uint32_t seed, int64_t height = 7, int64_t width = 9) {
    std::mt19937 rng(seed);
    la = {height, width, 2, std::vector<uint8_t>(height * width * 2)};
    gray = {height, width, 1, std::vector<uint8_t>(height * width)};
    for (int64_t i = 0; i < height * width; ++i) {
      gray.pixels[i] = la.pixels[2 * i] = static_cast<uint8_t>(rng());
      la.pixels[2 * i + 1] = static_cast<uint8_t>(rng() % 3 ? rng() : 0);
    }
  }
};

// `op` with decision `d` on an LA image and on its L channel; the LA
// result's L channel must be the L result, and its alpha `alpha` (nullptr:
// the input's).
void ExpectGrayOfLA(const std::string& text, const OpDecision& d,
                    const uint8_t* alpha = nullptr) {
  SCOPED_TRACE(text);
  const auto op = MakeOp(text);
  ASSERT_NE(op, nullptr);
  const GrayAlpha in(7);
  OpWorkspace ws;
  Image out_la, out_gray;
  ASSERT_TRUE(op->Apply(in.gray.view(), d, &ws, &out_gray).ok());
  ASSERT_TRUE(op->Apply(in.la.view(), d, &ws, &out_la).ok());
  ASSERT_EQ(out_la.channels, 2);
  ASSERT_EQ(out_la.pixels.size(), 2 * out_gray.pixels.size());
  bool changed = false;
  for (size_t i = 0; i < out_gray.pixels.size(); ++i) {
    ASSERT_EQ(out_la.pixels[2 * i], out_gray.pixels[i]) << i;
    ASSERT_EQ(out_la.pixels[2 * i + 1],
              alpha != nullptr ? *alpha : in.la.pixels[2 * i + 1])
        << i;
    changed |= out_gray.pixels[i] != in.gray.pixels[i];
  }
  EXPECT_TRUE(changed) << "the decision leaves the image as it is";
}

OpDecision Jitter(double brightness, double contrast, double hue) {
  OpDecision d;
  d.order = {3, 1, 0, 2};
  d.factors = {brightness, contrast, 1.3, hue};
  return d;
}

OpDecision Step(AugmentOp op, double magnitude) {
  OpDecision d;
  d.steps[0] = {op, magnitude};
  d.step_count = 1;
  return d;
}

TEST(GrayAlpha, ColourOpsBlendTheGrayAndKeepTheAlpha) {
  ExpectGrayOfLA("ColorJitter(0.4, 0.4, 0.4)", Jitter(1.3, 0.6, NAN));
  ExpectGrayOfLA("TrivialAugmentWide()", Step(AugmentOp::kBrightness, 0.5));
  ExpectGrayOfLA("TrivialAugmentWide()", Step(AugmentOp::kContrast, -0.4));
  ExpectGrayOfLA("TrivialAugmentWide()", Step(AugmentOp::kSharpness, 0.9));
  OpDecision sharpen;
  ExpectGrayOfLA("RandomAdjustSharpness(3)", sharpen);
}

TEST(GrayAlpha, HueMakesTheAlphaOpaque) {
  const uint8_t opaque = 255;
  ExpectGrayOfLA("ColorJitter(0.4, 0.4, 0.4, 0.1)", Jitter(1.3, 0.6, 0.05),
                 &opaque);
  ExpectGrayOfLA("ColorJitter(0.4, 0.4, 0.4, 0.1)", Jitter(1.3, 0.6, 0.0),
                 &opaque);
}

TEST(GrayAlpha, GrayscaleIsTheGrayChannel) {
  const GrayAlpha in(3);
  OpWorkspace ws;
  for (int n : {1, 3}) {
    Image out;
    const auto op = MakeOp("Grayscale(" + std::to_string(n) + ")");
    ASSERT_TRUE(op->Apply(in.la.view(), OpDecision(), &ws, &out).ok());
    ASSERT_EQ(out.channels, n);
    for (size_t i = 0; i < out.pixels.size(); ++i) {
      ASSERT_EQ(out.pixels[i], in.gray.pixels[i / n]) << n << " " << i;
    }
  }
}

TEST(GrayAlpha, WarpsKeepBothChannels) {
  // A half turn is Pillow's transpose, which moves whole pixels.
  const GrayAlpha in(5);
  OpWorkspace ws;
  Image out;
  OpDecision d;
  d.angle = 180;
  ASSERT_TRUE(
      MakeOp("RandomRotation(10)")->Apply(in.la.view(), d, &ws, &out).ok());
  const size_t n = in.gray.pixels.size();
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(out.pixels[2 * i], in.la.pixels[2 * (n - 1 - i)]) << i;
    ASSERT_EQ(out.pixels[2 * i + 1], in.la.pixels[2 * (n - 1 - i) + 1]) << i;
  }
  // A bilinear turn premultiplies: a transparent pixel lends no gray.
  Image clear;
  ASSERT_TRUE(AllocateImage(6, 6, 2, &clear).ok());
  for (size_t i = 0; i < clear.pixels.size(); i += 2) clear.pixels[i] = 200;
  d.angle = 33;
  ASSERT_TRUE(MakeOp("RandomRotation(40, interpolation=bilinear)")
                  ->Apply(clear.view(), d, &ws, &out)
                  .ok());
  for (const uint8_t v : out.pixels) ASSERT_EQ(v, 0);
}

TEST(GrayAlpha, ImageOpsTablesRefuseIt) {
  const GrayAlpha in(9);
  OpWorkspace ws;
  Image out;
  ExpectError(
      MakeOp("TrivialAugmentWide()")
          ->Apply(in.la.view(), Step(AugmentOp::kPosterize, 4), &ws, &out),
      absl::StatusCode::kInvalidArgument,
      "Posterize: images of 2 channels are not supported");
  ExpectError(MakeOp("RandomGrayscale()")->OutputChannels(2).status(),
              absl::StatusCode::kInvalidArgument,
              "RandomGrayscale: images of 2 channels");
}

TEST(GrayAlpha, OnGrayOfLAChecksTheOpsShape) {
  const GrayAlpha in(11);
  Image out;
  ExpectError(
      OnGrayOfLA(
          in.la.view(),
          [](const ImageView&, Image* o) { return ShapeImage(2, 2, 1, o); },
          &out),
      absl::StatusCode::kInternal, "changed its shape");
  const absl::Status failed = absl::InvalidArgumentError("the op's own error");
  EXPECT_EQ(
      OnGrayOfLA(
          in.la.view(), [&](const ImageView&, Image*) { return failed; }, &out),
      failed);
}

}  // namespace
}  // namespace fusednorm
