// The batch transforms: MixBatch against an out-of-place reference that
// rolls the batch first (every dtype and layout, batches of 1), CutMix's
// box pasted value by value, the soft targets, the Beta draws' moments,
// and RandomChoice's frequencies. The values against torch's own
// operations are python/batch_ops_test.py's.
#include "ops/batch_ops.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/formats.h"
#include "kernels/mix/mix_dispatch.h"
#include "testing/recording_mix.h"

namespace fusednorm {
namespace {

BatchShape Shape(DType dtype, Layout layout, int64_t h, int64_t w, int c) {
  BatchShape s;
  s.dtype = dtype;
  s.layout = layout;
  s.height = h;
  s.width = w;
  s.channels = c;
  const int stored = layout == Layout::kHWC4 ? 4 : c;
  s.sample_bytes =
      static_cast<size_t>(h * w * stored) * (dtype == DType::kFloat32 ? 4 : 2);
  return s;
}

// Random finite values of the dtype, pad lanes 0 (as the fused op writes).
std::vector<uint8_t> Batch(const BatchShape& s, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  std::vector<uint8_t> data(s.sample_bytes * n);
  const size_t e = s.dtype == DType::kFloat32 ? 4 : 2;
  const int stored = s.layout == Layout::kHWC4 ? 4 : s.channels;
  for (size_t i = 0; i < data.size() / e; ++i) {
    const bool pad =
        s.layout == Layout::kHWC4 && i % 4 >= static_cast<size_t>(s.channels);
    const float v = pad ? 0.0f : normal(rng);
    if (s.dtype == DType::kFloat32) {
      std::memcpy(&data[i * 4], &v, 4);
    } else {
      const uint16_t b = s.dtype == DType::kFloat16 ? FloatToHalfBits(v)
                                                    : FloatToBFloat16Bits(v);
      std::memcpy(&data[i * 2], &b, 2);
    }
  }
  (void)stored;
  return data;
}

float Get(DType t, const uint8_t* p, size_t i) {
  if (t == DType::kFloat32) {
    float v;
    std::memcpy(&v, p + 4 * i, 4);
    return v;
  }
  uint16_t b;
  std::memcpy(&b, p + 2 * i, 2);
  return t == DType::kFloat16 ? HalfBitsToFloat(b) : BFloat16BitsToFloat(b);
}

// The value rounded to the dtype and back.
float In(DType t, float v) {
  if (t == DType::kFloat32) return v;
  return t == DType::kFloat16 ? HalfBitsToFloat(FloatToHalfBits(v))
                              : BFloat16BitsToFloat(FloatToBFloat16Bits(v));
}

// Every mix kernel row this CPU runs.
std::vector<const MixKernelInfo*> MixRows() {
  std::vector<const MixKernelInfo*> rows;
  for (const MixKernelInfo& row : MixKernels().rows()) {
    if (MixKernels().supported(row)) rows.push_back(&row);
  }
  return rows;
}

const MixKernelInfo& DefaultMix() { return **SelectMixKernel(""); }

BatchDecision MixUpOf(double lam) {
  BatchDecision d;
  d.kind = BatchDecision::Kind::kMixUp;
  d.lam = lam;
  return d;
}

BatchDecision CutMixOf(int64_t x1, int64_t y1, int64_t x2, int64_t y2) {
  BatchDecision d;
  d.kind = BatchDecision::Kind::kCutMix;
  d.x1 = x1, d.y1 = y1, d.x2 = x2, d.y2 = y2;
  return d;
}

TEST(MixBatch, MixUpIsTheRolledBatchTimesOneMinusLamPlusTheBatchTimesLam) {
  for (const MixKernelInfo* kernel : MixRows()) {
    for (const DType dtype :
         {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
      for (const Layout layout : {Layout::kHWC, Layout::kHWC4, Layout::kCHW}) {
        for (const size_t n : {1u, 2u, 5u}) {
          SCOPED_TRACE(absl::StrCat(kernel->id, " ", static_cast<int>(dtype),
                                    " ", static_cast<int>(layout), " n ", n));
          const BatchShape s = Shape(dtype, layout, 3, 5, 3);
          std::vector<uint8_t> data = Batch(s, n, 7 + static_cast<uint32_t>(n));
          const std::vector<uint8_t> original = data;
          // The partner batch: original rolled by one, as a separate copy.
          std::vector<uint8_t> rolled(data.size());
          for (size_t i = 0; i < n; ++i) {
            std::memcpy(&rolled[i * s.sample_bytes],
                        &original[((i + n - 1) % n) * s.sample_bytes],
                        s.sample_bytes);
          }
          BatchDecision d;
          d.kind = BatchDecision::Kind::kMixUp;
          d.lam = 0.3141592653589793;
          std::vector<uint8_t> scratch;
          MixBatch(d, s, *kernel, std::vector<bool>(n, true), data.data(), n,
                   &scratch);
          const float a = static_cast<float>(1.0 - d.lam);
          const float b = static_cast<float>(d.lam);
          const size_t values =
              data.size() / (dtype == DType::kFloat32 ? 4 : 2);
          for (size_t i = 0; i < values; ++i) {
            const float want =
                In(dtype, In(dtype, Get(dtype, rolled.data(), i) * a) +
                              In(dtype, Get(dtype, original.data(), i) * b));
            ASSERT_EQ(Get(dtype, data.data(), i), want) << i;
          }
        }
      }
    }
  }
}

// A batch of 2 MiB or more is mixed (MixUp) or pasted into (CutMix: once
// per CHW plane) with streaming stores, a smaller one with regular stores:
// 32 samples of 64x64 float32 HWC4 are exactly 2 MiB, 42 of 64x64x3 are
// 32 KiB short of it, 43 past it.
TEST(MixBatch, StreamsABatchOfTwoMiBOrMore) {
  const MixKernelInfo recording = testing_ref::RecordingMix();
  const BatchShape hwc = Shape(DType::kFloat32, Layout::kHWC, 64, 64, 3);
  const BatchShape hwc4 = Shape(DType::kFloat32, Layout::kHWC4, 64, 64, 3);
  const BatchShape chw = Shape(DType::kFloat32, Layout::kCHW, 64, 64, 3);
  const BatchDecision mixup = MixUpOf(0.25);
  const BatchDecision cutmix = CutMixOf(5, 3, 61, 40);
  for (const auto& [s, n] : {std::pair{hwc, size_t{1}},
                             {hwc, size_t{42}},
                             {hwc, size_t{43}},
                             {hwc4, size_t{31}},
                             {hwc4, size_t{32}},
                             {chw, size_t{42}},
                             {chw, size_t{43}}}) {
    for (const BatchDecision& d : {mixup, cutmix}) {
      SCOPED_TRACE(absl::StrCat(static_cast<int>(s.layout), " n ", n, " kind ",
                                static_cast<int>(d.kind)));
      const bool big = n * s.sample_bytes >= (size_t{2} << 20);
      EXPECT_EQ(MixStreams(s, n), big);
      std::vector<uint8_t> data = Batch(s, n, 3), want = data, scratch;
      testing_ref::RecordedMixHints().clear();
      MixBatch(d, s, recording, std::vector<bool>(n, true), data.data(), n,
               &scratch);
      const size_t calls =
          d.kind == BatchDecision::Kind::kCutMix && s.layout == Layout::kCHW
              ? 3 * n
              : n;
      EXPECT_EQ(testing_ref::RecordedMixHints(), std::vector<bool>(calls, big));
      MixBatch(d, s, DefaultMix(), std::vector<bool>(n, true), want.data(), n,
               &scratch);
      EXPECT_EQ(data, want);
    }
  }
}

TEST(MixBatch, CutMixPastesThePartnersBox) {
  for (const Layout layout : {Layout::kHWC, Layout::kHWC4, Layout::kCHW}) {
    const BatchShape s = Shape(DType::kFloat32, layout, 7, 9, 3);
    const size_t n = 4;
    std::vector<uint8_t> data = Batch(s, n, 3);
    const std::vector<uint8_t> original = data;
    BatchDecision d;
    d.kind = BatchDecision::Kind::kCutMix;
    d.x1 = 2, d.y1 = 1, d.x2 = 8, d.y2 = 4;
    std::vector<uint8_t> scratch;
    MixBatch(d, s, DefaultMix(), std::vector<bool>(n, true), data.data(), n,
             &scratch);
    const int stored = layout == Layout::kHWC4 ? 4 : 3;
    for (size_t i = 0; i < n; ++i) {
      const uint8_t* got = &data[i * s.sample_bytes];
      const uint8_t* own = &original[i * s.sample_bytes];
      const uint8_t* partner = &original[((i + n - 1) % n) * s.sample_bytes];
      for (int c = 0; c < stored; ++c) {
        for (int64_t y = 0; y < 7; ++y) {
          for (int64_t x = 0; x < 9; ++x) {
            const size_t k = static_cast<size_t>(
                layout == Layout::kCHW ? (c * 7 + y) * 9 + x
                                       : (y * 9 + x) * stored + c);
            const bool in_box = x >= 2 && x < 8 && y >= 1 && y < 4;
            ASSERT_EQ(Get(DType::kFloat32, got, k),
                      Get(DType::kFloat32, in_box ? partner : own, k))
                << i << " " << c << " " << y << " " << x;
          }
        }
      }
    }
  }
}

TEST(MakeTargets, OneHotMixedAndSmoothed) {
  const std::vector<int64_t> labels = {2, 0, 0, -1};
  std::vector<float> t(4 * 3);
  MakeTargets(BatchDecision(), labels, 3, 0.0, t.data());
  EXPECT_EQ(t, (std::vector<float>{0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0}));
  BatchDecision d;
  d.kind = BatchDecision::Kind::kMixUp;
  d.lam = 0.7;
  MakeTargets(d, labels, 3, 0.0, t.data());
  const float a = static_cast<float>(1.0 - 0.7), b = static_cast<float>(0.7);
  // Row i: the partner (label of i - 1) gets 1 - lam, its own label lam.
  // The skipped sample (-1) mixes with nothing: its row stays zeros, and
  // row 0, whose partner it is, keeps its own one-hot target.
  EXPECT_EQ(t, (std::vector<float>{0, 0, 1, b, 0, a, a + b, 0, 0, 0, 0, 0}));
  MakeTargets(d, labels, 3, 0.1, t.data());
  const float keep = static_cast<float>(1.0 - 0.1);
  const float add = static_cast<float>(0.1 / 3);
  EXPECT_EQ(t[2], 1 * keep + add);
  EXPECT_EQ(t[0], 0 * keep + add);
  EXPECT_EQ(t[5], a * keep + add);
  // Smoothing leaves a skipped row zeros: it adds nothing to a loss.
  EXPECT_EQ(std::vector<float>(t.begin() + 9, t.end()),
            (std::vector<float>{0, 0, 0}));
}

TEST(MixBatch, SkippedSamplesMixWithNothing) {
  // Every place of one skipped sample in a batch of 4, MixUp and CutMix:
  // the skipped one keeps its zeros, the one after it (its partner's
  // place: roll(1)) its own values, the others mix as before.
  const BatchShape s = Shape(DType::kFloat32, Layout::kHWC, 4, 5, 3);
  const size_t n = 4;
  const BatchDecision mixup = MixUpOf(0.375);
  const BatchDecision cutmix = CutMixOf(1, 0, 4, 3);
  for (const BatchDecision& d : {mixup, cutmix}) {
    for (size_t skipped = 0; skipped < n; ++skipped) {
      SCOPED_TRACE(
          absl::StrCat(static_cast<int>(d.kind), " skipped ", skipped));
      std::vector<uint8_t> data = Batch(s, n, 11);
      std::fill_n(&data[skipped * s.sample_bytes], s.sample_bytes, 0);
      std::vector<bool> ok(n, true);
      ok[skipped] = false;
      std::vector<uint8_t> want = data, all = data, scratch;
      MixBatch(d, s, DefaultMix(), std::vector<bool>(n, true), all.data(), n,
               &scratch);
      for (size_t i = 0; i < n; ++i) {
        if (i != skipped && i != (skipped + 1) % n) {
          std::memcpy(&want[i * s.sample_bytes], &all[i * s.sample_bytes],
                      s.sample_bytes);
        }
      }
      MixBatch(d, s, DefaultMix(), ok, data.data(), n, &scratch);
      EXPECT_EQ(data, want);
    }
  }
}

TEST(Decide, CutMixBoxAndAdjustedLam) {
  const CutMix cutmix(1.0);
  for (uint64_t b = 0; b < 500; ++b) {
    SampleStream stream(5, 2, (uint64_t{1} << 62) + b);
    const BatchDecision d = cutmix.Decide({24, 32}, stream);
    ASSERT_EQ(d.kind, BatchDecision::Kind::kCutMix);
    ASSERT_GE(d.x1, 0);
    ASSERT_LE(d.x1, d.x2);
    ASSERT_LE(d.x2, 32);
    ASSERT_GE(d.y1, 0);
    ASSERT_LE(d.y1, d.y2);
    ASSERT_LE(d.y2, 24);
    EXPECT_EQ(d.lam, 1.0 - static_cast<double>((d.x2 - d.x1) * (d.y2 - d.y1)) /
                               (24.0 * 32.0));
    // The half sides are int(0.5 sqrt(1 - lam) * side): a box not clamped
    // by an edge has sides of twice them.
    const int64_t hw =
        static_cast<int64_t>(0.5 * std::sqrt(1.0 - d.drawn) * 32);
    const int64_t hh =
        static_cast<int64_t>(0.5 * std::sqrt(1.0 - d.drawn) * 24);
    ASSERT_LE(d.x2 - d.x1, 2 * hw);
    ASSERT_LE(d.y2 - d.y1, 2 * hh);
  }
}

// Beta(alpha, alpha): mean 1/2, variance 1 / (4 (2 alpha + 1)), in [0, 1].
TEST(DrawBeta, Moments) {
  for (const double alpha : {0.2, 1.0, 5.0}) {
    const int n = 40000;
    double sum = 0, sum2 = 0;
    for (int i = 0; i < n; ++i) {
      SampleStream stream(11, 0, static_cast<uint64_t>(i));
      const double x = DrawBeta(alpha, stream);
      ASSERT_GE(x, 0.0);
      ASSERT_LE(x, 1.0);
      sum += x;
      sum2 += x * x;
    }
    const double mean = sum / n, var = sum2 / n - mean * mean;
    const double want_var = 1.0 / (4 * (2 * alpha + 1));
    EXPECT_NEAR(mean, 0.5, 4 * std::sqrt(want_var / n)) << alpha;
    EXPECT_NEAR(var, want_var, 0.05 * want_var + 0.002) << alpha;
  }
}

TEST(Decide, RandomChoiceFrequencies) {
  std::vector<std::unique_ptr<BatchOp>> ops;
  ops.push_back(std::make_unique<MixUp>(0.2));
  ops.push_back(std::make_unique<CutMix>(1.0));
  const RandomChoice choice(std::move(ops), std::vector<double>{1.0, 3.0});
  int cutmix = 0;
  const int n = 20000;
  for (int b = 0; b < n; ++b) {
    SampleStream stream(1, 0, (uint64_t{1} << 62) + b);
    const BatchDecision d = choice.Decide({8, 8}, stream);
    cutmix += d.kind == BatchDecision::Kind::kCutMix;
    ASSERT_EQ(d.choice, d.kind == BatchDecision::Kind::kCutMix ? 1 : 0);
  }
  EXPECT_NEAR(static_cast<double>(cutmix) / n, 0.75, 0.015);
}

// Equal probabilities decide as none given (torchvision v2 stores p=None
// as [0.5, 0.5]): the same choice, λ and box for every batch.
TEST(Decide, RandomChoiceEqualPIsNoP) {
  const auto make = [](std::optional<std::vector<double>> p) {
    std::vector<std::unique_ptr<BatchOp>> ops;
    ops.push_back(std::make_unique<MixUp>(0.2));
    ops.push_back(std::make_unique<CutMix>(1.0));
    return RandomChoice(std::move(ops), std::move(p));
  };
  const RandomChoice none = make(std::nullopt);
  const RandomChoice half = make(std::vector<double>{0.5, 0.5});
  const RandomChoice ones = make(std::vector<double>{2.0, 2.0});
  for (int b = 0; b < 200; ++b) {
    SampleStream s1(3, 1, kBatchStreams + b), s2 = s1, s3 = s1;
    const BatchDecision want = none.Decide({16, 12}, s1);
    for (const RandomChoice* c : {&half, &ones}) {
      SampleStream s = c == &half ? s2 : s3;
      const BatchDecision got = c->Decide({16, 12}, s);
      ASSERT_EQ(got.choice, want.choice) << b;
      ASSERT_EQ(got.lam, want.lam) << b;
      ASSERT_EQ(got.drawn, want.drawn) << b;
      ASSERT_EQ(std::make_tuple(got.x1, got.y1, got.x2, got.y2),
                std::make_tuple(want.x1, want.y1, want.x2, want.y2))
          << b;
    }
  }
}

}  // namespace
}  // namespace fusednorm
