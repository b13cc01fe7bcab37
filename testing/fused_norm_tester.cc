#include "testing/fused_norm_tester.h"

#include <cmath>
#include <cstring>
#include <random>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/dispatch.h"
#include "ops/fused_normalization.h"
#include "testing/guarded_buffer.h"
#include "testing/reference.h"

namespace fusednorm {
namespace testing_ref {

std::vector<uint8_t> FusedNormTester::Test() const {
  const std::string what = absl::StrCat(
      kernel_, " ", height_, "x", width_, "x", channels_, " pad ",
      input_padding_, unaligned_input_ ? " unaligned" : "", " ",
      DTypeName(dtype_), " ", LayoutName(layout_), " ", ModeName(mode_),
      nontemporal_ ? " nt" : "", flip_ ? " flip" : "", " erase(", erase_.top,
      ",", erase_.left, ",", erase_.height, ",", erase_.width, ")");
  SCOPED_TRACE(what);

  FusedNormalizationOptions options;
  options.kernel = kernel_;
  options.dtype = dtype_;
  options.layout = layout_;
  options.mode = mode_;
  options.stores = nontemporal_
                       ? FusedNormalizationOptions::Stores::kNontemporal
                       : FusedNormalizationOptions::Stores::kRegular;
  RefInput ref;
  if (mean_.empty()) {
    options.preset = preset_;
    const Normalization n = PresetNormalization(preset_);
    for (int c = 0; c < channels_; ++c) {
      ref.mean.push_back(n.mean[n.channels == 0 ? 0 : c]);
      ref.std.push_back(n.std[n.channels == 0 ? 0 : c]);
    }
  } else {
    options.mean = mean_;
    options.std = std_;
    ref.mean = mean_;
    ref.std = std_;
  }
  // Variants that cover only some configurations (x86_f16c) are checked on
  // those; the rest must be refused by Create (Unimplemented), never run.
  const absl::StatusOr<const KernelInfo*> row = FindKernel(kernel_);
  if (row.ok() && !(*row)->covers(dtype_, layout_, mode_, channels_)) {
    absl::StatusOr<FusedNormalization> refused =
        FusedNormalization::Create(options);
    if (refused.ok()) {  // NO_NORM: the channel count is known at Apply()
      const uint8_t pixel[kMaxChannels] = {1, 2, 3, 4};
      float out[kMaxChannels * 4];
      const ImageView one{absl::MakeConstSpan(pixel, channels_), 1, 1,
                          channels_, channels_};
      EXPECT_EQ(refused
                    ->Apply(one, {},
                            OutputView{absl::MakeSpan(
                                reinterpret_cast<uint8_t*>(out), sizeof(out))})
                    .code(),
                absl::StatusCode::kUnimplemented);
    } else {
      EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnimplemented);
    }
    return {};
  }
  absl::StatusOr<FusedNormalization> op = FusedNormalization::Create(options);
  EXPECT_TRUE(op.ok()) << op.status();
  if (!op.ok()) return {};

  // Input: random bytes everywhere (row padding too), the last byte against a
  // guard page.
  const int64_t stride = width_ * channels_ + input_padding_;
  const size_t in_size = (height_ - 1) * stride + width_ * channels_;
  const size_t offset = unaligned_input_ ? 1 : 0;
  GuardedBuffer input(in_size + offset);
  std::mt19937 gen(seed_ * 2654435761u +
                   static_cast<uint32_t>(width_ * 131 + height_));
  for (size_t i = 0; i < input.size(); ++i)
    input.data()[i] = static_cast<uint8_t>(gen());
  input.MakeReadOnly();
  const uint8_t* pixels = input.data() + offset;

  absl::StatusOr<size_t> out_size = op->OutputBytes(height_, width_, channels_);
  EXPECT_TRUE(out_size.ok()) << out_size.status();
  if (!out_size.ok()) return {};
  GuardedBuffer output(*out_size);
  std::memset(output.data(), 0xff,
              output.size());  // NaN in every dtype: never expected

  ImageView view{absl::MakeConstSpan(pixels, in_size), height_, width_,
                 channels_, stride};
  Augmentation aug{flip_, erase_};
  const absl::Status status = op->Apply(view, aug, OutputView{output.span()});
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_TRUE(output.CanaryIntact()) << "bytes before the output were written";

  ref.pixels = pixels;
  ref.height = height_;
  ref.width = width_;
  ref.channels = channels_;
  ref.row_stride = stride;
  ref.flip = flip_;
  ref.erase = erase_;
  const Chw<float> expected_float =
      mode_ == Mode::kFast ? FastFloat(ref) : TorchvisionFloat(ref);
  const std::vector<uint8_t> expected = Encode(expected_float, dtype_, layout_);
  std::vector<uint8_t> got(output.data(), output.data() + output.size());
  EXPECT_EQ(expected.size(), got.size());
  if (expected.size() != got.size()) return got;

  if (expected != got) {
    int reported = 0;
    const size_t esize = DTypeSize(dtype_);
    for (size_t i = 0; i < got.size() && reported < 5; i += esize) {
      if (std::memcmp(&got[i], &expected[i], esize) == 0) continue;
      uint32_t g = 0, e = 0;
      std::memcpy(&g, &got[i], esize);
      std::memcpy(&e, &expected[i], esize);
      ADD_FAILURE() << "element " << i / esize << " of " << got.size() / esize
                    << ": got bits 0x" << std::hex << g << ", expected 0x" << e
                    << std::dec;
      ++reported;
    }
  }

  if (mode_ == Mode::kFast) {
    // The fast formula itself against the real result.
    const Chw<double> exact = Exact(ref);
    int reported = 0;
    for (int c = 0; c < channels_; ++c) {
      const double scale = 1.0 / (255.0 * ref.std[c]);
      const double sub =
          std::fabs(static_cast<double>(ref.mean[c]) / ref.std[c]);
      for (int64_t h = 0; h < height_; ++h) {
        for (int64_t w = 0; w < width_; ++w) {
          const double y = expected_float.at(c, h, w), x = exact.at(c, h, w);
          const double bound = kFastModeBound * (255.0 * scale + sub);
          if (std::fabs(y - x) > bound && reported++ < 3) {
            ADD_FAILURE() << "fast mode " << y << " vs exact " << x
                          << " exceeds " << bound;
          }
        }
      }
    }
  }
  return got;
}

}  // namespace testing_ref
}  // namespace fusednorm
