// The benchmark's unfused baseline computes torchvision's values: every
// output byte equals the independent reference's (testing/reference.h), for
// every channel count, dtype and layout, with and without flip and erase, on
// odd sizes that leave vector tails; nothing is written past the output.
#include "benchmarks/baselines.h"

#include <cstdint>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/format_names.h"
#include "gtest/gtest.h"
#include "testing/reference.h"

namespace fusednorm {
namespace {

constexpr uint8_t kPoison = 0xab;

TEST(UnfusedTorchvision, EqualsTheReference) {
  std::mt19937 gen(21);
  const float mean[4] = {0.485f, 0.456f, 0.406f, 0.5f};
  const float std[4] = {0.229f, 0.224f, 0.225f, 0.25f};
  for (const auto [H, W] : {std::pair<int64_t, int64_t>{5, 37}, {16, 64}}) {
    for (int C = 1; C <= 4; ++C) {
      const int64_t stride = W * C + 3;
      std::vector<uint8_t> in(H * stride);
      for (uint8_t& b : in) b = static_cast<uint8_t>(1 + gen() % 255);
      for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
        for (Layout layout : {Layout::kHWC, Layout::kHWC4, Layout::kCHW}) {
          for (int aug = 0; aug < 4; ++aug) {
            SCOPED_TRACE(absl::StrCat(H, "x", W, "x", C, " ", DTypeName(dtype),
                                      " ", LayoutName(layout), " aug ", aug));
            testing_ref::RefInput ref{in.data(), H, W, C, stride};
            ref.mean.assign(mean, mean + C);
            ref.std.assign(std, std + C);
            ref.flip = (aug & 1) != 0;
            if (aug & 2) ref.erase = {1, 3, H - 2, W / 2};
            const std::vector<uint8_t> expected = testing_ref::Encode(
                testing_ref::TorchvisionFloat(ref), dtype, layout);
            std::vector<uint8_t> out(expected.size() + 64, kPoison);
            std::vector<float> a(C * H * W), b(C * H * W);
            UnfusedArgs u;
            u.input = in.data();
            u.height = H;
            u.width = W;
            u.row_stride = stride;
            u.channels = C;
            u.mean = mean;
            u.std = std;
            u.aug = {ref.flip, ref.erase};
            u.dtype = dtype;
            u.layout = layout;
            u.output = out.data();
            u.a = a.data();
            u.b = b.data();
            UnfusedTorchvision(u);
            EXPECT_EQ(std::vector<uint8_t>(out.begin(),
                                           out.begin() + expected.size()),
                      expected);
            for (size_t i = expected.size(); i < out.size(); ++i)
              ASSERT_EQ(out[i], kPoison) << "written past the output";
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace fusednorm
