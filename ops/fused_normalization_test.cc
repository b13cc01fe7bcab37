// FusedNormalization's contract: every bad option and argument is an error
// naming it, kernels can be forced, decisions follow torchvision's
// distributions and depend only on (seed, epoch, index).
#include "ops/fused_normalization.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/dispatch.h"
#include "kernels/formats.h"
#include "testing/expect_error.h"

namespace fusednorm {
namespace {

using ::absl::StatusCode;

FusedNormalization MakeOp(FusedNormalizationOptions options = {}) {
  absl::StatusOr<FusedNormalization> op = FusedNormalization::Create(options);
  EXPECT_TRUE(op.ok()) << op.status();
  return *std::move(op);
}

// ---- Create() ----

TEST(FusedNormalizationCreate, RejectsBadNormalization) {
  FusedNormalizationOptions o;
  o.mean = {0.5f, 0.5f, 0.5f};
  ExpectError(FusedNormalization::Create(o).status(),
              StatusCode::kInvalidArgument, "std has 0");
  o.std = {0.5f, 0.5f};
  ExpectError(FusedNormalization::Create(o).status(),
              StatusCode::kInvalidArgument, "mean has 3 values but std has 2");
  o.mean = {0, 0, 0, 0, 0};
  o.std = {1, 1, 1, 1, 1};
  ExpectError(FusedNormalization::Create(o).status(),
              StatusCode::kInvalidArgument, "5 values");
  o.mean = {0.5f, NAN};
  o.std = {1, 1};
  ExpectError(FusedNormalization::Create(o).status(),
              StatusCode::kInvalidArgument, "mean[1] = nan");
  o.mean = {0.5f, 0.5f};
  o.std = {0.0f, 1};
  ExpectError(FusedNormalization::Create(o).status(),
              StatusCode::kInvalidArgument, "std[0] = 0");
  o.std = {1, -0.0f};
  ExpectError(FusedNormalization::Create(o).status(),
              StatusCode::kInvalidArgument,
              "std[1] = -0 must be finite and not 0");
  o.std = {1, -0.25f};  // torchvision's Normalize takes it
  EXPECT_TRUE(FusedNormalization::Create(o).ok());
  o.std = {1, INFINITY};
  ExpectError(FusedNormalization::Create(o).status(),
              StatusCode::kInvalidArgument, "std[1] = inf");
  o.std = {1, 1e-39f};
  ExpectError(FusedNormalization::Create(o).status(),
              StatusCode::kInvalidArgument, "overflow float32");
  o.std = {1, 2};
  EXPECT_TRUE(FusedNormalization::Create(o).ok());
  EXPECT_EQ(FusedNormalization::Create(o)->channels(), 2);
}

// The op's bytes for a random `channels`-channel image, no flip, no erase.
std::vector<uint8_t> Normalized(const FusedNormalization& op, int channels) {
  constexpr int64_t kH = 3, kW = 7;
  std::mt19937 rng(channels);
  std::vector<uint8_t> in(kH * kW * channels);
  for (uint8_t& b : in) b = static_cast<uint8_t>(rng());
  const size_t bytes = *op.OutputBytes(kH, kW, channels);
  std::vector<uint8_t> out(bytes, 0xab);
  const ImageView view{absl::MakeConstSpan(in), kH, kW, channels,
                       kW * channels};
  EXPECT_TRUE(op.Apply(view, {}, {absl::MakeSpan(out)}).ok());
  return out;
}

// One value of mean or std serves every channel, as torch broadcasts it; one
// of both serves any channel count. Each must give the bytes of the values
// written out per channel.
TEST(FusedNormalizationCreate, OneMeanOrStdServesEveryChannel) {
  for (int channels = 1; channels <= 4; ++channels) {
    FusedNormalizationOptions one, spread;
    one.mean = {0.3f};
    one.std = {0.2f};
    spread.mean.assign(channels, 0.3f);
    spread.std.assign(channels, 0.2f);
    const FusedNormalization op = MakeOp(one);
    EXPECT_EQ(op.channels(), 0);
    EXPECT_EQ(Normalized(op, channels), Normalized(MakeOp(spread), channels))
        << channels << " channels";
  }
  FusedNormalizationOptions mixed, full;
  mixed.mean = {0.25f};
  mixed.std = {0.2f, 0.3f, 0.4f};
  full.mean = {0.25f, 0.25f, 0.25f};
  full.std = mixed.std;
  EXPECT_EQ(MakeOp(mixed).channels(), 3);
  EXPECT_EQ(Normalized(MakeOp(mixed), 3), Normalized(MakeOp(full), 3));
  std::swap(mixed.mean, mixed.std);
  full = {};
  full.mean = mixed.mean;
  full.std = {0.25f, 0.25f, 0.25f};
  EXPECT_EQ(Normalized(MakeOp(mixed), 3), Normalized(MakeOp(full), 3));
  // A bad single value is named at index 0, as given.
  mixed.std = {0.0f};
  ExpectError(FusedNormalization::Create(mixed).status(),
              StatusCode::kInvalidArgument, "std[0] = 0");
  mixed.std = {1, 2};
  ExpectError(FusedNormalization::Create(mixed).status(),
              StatusCode::kInvalidArgument,
              "mean has 3 values but std has 2; give both with the same "
              "count, or one value of either for every channel");
}

TEST(FusedNormalizationCreate, RejectsBadProbabilitiesAndErase) {
  FusedNormalizationOptions o;
  o.flip_p = 1.5;
  ExpectError(FusedNormalization::Create(o).status(),
              StatusCode::kInvalidArgument, "flip_p = 1.5");
  o.flip_p = NAN;
  ExpectError(FusedNormalization::Create(o).status(),
              StatusCode::kInvalidArgument, "flip_p");
  o.flip_p = 0.5;
  o.erase.enabled = true;
  struct Case {
    void (*mutate)(EraseOptions&);
    const char* needle;
  };
  const Case cases[] = {
      {[](EraseOptions& e) { e.p = -0.1; }, "erase.p = -0.1"},
      {[](EraseOptions& e) { e.scale_min = -0.1; }, "erase.scale_min = -0.1"},
      {[](EraseOptions& e) { e.scale_max = 1.25; }, "erase.scale_max = 1.25"},
      {[](EraseOptions& e) { e.scale_min = 0.5, e.scale_max = 0.25; },
       "erase.scale_min = 0.5 is greater than erase.scale_max = 0.25"},
      {[](EraseOptions& e) { e.ratio_min = 0; }, "erase.ratio_min = 0"},
      {[](EraseOptions& e) { e.ratio_max = INFINITY; },
       "erase.ratio_max = inf"},
      {[](EraseOptions& e) { e.ratio_min = 4; },
       "erase.ratio_min = 4 is greater"},
  };
  for (const Case& c : cases) {
    FusedNormalizationOptions bad = o;
    c.mutate(bad.erase);
    ExpectError(FusedNormalization::Create(bad).status(),
                StatusCode::kInvalidArgument, c.needle);
    // Bad ranges are bad arguments whether or not erasing is on.
    bad.erase.enabled = false;
    ExpectError(FusedNormalization::Create(bad).status(),
                StatusCode::kInvalidArgument, c.needle);
  }
}

TEST(FusedNormalizationCreate, RejectsOutOfRangeEnums) {
  FusedNormalizationOptions o;
  o.dtype = static_cast<DType>(7);
  ExpectError(FusedNormalization::Create(o).status(),
              StatusCode::kInvalidArgument, "dtype 7");
  o = {};
  o.layout = static_cast<Layout>(9);
  ExpectError(FusedNormalization::Create(o).status(),
              StatusCode::kInvalidArgument, "layout 9");
  o = {};
  o.preset = static_cast<Preset>(11);
  ExpectError(FusedNormalization::Create(o).status(),
              StatusCode::kInvalidArgument, "preset = 11");
}

TEST(FusedNormalizationCreate, KernelIds) {
  FusedNormalizationOptions o;
  o.kernel = "no_such_kernel";
  ExpectError(FusedNormalization::Create(o).status(), StatusCode::kNotFound,
              "\"no_such_kernel\"");
  o.kernel = "scalar_eigen";
  EXPECT_STREQ(MakeOp(o).kernel_id(3), "scalar_eigen");
  // A forced id that this CPU cannot run is Unimplemented, never a fallback.
  for (const KernelInfo& row : KernelTable()) {
    if (row.supported()) continue;
    o.kernel = row.id;
    EXPECT_EQ(FusedNormalization::Create(o).status().code(),
              StatusCode::kUnimplemented);
  }
}

TEST(FusedNormalizationCreate, EnvironmentForcesKernel) {
  ASSERT_EQ(setenv("FUSEDNORM_KERNEL", "bogus", 1), 0);
  ExpectError(FusedNormalization::Create({}).status(), StatusCode::kNotFound,
              "FUSEDNORM_KERNEL: kernel \"bogus\"");
  ASSERT_EQ(setenv("FUSEDNORM_KERNEL", "scalar_eigen", 1), 0);
  EXPECT_STREQ(MakeOp().kernel_id(3), "scalar_eigen");
  // An explicit id wins over the environment.
  ASSERT_EQ(setenv("FUSEDNORM_KERNEL", "bogus", 1), 0);
  FusedNormalizationOptions o;
  o.kernel = "scalar_eigen";
  EXPECT_TRUE(FusedNormalization::Create(o).ok());
  ASSERT_EQ(unsetenv("FUSEDNORM_KERNEL"), 0);
}

TEST(FusedNormalizationCreate, DefaultsAndStrides) {
  FusedNormalizationOptions o;
  EXPECT_EQ(MakeOp(o).layout(), Layout::kHWC);  // float32 -> HWC
  o.dtype = DType::kFloat16;
  EXPECT_EQ(MakeOp(o).layout(), Layout::kHWC4);  // float16 -> HWC4
  o.dtype = DType::kBFloat16;
  EXPECT_EQ(MakeOp(o).layout(), Layout::kHWC4);
  // The seed's strides: float32 HWC W*C*4 per row, float16 HWC4 W*4*2 per row.
  EXPECT_EQ(*MakeOp({}).OutputBytes(224, 224), 224u * 224 * 3 * 4);
  o.dtype = DType::kFloat16;
  EXPECT_EQ(*MakeOp(o).OutputBytes(224, 224), 224u * 224 * 4 * 2);
  o.layout = Layout::kCHW;
  EXPECT_EQ(*MakeOp(o).OutputBytes(224, 224), 3u * 224 * 224 * 2);
  o = {};
  o.preset = Preset::kNoNorm;
  ExpectError(MakeOp(o).OutputBytes(2, 2).status(),
              StatusCode::kInvalidArgument, "channels");
  EXPECT_EQ(*MakeOp(o).OutputBytes(2, 3, 2), 2u * 3 * 2 * 4);
  ExpectError(
      MakeOp(o).OutputBytes(int64_t{1} << 40, int64_t{1} << 40, 3).status(),
      StatusCode::kInvalidArgument, "overflows");
  ExpectError(MakeOp(o).OutputBytes(0, 4, 3).status(),
              StatusCode::kInvalidArgument, "height = 0");
}

TEST(Presets, ExactConstants) {
  EXPECT_EQ(PresetNormalization(Preset::kImagenet).mean,
            (std::vector<float>{0.485f, 0.456f, 0.406f}));
  EXPECT_EQ(PresetNormalization(Preset::kImagenet).std,
            (std::vector<float>{0.229f, 0.224f, 0.225f}));
  EXPECT_EQ(PresetNormalization(Preset::kCifar).mean,
            (std::vector<float>{0.4914f, 0.4822f, 0.4465f}));
  EXPECT_EQ(PresetNormalization(Preset::kCifar).std,
            (std::vector<float>{0.2470f, 0.2435f, 0.2616f}));
  EXPECT_EQ(PresetNormalization(Preset::kMnist).mean,
            (std::vector<float>{0.1307f}));
  EXPECT_EQ(PresetNormalization(Preset::kMnist).std,
            (std::vector<float>{0.3081f}));
  EXPECT_EQ(PresetNormalization(Preset::kMlperf).mean[1],
            static_cast<float>(116.78 / 255.0));
  EXPECT_EQ(PresetNormalization(Preset::kMlperf).std[2],
            static_cast<float>(1.0 / 255.0));
  EXPECT_EQ(PresetNormalization(Preset::kNoNorm).channels, 0);
  EXPECT_EQ(*ParsePreset("ImageNet"), Preset::kImagenet);
  ExpectError(ParsePreset("coco").status(), StatusCode::kInvalidArgument,
              "\"coco\"");
}

// ---- Apply(): every bad argument is an error and leaves the output untouched
// ----

class ApplyValidation : public ::testing::Test {
 protected:
  static constexpr int64_t kH = 4, kW = 5;
  ApplyValidation()
      : input_(kH * kW * 3 + 64, 7), output_(kH * kW * 3 * 4 + 64, 0xab) {}

  ImageView Input() const {
    return {absl::MakeConstSpan(input_), kH, kW, 3, kW * 3};
  }
  OutputView Output() { return {absl::MakeSpan(output_)}; }

  void ExpectRejected(const ImageView& in, const Augmentation& aug,
                      OutputView out, const std::string& needle) {
    ExpectError(op_.Apply(in, aug, out), StatusCode::kInvalidArgument, needle);
    for (uint8_t b : output_)
      ASSERT_EQ(b, 0xab) << "output written despite the error";
  }

  FusedNormalization op_ = MakeOp();
  std::vector<uint8_t> input_;
  std::vector<uint8_t> output_;
};

TEST_F(ApplyValidation, EachBadArgument) {
  ImageView in = Input();
  in.pixels = {};
  ExpectRejected(in, {}, Output(), "input pixels is null");
  ExpectRejected(Input(), {}, OutputView{}, "output bytes is null");
  in = Input();
  in.height = 0;
  ExpectRejected(in, {}, Output(), "input height = 0");
  in = Input();
  in.width = -3;
  ExpectRejected(in, {}, Output(), "input width = -3");
  in = Input();
  in.channels = 5;
  ExpectRejected(in, {}, Output(), "input channels = 5");
  in.channels = 1;
  ExpectRejected(in, {}, Output(),
                 "does not match the normalization's 3 channels");
  in = Input();
  in.row_stride = kW * 3 - 1;
  ExpectRejected(in, {}, Output(),
                 "row_stride = 14 is less than width * channels = 15");
  in = Input();
  in.pixels = absl::MakeConstSpan(input_.data(), kH * kW * 3 - 1);
  ExpectRejected(in, {}, Output(), "input pixels has 59 bytes");
  in = Input();
  in.height = int64_t{1} << 62;
  ExpectRejected(in, {}, Output(), "overflows");
  in = Input();
  in.width = int64_t{1} << 62;
  in.row_stride = int64_t{1} << 62;
  ExpectRejected(in, {}, Output(), "overflows");
  ExpectRejected(
      Input(), {},
      OutputView{absl::MakeSpan(output_.data(), kH * kW * 3 * 4 - 1)},
      "output bytes has 239 bytes but 4x5x3 float32 hwc needs 240");
  ExpectRejected(Input(), {}, OutputView{Output().bytes, kW * 3 * 4},
                 "output row_stride = 60");
  ExpectRejected(Input(), {false, {-1, 0, 2, 2}}, Output(),
                 "erase rectangle (top -1");
  ExpectRejected(Input(), {false, {3, 0, 2, 2}}, Output(),
                 "not inside the 4x5 image");
  ExpectRejected(Input(), {false, {0, 4, 1, 2}}, Output(), "left 4");
  ExpectRejected(Input(), {false, {0, 0, 1, -1}}, Output(), "width -1");
  ExpectRejected(Input(),
                 {false, {0, 0, 1, std::numeric_limits<int64_t>::max()}},
                 Output(), "not inside");
  // Overlapping input and output.
  std::vector<uint8_t> shared(1024, 1);
  ImageView alias{absl::MakeConstSpan(shared.data(), 60), kH, kW, 3, 15};
  ExpectError(
      op_.Apply(alias, {}, OutputView{absl::MakeSpan(shared.data() + 32, 240)}),
      StatusCode::kInvalidArgument, "overlap");
  // And the valid call works.
  EXPECT_TRUE(op_.Apply(Input(), {true, {1, 1, 2, 2}}, Output()).ok());
}

// ---- Sample() ----

TEST(Sample, FlipAndEraseRatesAndRectangles) {
  for (const double p : {0.0, 0.2, 0.5, 1.0}) {
    FusedNormalizationOptions o;
    o.flip_p = p;
    o.erase.enabled = true;
    o.erase.p = 1.0 - p;
    const FusedNormalization op = MakeOp(o);
    constexpr int kN = 100000;
    int flips = 0, erases = 0;
    for (int i = 0; i < kN; ++i) {
      SampleStream s(123, 4, i);
      const Augmentation a = op.Sample(224, 200, s);
      flips += a.flip;
      if (!a.erase.empty()) {
        ++erases;
        ASSERT_GE(a.erase.top, 0);
        ASSERT_GE(a.erase.left, 0);
        ASSERT_LT(a.erase.height, 224);  // strict, as torchvision
        ASSERT_LT(a.erase.width, 200);
        ASSERT_LE(a.erase.top + a.erase.height, 224);
        ASSERT_LE(a.erase.left + a.erase.width, 200);
      }
    }
    const double sigma = std::sqrt(kN * p * (1 - p));
    EXPECT_LE(std::abs(flips - kN * p), 5 * sigma + 1e-9) << "flip p " << p;
    // With scale <= 0.33 of a 224x200 image a rectangle is always found: erase
    // rate is p.
    const double q = 1.0 - p;
    EXPECT_LE(std::abs(erases - kN * q), 5 * std::sqrt(kN * q * (1 - q)) + 1e-9)
        << "erase p " << q;
  }
}

// torchvision's get_params simulated with an unrelated RNG, for the expected
// erased area.
double TorchvisionMeanErasedArea(int64_t H, int64_t W, const EraseOptions& e,
                                 int n) {
  std::mt19937_64 gen(99);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  double total = 0;
  for (int k = 0; k < n; ++k) {
    for (int attempt = 0; attempt < 10; ++attempt) {
      const double area =
          H * W * (e.scale_min + u(gen) * (e.scale_max - e.scale_min));
      const double aspect =
          std::exp(std::log(e.ratio_min) +
                   u(gen) * (std::log(e.ratio_max) - std::log(e.ratio_min)));
      const double h = std::nearbyint(std::sqrt(area * aspect));
      const double w = std::nearbyint(std::sqrt(area / aspect));
      if (h < H && w < W) {
        total += h * w;
        break;
      }
    }
  }
  return total / n;
}

TEST(Sample, MeanErasedAreaMatchesTorchvision) {
  FusedNormalizationOptions o;
  o.erase.enabled = true;
  o.erase.p = 1.0;
  for (const auto& [H, W] :
       {std::pair<int64_t, int64_t>{224, 224}, {12, 9}, {32, 32}}) {
    const FusedNormalization op = MakeOp(o);
    constexpr int kN = 100000;
    double total = 0;
    for (int i = 0; i < kN; ++i) {
      SampleStream s(7, 0, i);
      const EraseRect r = op.Sample(H, W, s).erase;
      total += static_cast<double>(r.height) * r.width;
    }
    const double expected = TorchvisionMeanErasedArea(H, W, o.erase, 1000000);
    EXPECT_NEAR(total / kN, expected, 0.02 * expected) << H << "x" << W;
  }
}

TEST(Sample, NoRectangleFitsMeansNoErase) {
  FusedNormalizationOptions o;
  o.erase.enabled = true;
  o.erase.p = 1.0;
  o.erase.scale_min = o.erase.scale_max =
      1.0;  // the whole image: h < H never holds
  o.erase.ratio_min = o.erase.ratio_max = 1.0;
  const FusedNormalization op = MakeOp(o);
  for (int i = 0; i < 100; ++i) {
    SampleStream s(1, 0, i);
    EXPECT_TRUE(op.Sample(10, 10, s).erase.empty());
  }
  SampleStream s(1, 0, 0);
  EXPECT_TRUE(op.Sample(1, 1, s).erase.empty());
}

TEST(Sample, DecisionsDependOnlyOnSeedEpochIndex) {
  FusedNormalizationOptions o;
  o.erase.enabled = true;
  const FusedNormalization op = MakeOp(o);
  int differ = 0;
  for (int i = 0; i < 1000; ++i) {
    SampleStream a(5, 2, i), b(5, 2, i), c(5, 3, i);
    const Augmentation x = op.Sample(64, 48, a), y = op.Sample(64, 48, b),
                       z = op.Sample(64, 48, c);
    EXPECT_EQ(x.flip, y.flip);
    EXPECT_EQ(x.erase.top, y.erase.top);
    EXPECT_EQ(x.erase.left, y.erase.left);
    EXPECT_EQ(x.erase.height, y.erase.height);
    EXPECT_EQ(x.erase.width, y.erase.width);
    differ += x.flip != z.flip || x.erase.top != z.erase.top ||
              x.erase.height != z.erase.height;
  }
  EXPECT_GT(differ, 400);  // another epoch makes other decisions
}

TEST(Execute, SamplesThenApplies) {
  FusedNormalizationOptions o;
  o.erase.enabled = true;
  o.erase.p = 1.0;
  o.flip_p = 1.0;
  const FusedNormalization op = MakeOp(o);
  std::vector<uint8_t> in(20 * 30 * 3);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<uint8_t>(i * 37 + 11);
  const ImageView view{absl::MakeConstSpan(in), 20, 30, 3, 90};
  std::vector<uint8_t> out1(*op.OutputBytes(20, 30)), out2(out1.size());
  SampleStream s1(3, 0, 9), s2(3, 0, 9);
  const absl::StatusOr<Augmentation> aug =
      op.Execute(view, s1, OutputView{absl::MakeSpan(out1)});
  ASSERT_TRUE(aug.ok()) << aug.status();
  EXPECT_TRUE(aug->flip);
  EXPECT_FALSE(aug->erase.empty());
  ASSERT_TRUE(
      op.Apply(view, op.Sample(20, 30, s2), OutputView{absl::MakeSpan(out2)})
          .ok());
  EXPECT_EQ(out1, out2);
  // An invalid input is reported by Execute too.
  ImageView bad = view;
  bad.row_stride = 1;
  EXPECT_EQ(
      op.Execute(bad, s1, OutputView{absl::MakeSpan(out1)}).status().code(),
      StatusCode::kInvalidArgument);
}

// The original system's own check: MNIST 28x28, float32 vs float16.
TEST(Mnist, Float16CloseToFloat32) {
  FusedNormalizationOptions o;
  o.preset = Preset::kMnist;
  o.layout = Layout::kHWC;
  const FusedNormalization f32 = MakeOp(o);
  o.dtype = DType::kFloat16;
  const FusedNormalization f16 = MakeOp(o);
  std::mt19937 gen(28);
  std::vector<uint8_t> img(28 * 28);
  for (auto& v : img) v = static_cast<uint8_t>(gen());
  const ImageView view{absl::MakeConstSpan(img), 28, 28, 1, 28};
  std::vector<float> a(28 * 28);
  std::vector<uint16_t> b(28 * 28);
  ASSERT_TRUE(
      f32.Apply(view, {},
                OutputView{absl::MakeSpan(reinterpret_cast<uint8_t*>(a.data()),
                                          a.size() * 4)})
          .ok());
  ASSERT_TRUE(
      f16.Apply(view, {},
                OutputView{absl::MakeSpan(reinterpret_cast<uint8_t*>(b.data()),
                                          b.size() * 2)})
          .ok());
  double mse = 0, max_rel = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = HalfBitsToFloat(b[i]) - a[i];
    mse += d * d;
    if (std::abs(a[i]) > 1e-6)
      max_rel = std::max(max_rel, std::abs(d) / std::abs(a[i]));
  }
  mse /= a.size();
  EXPECT_LT(mse, 1e-5);
  EXPECT_LT(max_rel, 1e-3);
  EXPECT_GT(max_rel, 0);  // float16 really did round something
}

}  // namespace
}  // namespace fusednorm
