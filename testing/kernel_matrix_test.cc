// The correctness matrix: one parameterised suite instantiated over every row
// of the dispatch table (named by kernel id, so --gtest_filter='*/highway*'
// works). Variants this CPU cannot run are skipped. Every case checks every
// output byte against the reference.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/dispatch.h"
#include "testing/fused_norm_tester.h"

namespace fusednorm {
namespace testing_ref {
namespace {

constexpr DType kDTypes[] = {DType::kFloat32, DType::kFloat16,
                             DType::kBFloat16};
constexpr Layout kLayouts[] = {Layout::kHWC, Layout::kHWC4, Layout::kCHW};
constexpr Mode kModes[] = {Mode::kFast, Mode::kTorchvisionExact};
constexpr int kChannels[] = {1, 3, 4};

std::vector<std::string> KernelIds() {
  std::vector<std::string> ids;
  for (const KernelInfo& row : KernelTable()) ids.push_back(row.id);
  return ids;
}

// A normalization for `channels`, rotating through the presets so each gets
// exercised.
FusedNormTester Normalized(int channels, int salt) {
  FusedNormTester t;
  t.channels(channels);
  switch (channels) {
    case 1:
      t.preset(salt % 2 ? Preset::kMnist : Preset::kNoNorm);
      break;
    case 3: {
      const Preset p[] = {Preset::kImagenet, Preset::kCifar, Preset::kMlperf,
                          Preset::kNoNorm};
      t.preset(p[salt % 4]);
      break;
    }
    default:
      if (salt % 2) {
        t.mean_std({0.5f, 0.25f, 0.125f, 0.9f}, {0.2f, 0.3f, 0.7f, 1.5f});
      } else {
        t.preset(Preset::kNoNorm);
      }
  }
  return t;
}

// Erase rectangles for an H x W image: none, interior, touching each edge, full
// width.
std::vector<EraseRect> EraseCases(int64_t H, int64_t W) {
  std::vector<EraseRect> cases = {EraseRect{}};
  if (H >= 3 && W >= 3) cases.push_back({1, 1, H - 2, W - 2});  // interior
  cases.push_back({0, W / 3, (H + 1) / 2, (W + 2) / 3});        // top edge
  cases.push_back(
      {H - (H + 1) / 2, W / 4, (H + 1) / 2, W / 2 + 1});  // bottom edge
  cases.push_back({H / 3, 0, H / 2 + 1, (W + 1) / 2});    // left edge
  cases.push_back(
      {H / 4, W - (W + 1) / 2, H / 2 + 1, (W + 1) / 2});  // right edge
  cases.push_back({H / 2, 0, 1, W});                      // one full-width row
  cases.push_back({0, 0, H, W});                          // everything
  return cases;
}

class KernelMatrixTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const absl::StatusOr<const KernelInfo*> k = FindKernel(GetParam());
    if (!k.ok()) GTEST_SKIP() << k.status();
  }
};

// Widths 1..70 (past any vector tile, flipped and not), each dtype x layout x
// mode x C, with strides, misalignment and erase shapes rotating so every
// combination meets each.
TEST_P(KernelMatrixTest, EveryWidth) {
  const int64_t paddings[] = {0, 1, 61};
  int salt = 0;
  for (int64_t W = 1; W <= 70; ++W) {
    const int64_t H = 2 + W % 3;
    const std::vector<EraseRect> erases = EraseCases(H, W);
    for (int C : kChannels) {
      for (DType d : kDTypes) {
        for (Layout l : kLayouts) {
          for (Mode m : kModes) {
            ++salt;
            Normalized(C, salt)
                .kernel(GetParam())
                .height(H)
                .width(W)
                .input_padding(paddings[salt % 3])
                .unaligned_input(salt % 5 == 0)
                .dtype(d)
                .layout(l)
                .mode(m)
                .flip(salt % 2 == 0)
                .erase(erases[salt % erases.size()])
                .nontemporal(salt % 4 == 1)
                .seed(salt)
                .Test();
            if (HasFailure())
              return;  // one broken kernel should not print 15,000 failures
          }
        }
      }
    }
  }
}

// Classic image sizes and degenerate shapes, every dtype x layout x mode x C x
// flip.
TEST_P(KernelMatrixTest, ImageSizes) {
  struct Size {
    int64_t h, w;
  };
  const Size sizes[] = {{1, 1},   {1, 257},   {77, 1},   {28, 28},
                        {32, 32}, {224, 224}, {333, 500}};
  int salt = 0;
  for (const Size s : sizes) {
    const std::vector<EraseRect> erases = EraseCases(s.h, s.w);
    for (int C : kChannels) {
      for (DType d : kDTypes) {
        for (Layout l : kLayouts) {
          for (Mode m : kModes) {
            for (bool flip : {false, true}) {
              ++salt;
              // The large sizes take one representative combination in three.
              if (s.h * s.w > 50000 && salt % 3 != 0) continue;
              Normalized(C, salt)
                  .kernel(GetParam())
                  .height(s.h)
                  .width(s.w)
                  .input_padding(salt % 2 ? 0 : 61)
                  .unaligned_input(salt % 7 == 0)
                  .dtype(d)
                  .layout(l)
                  .mode(m)
                  .flip(flip)
                  .erase(erases[salt % erases.size()])
                  .nontemporal(salt % 4 == 1)
                  .seed(salt)
                  .Test();
              if (HasFailure()) return;
            }
          }
        }
      }
    }
  }
}

// Two channels with NO_NORM (the only preset that takes them): every dtype x
// layout x mode.
TEST_P(KernelMatrixTest, NoNormTwoChannels) {
  for (DType d : kDTypes) {
    for (Layout l : kLayouts) {
      for (Mode m : kModes) {
        FusedNormTester()
            .kernel(GetParam())
            .preset(Preset::kNoNorm)
            .channels(2)
            .height(5)
            .width(37)
            .input_padding(3)
            .dtype(d)
            .layout(l)
            .mode(m)
            .flip(true)
            .erase({1, 2, 3, 4})
            .Test();
      }
    }
  }
}

// Every variant agrees with scalar_eigen bit for bit (already implied by the
// reference; checked directly so a disagreement names both).
TEST_P(KernelMatrixTest, AgreesWithScalarEigen) {
  for (DType d : kDTypes) {
    for (Layout l : kLayouts) {
      for (Mode m : kModes) {
        FusedNormTester t = Normalized(3, 1);
        t.height(31)
            .width(45)
            .input_padding(7)
            .dtype(d)
            .layout(l)
            .mode(m)
            .flip(true)
            .erase({3, 4, 10, 11});
        const std::vector<uint8_t> ours =
            FusedNormTester(t).kernel(GetParam()).Test();
        const std::vector<uint8_t> base =
            FusedNormTester(t).kernel("scalar_eigen").Test();
        if (ours.empty()) continue;  // not covered by this variant
        EXPECT_EQ(ours, base)
            << DTypeName(d) << " " << LayoutName(l) << " " << ModeName(m);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllKernels, KernelMatrixTest,
                         ::testing::ValuesIn(KernelIds()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace testing_ref
}  // namespace fusednorm
