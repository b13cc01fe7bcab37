// The auto-augment ops' arithmetic and rules that need no Pillow to check:
// Python's float % and round(x, 15), torchvision's inverse matrix, torch's
// bins and Pillow's rotate sizes against values Python, torch and Pillow
// printed (Debian's Python 3.11, torch 1.13 on an AVX-512 CPU, Pillow
// 9.4), the policies' decisions and their fields, ImageOps' tables, and
// the errors. python/augment_parity_test.py checks the pixels against
// torchvision itself.
#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/round.h"
#include "gtest/gtest.h"
#include "ops/affine.h"
#include "ops/augment_space.h"
#include "ops/enhance.h"
#include "ops/op_table.h"
#include "testing/expect_error.h"
#include "testing/make_op.h"

namespace fusednorm {
namespace {

TEST(Affine, PythonsFloatArithmetic) {
  EXPECT_EQ(PythonMod(-30.0, 360.0), 330.0);
  EXPECT_EQ(PythonMod(720.0, 360.0), 0.0);
  EXPECT_EQ(PythonMod(-720.5, 360.0), 359.5);
  EXPECT_FALSE(std::signbit(PythonMod(-0.0, 360.0)));
  EXPECT_EQ(PythonRound15(6.123233995736766e-17), 0.0);
  EXPECT_EQ(PythonRound15(0.8660254037844387), 0x1.bb67ae8584caep-1);
  EXPECT_EQ(PythonRound15(0.8660254037844384), 0x1.bb67ae8584ca5p-1);
  EXPECT_EQ(PythonRound15(-0.49999999999999994), -0.5);
  EXPECT_EQ(PythonRound15(0.5000000000000004), 0.5);
}

TEST(Affine, TorchvisionsInverseMatrix) {
  // _get_inverse_affine_matrix([112.0, 88.0], 17.5, [3, -4], 1.1,
  // [degrees(atan(0.3)), -7.0]).
  const AffineMatrix m =
      InverseAffineMatrix({112.0, 88.0}, 17.5, {3, -4}, 1.1,
                          {std::atan(0.3) * (180.0 / M_PI), -7.0});
  const AffineMatrix want = {0x1.81921dd18c7d6p-1,  0x1.0bfb9823cccb9p-1,
                             -0x1.29198a870a790p+4, -0x1.84f0d946f0ee3p-2,
                             0x1.aab9f2f25010ap-1,  0x1.ed5c5457b3602p+5};
  for (int k = 0; k < 6; ++k) EXPECT_EQ(m[k], want[k]) << k;
  // ShearY by atan(-0.99) about (0, 0).
  const AffineMatrix y = InverseAffineMatrix(
      {0, 0}, 0.0, {0, 0}, 1.0, {0.0, std::atan(-0.99) * (180.0 / M_PI)});
  EXPECT_EQ(y[0], 1.0);
  EXPECT_EQ(y[1], 0.0);
  EXPECT_EQ(y[3], -0x1.fae147ae147adp-1);
  EXPECT_EQ(y[4], 1.0);
}

TEST(Affine, PillowsRotatedSizes) {
  // Image.new('L', (w, h)).rotate(angle, expand=True).size
  struct Case {
    int64_t w, h;
    double angle;
    int64_t out_w, out_h;
  } cases[] = {{37, 20, 30.0, 43, 36},
               {37, 20, 90.0, 20, 37},
               {37, 20, -45.5, 41, 42},
               {5, 5, 13.0, 7, 7}};
  for (const Case& c : cases) {
    const absl::StatusOr<Size2> s =
        RotatedSize({c.h, c.w}, c.angle, true, std::nullopt);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(s->width, c.out_w) << c.angle;
    EXPECT_EQ(s->height, c.out_h) << c.angle;
    const absl::StatusOr<Size2> same =
        RotatedSize({c.h, c.w}, c.angle, false, std::nullopt);
    EXPECT_EQ(same->width, c.w);
  }
  // A far center spans a size no image has: refused, never cast.
  ExpectError(RotatedSize({20, 37}, 30.0, true, Point2{1e300, 5}).status(),
              absl::StatusCode::kInvalidArgument, "with expand gives");
}

TEST(AugmentSpace, TorchsBins) {
  // torch.linspace(...)[i] on an AVX-512 CPU.
  EXPECT_EQ(TorchLinspace(0, 0.9, 31, 20), 0x1.3333320000000p-1f);
  EXPECT_EQ(TorchLinspace(0, 0.99, 31, 7), 0x1.d916880000000p-3f);
  EXPECT_EQ(TorchLinspace(0, 135.0, 31, 29), 0x1.0500000000000p+7f);
  EXPECT_EQ(TorchLinspace(255.0, 0.0, 31, 11), 0x1.4300000000000p+7f);
  EXPECT_EQ(TorchLinspace(0, 150.0 / 331.0 * 224, 10, 9),
            0x1.960ad40000000p+6f);
  EXPECT_EQ(TorchLinspace(0, 0.3, 10, 3), 0x1.99999c0000000p-4f);
  const int wide[31] = {8, 8, 8, 7, 7, 7, 7, 7, 6, 6, 6, 6, 6, 5, 5, 5,
                        5, 5, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3, 2, 2, 2};
  const int autos[10] = {8, 8, 7, 7, 6, 6, 5, 5, 4, 4};
  for (int i = 0; i < 31; ++i) {
    EXPECT_EQ(BinMagnitude(AugmentSpace::kTrivialAugmentWide,
                           AugmentOp::kPosterize, 31, i, {9, 9}),
              wide[i])
        << i;
  }
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(BinMagnitude(AugmentSpace::kAutoAugment, AugmentOp::kPosterize,
                           10, i, {9, 9}),
              autos[i])
        << i;
  }
}

TEST(Enhance, ImageOpsTables) {
  EXPECT_EQ(PosterizeTable(3)[255], 0xE0);
  EXPECT_EQ(PosterizeTable(0)[255], 0);
  EXPECT_EQ(PosterizeTable(8)[77], 77);
  EXPECT_EQ(SolarizeTable(100.5)[100], 100);
  EXPECT_EQ(SolarizeTable(100.5)[101], 154);
  EXPECT_EQ(InvertTable()[3], 252);
  uint64_t h[256] = {};
  // AutoContrast: 10..20 stretched to 0..255.
  h[10] = 5;
  h[20] = 7;
  const ByteTable a = AutoContrastTable(h);
  EXPECT_EQ(a[10], 0);
  EXPECT_EQ(a[15], 127);
  EXPECT_EQ(a[20], 255);
  EXPECT_EQ(a[255], 255);
  // Equalize: one value is the identity; its step rule otherwise.
  uint64_t one[256] = {};
  one[40] = 9;
  EXPECT_EQ(EqualizeTable(one)[40], 40);
  uint64_t two[256] = {};
  two[0] = 300;
  two[1] = 1;
  const ByteTable e = EqualizeTable(two);  // step 300 // 255 = 1
  EXPECT_EQ(e[0], 0);
  EXPECT_EQ(e[1], 255);  // 300 // 1, clipped as Image.point clips
}

TEST(Policies, DecisionsAreBinsOfTheirSpace) {
  for (const std::string text :
       {"TrivialAugmentWide()", "TrivialAugmentWide(5)", "RandAugment()",
        "RandAugment(num_ops=5, magnitude=0, num_magnitude_bins=2)",
        "AutoAugment()", "AutoAugment(AutoAugmentPolicy.CIFAR10)",
        "AutoAugment('svhn')"}) {
    SCOPED_TRACE(text);
    const auto op = MakeOp(text);
    ASSERT_NE(op, nullptr);
    std::set<std::string> seen;
    for (uint64_t k = 0; k < 3000; ++k) {
      SampleStream stream(7, 1, k);
      const OpDecision d = op->Decide({224, 176}, stream);
      ASSERT_LE(d.step_count, text[0] == 'A' ? 2 : 5);
      for (int i = 0; i < d.step_count; ++i) {
        seen.insert(AugmentOpName(d.steps[i].op));
        EXPECT_TRUE(CheckMagnitude(d.steps[i].op, d.steps[i].magnitude).ok());
        if (!IsSigned(d.steps[i].op)) {
          EXPECT_GE(d.steps[i].magnitude, 0);
        }
      }
      // The fields read back as the same decision.
      auto back = op->DecisionFromFields(op->DecisionFields(d), {224, 176});
      ASSERT_TRUE(back.ok()) << back.status();
      ASSERT_EQ(back->step_count, d.step_count);
      for (int i = 0; i < d.step_count; ++i) {
        EXPECT_EQ(back->steps[i].op, d.steps[i].op);
        EXPECT_EQ(back->steps[i].magnitude, d.steps[i].magnitude);
      }
    }
    // Every op of the space is drawn (AutoAugment: of the policy's).
    EXPECT_GE(seen.size(), text[0] == 'A' ? 8u : 14u);
  }
}

// torchvision's references write a policy by value, T.AutoAugmentPolicy(
// "imagenet"): the same op as the other spellings, as an interpolation
// written InterpolationMode("bicubic") is.
TEST(Policies, EnumsByValueAreTheirMembers) {
  const std::pair<const char*, const char*> same[] = {
      {"AutoAugment(T.AutoAugmentPolicy('cifar10'))",
       "AutoAugment(AutoAugmentPolicy.CIFAR10)"},
      {"AutoAugment(AutoAugmentPolicy(\"svhn\"))", "AutoAugment('svhn')"},
      {"TrivialAugmentWide(interpolation=InterpolationMode('bilinear'))",
       "TrivialAugmentWide(interpolation=InterpolationMode.BILINEAR)"}};
  for (const auto& [by_value, by_name] : same) {
    const auto a = MakeOp(by_value), b = MakeOp(by_name);
    ASSERT_NE(a, nullptr) << by_value;
    ASSERT_NE(b, nullptr) << by_name;
    EXPECT_EQ(a->name(), b->name());
  }
}

TEST(Policies, RandAugmentWithoutOpsSkips) {
  const auto op = MakeOp("RandAugment(num_ops=0)");
  SampleStream stream(1, 2, 3);
  EXPECT_TRUE(op->Skips(op->Decide({8, 8}, stream)));
}

TEST(Policies, BadCallsNameTheOpTheArgumentAndTheValue) {
  struct Case {
    const char* text;
    const char* error;
  } cases[] = {
      {"RandAugment(num_ops=17)", "RandAugment num_ops = 17: must be in 0..16"},
      {"RandAugment(magnitude=31)",
       "RandAugment magnitude = 31: must be a bin, in 0..30"},
      {"TrivialAugmentWide(1)", "TrivialAugmentWide num_magnitude_bins = 1"},
      {"AutoAugment(policy=AutoAugmentPolicy.IMAGENETTE)",
       "AutoAugment policy = imagenette"},
      {"AutoAugment(policy=3)", "must be an AutoAugmentPolicy"},
      {"TrivialAugmentWide(fill=256)", "fill = 256: each value's int()"},
      {"TrivialAugmentWide(fill=(1, 2, 3, 4, 5))", "at most 4 values"},
      {"TrivialAugmentWide(interpolation=lanczos)", "interpolation = lanczos"},
      {"RandomRotation(-1)", "degrees = -1: a single number must be"},
      {"RandomRotation((5, 1))", "degrees = (5.0, 1.0): must be finite"},
      {"RandomRotation(2e38)",
       "RandomRotation degrees = (-2e+38, 2e+38): must be finite floats"},
      {"RandomAffine(0, scale=(1e-50, 1))",
       "scale values must be positive floats"},
      {"RandomAffine(0, translate=(0.5, 2))", "translate = (0.5, 2.0)"},
      {"RandomAffine(0, scale=(0, 2))", "scale = (0.0, 2.0)"},
      {"RandomAffine(0, shear=(1, 2, 3))", "shear = (1, 2, 3)"},
      {"RandomAffine(0, center=(1, inf))", "center = (1.0, inf)"},
      {"RandomPosterize(9)", "RandomPosterize bits = 9: must be in 0..8"},
      {"RandomSolarize(nan)", "RandomSolarize threshold = nan"},
      {"RandomAdjustSharpness(-0.5)",
       "RandomAdjustSharpness sharpness_factor = -0.5"},
      {"RandomEqualize(p=2)", "RandomEqualize p = 2"},
  };
  for (const Case& c : cases) {
    auto ops = MakeTransforms(c.text, "list", OpContext());
    ExpectError(ops.status(), absl::StatusCode::kInvalidArgument, c.error);
  }
}

TEST(Policies, BadDecisionsAreRefused) {
  const auto op = MakeOp("TrivialAugmentWide()");
  auto field = [](std::vector<ArgValue> ops) {
    return std::vector<NamedArg>{{"ops", ArgValue::Tuple(std::move(ops))}};
  };
  auto pair = [](const char* name, double m) {
    return ArgValue::Tuple({ArgValue::Text(name), ArgValue::Float(m)});
  };
  ExpectError(
      op->DecisionFromFields(field({pair("Posterize", 9.0)}), {8, 8}).status(),
      absl::StatusCode::kInvalidArgument,
      "Posterize magnitude = 9: int(magnitude) bits must be in 0..8");
  ExpectError(
      op->DecisionFromFields(field({pair("Blur", 1.0)}), {8, 8}).status(),
      absl::StatusCode::kInvalidArgument, "'Blur' is not an op");
  ExpectError(op->DecisionFromFields(field({pair("Brightness", 1e39)}), {8, 8})
                  .status(),
              absl::StatusCode::kInvalidArgument, "must be a float");
  std::vector<ArgValue> many(17, pair("Identity", 0));
  ExpectError(op->DecisionFromFields(field(many), {8, 8}).status(),
              absl::StatusCode::kInvalidArgument, "at most 16");
}

TEST(Policies, TableOpsRefuseRgbaAsPillowDoes) {
  const auto op = MakeOp("TrivialAugmentWide()");
  Image rgba;
  ASSERT_TRUE(AllocateImage(5, 6, 4, &rgba).ok());
  OpDecision d;
  d.steps[0] = {AugmentOp::kEqualize, 0.0};
  d.step_count = 1;
  OpWorkspace ws;
  Image out;
  ExpectError(op->Apply(rgba.view(), d, &ws, &out),
              absl::StatusCode::kInvalidArgument,
              "Equalize: images of 4 channels are not supported");
  d.steps[0] = {AugmentOp::kRotate, 33.0};
  EXPECT_TRUE(op->Apply(rgba.view(), d, &ws, &out).ok());
  // ImageEnhance's sharpness takes LA and RGBA; the ImageOps tables' ops
  // name theirs.
  EXPECT_EQ(*MakeOp("RandomAdjustSharpness(2)")->OutputChannels(2), 2);
  ExpectError(MakeOp("RandomAutocontrast()")->OutputChannels(2).status(),
              absl::StatusCode::kInvalidArgument,
              "RandomAutocontrast: images of 2 channels are not supported "
              "(Pillow's ImageOps tables take L and RGB images only)");
}

TEST(RandomAffine, AMatrixThatIsNotFiniteIsRefused) {
  const auto op = MakeOp("RandomAffine(0)");
  OpDecision d;
  d.scale = 1e-310;  // the inverse matrix divides by it
  Image in, out;
  ASSERT_TRUE(AllocateImage(4, 5, 3, &in).ok());
  OpWorkspace ws;
  ExpectError(op->Apply(in.view(), d, &ws, &out),
              absl::StatusCode::kInvalidArgument, "is not finite");
  d.scale = 1e-300;
  EXPECT_TRUE(op->Apply(in.view(), d, &ws, &out).ok());
}

TEST(RandomRotation, ExpandSizesFollowTheAngle) {
  const auto op = MakeOp("RandomRotation(degrees=(30, 30), expand=True)");
  SampleStream stream(1, 1, 1);
  const OpDecision d = op->Decide({20, 37}, stream);
  EXPECT_EQ(d.angle, 30.0);
  auto size = op->DecidedOutputSize({20, 37}, d);
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(size->width, 43);
  EXPECT_EQ(size->height, 36);
  EXPECT_FALSE(op->OutputSize({20, 37}).ok());
  Image in, out;
  ASSERT_TRUE(AllocateImage(20, 37, 3, &in).ok());
  OpWorkspace ws;
  ASSERT_TRUE(op->Apply(in.view(), d, &ws, &out).ok());
  EXPECT_EQ(out.width, 43);
  EXPECT_EQ(out.height, 36);
}

}  // namespace
}  // namespace fusednorm
