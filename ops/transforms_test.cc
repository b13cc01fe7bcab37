// The transforms against torchvision goldens (testdata/), their random
// windows, and their errors.
#include "ops/transforms.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/box_params.h"

namespace fusednorm {
namespace {

std::vector<uint8_t> FromHex(const std::string& hex) {
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  }
  return out;
}

Image Pattern(int64_t h, int64_t w, int c) {
  Image img{h, w, c, std::vector<uint8_t>(h * w * c)};
  for (size_t i = 0; i < img.pixels.size(); ++i)
    img.pixels[i] = (i * 73 + 41) % 256;
  return img;
}

struct Golden {
  int64_t in_h, in_w;
  int c;
  int64_t out_h, out_w;
  std::vector<uint8_t> input, output;
};

std::map<std::string, Golden> LoadGoldens() {
  std::map<std::string, Golden> goldens;
  std::ifstream file("ops/testdata/transform_goldens.txt");
  EXPECT_TRUE(file.good()) << "missing ops/testdata/transform_goldens.txt";
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::string name, in_hex, out_hex;
    Golden g;
    in >> name >> g.in_h >> g.in_w >> g.c >> g.out_h >> g.out_w >> in_hex >>
        out_hex;
    g.input = FromHex(in_hex);
    g.output = FromHex(out_hex);
    goldens[name] = g;
  }
  return goldens;
}

// Runs `op` on the golden's input and compares with torchvision within +-1 per
// value.
void ExpectMatches(const Golden& g, const PreprocessOp& op,
                   const std::string& name) {
  SCOPED_TRACE(name);
  const Image in = Pattern(g.in_h, g.in_w, g.c);
  ASSERT_EQ(in.pixels, g.input)
      << "the input pattern differs from the script's";
  SampleStream unused(0, 0, 0);
  Image out;
  ASSERT_TRUE(op.Execute(in.view(), unused, &out).ok());
  ASSERT_EQ(out.height, g.out_h);
  ASSERT_EQ(out.width, g.out_w);
  ASSERT_EQ(out.pixels.size(), g.output.size());
  int max_diff = 0, exact = 0;
  for (size_t i = 0; i < out.pixels.size(); ++i) {
    const int d = std::abs(out.pixels[i] - g.output[i]);
    max_diff = std::max(max_diff, d);
    exact += d == 0;
  }
  EXPECT_LE(max_diff, 1);
  // Most values must be identical, not merely within one (PyTorch's vectorised
  // kernels may fuse the weighted sums into FMAs; we round each product).
  EXPECT_GE(exact, static_cast<int>(out.pixels.size() * 8 / 10));
}

// A PreprocessOp for a fixed crop + resize, to check resized_crop goldens
// directly.
class FixedResizedCrop : public PreprocessOp {
 public:
  FixedResizedCrop(CropWindow w, int64_t h, int64_t wd, ResizeFilter filter)
      : win_(w), h_(h), w_(wd), filter_(filter) {}
  const char* op_name() const override { return "FixedResizedCrop"; }
  std::vector<NamedArg> args() const override { return {}; }
  std::unique_ptr<PreprocessOp> Clone() const override {
    return std::make_unique<FixedResizedCrop>(*this);
  }
  absl::StatusOr<Size2> OutputSize(Size2) const override {
    return Size2{h_, w_};
  }
  absl::Status Apply(const ImageView& in, const OpDecision&, OpWorkspace*,
                     Image* out) const override {
    return ResizeBox(in, win_, {h_, w_}, filter_, out);
  }

 private:
  CropWindow win_;
  int64_t h_, w_;
  ResizeFilter filter_;
};

// The goldens are torchvision's tensor route (ops/testdata/).
constexpr ResizeFilter kBilinear = ResizeFilter::kBilinear;
constexpr ResizeFilter kTensor = ResizeFilter::kTensor;

TEST(Transforms, MatchTorchvisionGoldens) {
  const std::map<std::string, Golden> g = LoadGoldens();
  ASSERT_EQ(g.size(), 9u);
  ExpectMatches(g.at("resized_crop_up"),
                FixedResizedCrop({2, 3, 9, 11}, 17, 21, kBilinear), "up");
  ExpectMatches(g.at("resized_crop_down"),
                FixedResizedCrop({1, 4, 33, 30}, 11, 9, kBilinear), "down");
  ExpectMatches(g.at("resized_crop_down_aa"),
                FixedResizedCrop({1, 4, 33, 30}, 11, 9, kTensor), "down aa");
  ExpectMatches(g.at("resize_gray_down"), Resize(Size2{12, 14}, kBilinear),
                "gray");
  ExpectMatches(g.at("resize_gray_down_aa"), Resize(Size2{12, 14}, kTensor),
                "gray aa");
  ExpectMatches(g.at("resize_rgba_up"), Resize(Size2{13, 10}, kBilinear),
                "rgba up");
  ExpectMatches(g.at("resize_shorter"), Resize(8, kBilinear), "shorter");
  ExpectMatches(g.at("center_crop_inside"), CenterCrop(9, 13), "center inside");
  ExpectMatches(g.at("center_crop_pad"), CenterCrop(10, 13), "center pad");
}

TEST(Transforms, FusedOpsAreUnimplemented) {
  const Image img = Pattern(4, 4, 3);
  SampleStream s(1, 0, 0);
  Image out;
  const RandomErasing erase;
  const Normalize norm;
  const ToTensor to_tensor;
  for (const PreprocessOp* op :
       std::vector<const PreprocessOp*>{&erase, &norm, &to_tensor}) {
    const absl::Status status = op->Execute(img.view(), s, &out);
    EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented) << op->name();
    EXPECT_NE(std::string(status.message()).find("FusedNormalization"),
              std::string::npos);
  }
}

TEST(RandomResizedCrop, WindowsInsideReproducibleAndFallback) {
  const RandomResizedCrop rrc(32);
  ASSERT_TRUE(rrc.Validate().ok());
  for (int i = 0; i < 5000; ++i) {
    SampleStream a(9, 1, i), b(9, 1, i);
    const CropWindow w = rrc.Window(120, 90, a);
    const CropWindow v = rrc.Window(120, 90, b);
    ASSERT_EQ(w.top, v.top);
    ASSERT_EQ(w.width, v.width);
    ASSERT_GE(w.top, 0);
    ASSERT_GE(w.left, 0);
    ASSERT_GE(w.height, 1);
    ASSERT_GE(w.width, 1);
    ASSERT_LE(w.top + w.height, 120);
    ASSERT_LE(w.left + w.width, 90);
  }
  // Ratios no window of a square image can have: the central crop, ratio
  // clamped.
  const RandomResizedCrop wide(8, 0.5, 1.0, 4.0, 5.0);
  SampleStream s(1, 0, 0);
  const CropWindow w = wide.Window(40, 40, s);
  EXPECT_EQ(w.width, 40);
  EXPECT_EQ(w.height, 10);  // round(40 / 4)
  EXPECT_EQ(w.top, 15);
  EXPECT_EQ(w.left, 0);
  // And Execute produces the requested size.
  const Image img = Pattern(50, 70, 3);
  Image out;
  SampleStream t(2, 0, 5);
  ASSERT_TRUE(rrc.Execute(img.view(), t, &out).ok());
  EXPECT_EQ(out.height, 32);
  EXPECT_EQ(out.width, 32);
}

// Scales and ratios torchvision accepts whose sides would be past int64:
// no box fits, as in torchvision, and RandomResizedCrop falls back to its
// central crop (the sanitizer build checks that nothing overflows).
TEST(RandomResizedCrop, ExtremeRangesFitNoBox) {
  // The fallback's windows, as torchvision's get_params gives them: a
  // ratio no side can reach rounds the other side to 0.
  const std::map<double, CropWindow> fallback = {{0.75, {0, 0, 120, 90}},
                                                 {1e40, {60, 0, 0, 90}},
                                                 {1e-40, {0, 45, 120, 0}}};
  for (const BoxRange range :
       {BoxRange{0.08, 1e300, 0.75, 4.0 / 3}, BoxRange{0.5, 1.0, 1e40, 1e40},
        BoxRange{0.5, 1.0, 1e-40, 1e-40}}) {
    for (const BoxKind kind : {BoxKind::kCrop, BoxKind::kErase}) {
      for (int i = 0; i < 200; ++i) {
        SampleStream stream(3, 0, i);
        StreamDraws draws(stream);
        const std::optional<CropWindow> box =
            DrawBox(kind, 120, 90, range, draws);
        if (range.scale_max > 1 && box) {  // a draw below 1 may fit
          ASSERT_LE(box->top + box->height, 120);
          ASSERT_LE(box->left + box->width, 90);
          continue;
        }
        ASSERT_FALSE(box.has_value()) << range.ratio_min;
      }
    }
    const RandomResizedCrop rrc(8, range.scale_min, range.scale_max,
                                range.ratio_min, range.ratio_max);
    ASSERT_TRUE(rrc.Validate().ok()) << rrc.name();
    SampleStream s(4, 0, 1);
    const CropWindow w = rrc.Window(120, 90, s);
    const CropWindow want = fallback.at(range.ratio_min);
    EXPECT_EQ(w.top, want.top);
    EXPECT_EQ(w.left, want.left);
    EXPECT_EQ(w.height, want.height);
    EXPECT_EQ(w.width, want.width);
  }
}

// torchvision's fallback may round a side to 0 (a ratio far from the
// image's): Pillow then resizes an empty crop, which gives zeros, alpha
// included. The same window, the same black output, and the decision is
// one apply() takes; a crop not inside the image is still refused.
TEST(RandomResizedCrop, EmptyFallbackIsBlackAsTorchvisions) {
  const RandomResizedCrop rrc(8, 0.5, 1.0, 0.01, 0.02);
  for (const int channels : {1, 3, 4}) {
    const Image img = Pattern(8, 3, channels);
    SampleStream s(1, 0, 0);
    const OpDecision d = rrc.Decide({8, 3}, s);
    ASSERT_TRUE(d.window.has_value());
    EXPECT_EQ(d.window->top, 0);
    EXPECT_EQ(d.window->left, 1);
    EXPECT_EQ(d.window->height, 8);
    EXPECT_EQ(d.window->width, 0);  // round(8 * 0.02)
    OpWorkspace ws;
    Image out;
    out.pixels.assign(8 * 8 * 4, 0xab);  // poisoned
    ASSERT_TRUE(rrc.Apply(img.view(), d, &ws, &out).ok());
    EXPECT_EQ(out.height, 8);
    EXPECT_EQ(out.width, 8);
    EXPECT_EQ(out.channels, channels);
    EXPECT_EQ(out.pixels, std::vector<uint8_t>(8 * 8 * channels, 0));
  }
  const auto fields = [](int64_t left, int64_t width) {
    return std::vector<NamedArg>{{"top", ArgValue::Int(0)},
                                 {"left", ArgValue::Int(left)},
                                 {"height", ArgValue::Int(8)},
                                 {"width", ArgValue::Int(width)}};
  };
  // torchvision's tensor route refuses the empty crop: so does the tensor
  // filter.
  const RandomResizedCrop tensor(8, 0.5, 1.0, 0.01, 0.02,
                                 ResizeFilter::kTensor);
  {
    const Image img = Pattern(8, 3, 3);
    SampleStream s(1, 0, 0);
    const OpDecision d = tensor.Decide({8, 3}, s);
    OpWorkspace ws;
    Image out;
    const absl::Status refused = tensor.Apply(img.view(), d, &ws, &out);
    EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(refused.message().find(
                  "the crop drawn is empty (height 8, width 0), which "
                  "torchvision's tensor resize refuses"),
              std::string::npos)
        << refused;
  }
  EXPECT_TRUE(rrc.DecisionFromFields(fields(1, 0), {8, 3}).ok());
  EXPECT_TRUE(rrc.DecisionFromFields(fields(3, 0), {8, 3}).ok());
  EXPECT_FALSE(rrc.DecisionFromFields(fields(4, 0), {8, 3}).ok());
  EXPECT_FALSE(rrc.DecisionFromFields(fields(1, -1), {8, 3}).ok());
}

TEST(Transforms, BadInputsAreErrors) {
  const Image img = Pattern(4, 5, 3);
  SampleStream s(1, 0, 0);
  Image out;
  EXPECT_EQ(RandomResizedCrop(0).Execute(img.view(), s, &out).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RandomResizedCrop(8, 0.5, 0.1).Validate().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RandomResizedCrop(8, 0.1, 1, -1, 2).Validate().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Resize(Size2{0, 5}).Execute(img.view(), s, &out).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Resize(int64_t{1} << 40).Execute(img.view(), s, &out).code(),
            absl::StatusCode::kInvalidArgument);
  ImageView bad = img.view();
  bad.row_stride = 2;
  EXPECT_EQ(CenterCrop(2).Execute(bad, s, &out).code(),
            absl::StatusCode::kInvalidArgument);
  bad = img.view();
  bad.pixels = bad.pixels.subspan(0, 10);
  const absl::Status st = Resize(Size2{3, 3}).Execute(bad, s, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(st.message()).find("input pixels has 10 bytes"),
            std::string::npos);
  const absl::Status no_filter = ResizeBox(img.view(), {0, 0, 4, 5}, {3, 3},
                                           static_cast<ResizeFilter>(99), &out);
  EXPECT_EQ(no_filter.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(no_filter.message().find("resize filter 99"), std::string::npos)
      << no_filter;
}

// The resize kernel row is chosen when an op is made: a bad
// FUSEDNORM_RESIZE_KERNEL fails the ops made under it (naming the variable)
// and does not reach ops made before it was set.
TEST(Transforms, ResizeKernelIsChosenWhenTheOpIsMade) {
  const Image img = Pattern(40, 50, 3);
  // The variable as the test found it, put back at the end.
  struct Restore {
    const char* old = std::getenv("FUSEDNORM_RESIZE_KERNEL");
    std::string value = old ? old : "";
    ~Restore() {
      if (old) {
        setenv("FUSEDNORM_RESIZE_KERNEL", value.c_str(), 1);
      } else {
        unsetenv("FUSEDNORM_RESIZE_KERNEL");
      }
    }
  } restore;
  unsetenv("FUSEDNORM_RESIZE_KERNEL");
  const RandomResizedCrop before(16);
  const Resize resize_before(Size2{9, 7});
  ASSERT_EQ(setenv("FUSEDNORM_RESIZE_KERNEL", "no_such_row", 1), 0);
  const RandomResizedCrop after(16);
  const Resize resize_after(Size2{9, 7});
  SampleStream s(1, 0, 0);
  Image out;
  const absl::Status bad = after.Execute(img.view(), s, &out);
  EXPECT_EQ(bad.code(), absl::StatusCode::kNotFound) << bad;
  EXPECT_NE(bad.message().find("FUSEDNORM_RESIZE_KERNEL"), std::string::npos)
      << bad;
  EXPECT_EQ(resize_after.Validate().code(), absl::StatusCode::kNotFound);
  // The tensor-route filters use no kernel row.
  EXPECT_TRUE(
      RandomResizedCrop(16, 0.08, 1, 0.75, 4.0 / 3, ResizeFilter::kTensor)
          .Validate()
          .ok());
  EXPECT_TRUE(before.Execute(img.view(), s, &out).ok());
  EXPECT_TRUE(resize_before.Execute(img.view(), s, &out).ok());
}

}  // namespace
}  // namespace fusednorm
