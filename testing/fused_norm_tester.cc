// FusedNormTester::Test (fused_norm_tester.h): guarded buffers in, the op
// run, every output byte compared with the reference.
#include "testing/fused_norm_tester.h"

#include <cmath>
#include <cstring>
#include <random>

#include "absl/strings/str_cat.h"
#include "core/format_names.h"
#include "gtest/gtest.h"
#include "kernels/dispatch.h"
#include "ops/fused_normalization.h"
#include "testing/fused_normalization_test_peer.h"
#include "testing/guarded_buffer.h"
#include "testing/reference.h"
#include "testing/reference_normalization.h"

namespace fusednorm {

namespace testing_ref {
namespace {

// Bytes to leave between a buffer's end and its guard page so that a buffer
// of `size` bytes starts `alignment` bytes past a 64-byte boundary (the guard
// page itself is 4096-aligned); 0 for alignment -1.
size_t TailFor(size_t size, int alignment) {
  if (alignment < 0) return 0;
  return (64 - (size + alignment) % 64) % 64;
}

// Reports up to five elements where `got` and `expected` differ.
void ReportMismatches(const std::vector<uint8_t>& got,
                      const std::vector<uint8_t>& expected, size_t esize) {
  int reported = 0;
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

// Checks the fast formula's float32 result against the real one.
void CheckFastBound(const RefInput& ref, const Chw<float>& fast) {
  const Chw<double> exact = Exact(ref);
  int reported = 0;
  for (int c = 0; c < ref.channels; ++c) {
    const double scale = std::fabs(1.0 / (255.0 * ref.std[c]));
    const double sub = std::fabs(static_cast<double>(ref.mean[c]) / ref.std[c]);
    const double bound = kFastModeBound * (255.0 * scale + sub);
    for (int64_t h = 0; h < ref.height; ++h) {
      for (int64_t w = 0; w < ref.width; ++w) {
        const double y = fast.at(c, h, w), x = exact.at(c, h, w);
        if (std::fabs(y - x) > bound && reported++ < 3) {
          ADD_FAILURE() << "fast mode " << y << " vs exact " << x << " exceeds "
                        << bound;
        }
      }
    }
  }
}

// A variant that does not cover a configuration must refuse it: Create, or
// (NO_NORM, whose channel count is known only then) Apply, is Unimplemented.
void CheckRefused(const FusedNormalizationOptions& options, int channels) {
  absl::StatusOr<FusedNormalization> refused =
      FusedNormalization::Create(options);
  if (!refused.ok()) {
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnimplemented);
    return;
  }
  const uint8_t pixel[kMaxChannels] = {1, 2, 3, 4};
  float out[kMaxChannels * 4];
  const ImageView one{absl::MakeConstSpan(pixel, channels), 1, 1, channels,
                      channels};
  EXPECT_EQ(refused
                ->Apply(one, {},
                        OutputView{absl::MakeSpan(
                            reinterpret_cast<uint8_t*>(out), sizeof(out))})
                .code(),
            absl::StatusCode::kUnimplemented);
}

// Fills the whole buffer with random bytes from `seed`, then makes it
// read-only.
void FillRandom(uint32_t seed, GuardedBuffer* buffer) {
  std::mt19937 gen(seed);
  for (size_t i = 0; i < buffer->size(); ++i)
    buffer->data()[i] = static_cast<uint8_t>(gen());
  buffer->MakeReadOnly();
}

// No byte before the output (the canary) or between its end and the guard
// page (poisoned with 0xff) may have changed.
void CheckAroundOutput(const GuardedBuffer& output, size_t size) {
  EXPECT_TRUE(output.CanaryIntact()) << "bytes before the output were written";
  for (size_t i = size; i < output.size(); ++i) {
    EXPECT_EQ(output.data()[i], 0xff)
        << "byte " << i - size << " past the output was written";
  }
}

}  // namespace

std::string FusedNormTester::Describe() const {
  return absl::StrCat(
      kernel_, " ", height_, "x", width_, "x", channels_, " pad ",
      input_padding_, " in@", input_alignment_, " out@", output_alignment_, " ",
      DTypeName(dtype_), " ", LayoutName(layout_), " ", ModeName(mode_),
      exact_by_division_ ? " div" : "", nontemporal_ ? " nt" : "",
      flip_ ? " flip" : "", " erase(", erase_.top, ",", erase_.left, ",",
      erase_.height, ",", erase_.width, ")");
}

FusedNormalizationOptions FusedNormTester::Options(RefInput* ref) const {
  FusedNormalizationOptions options;
  options.kernel = kernel_;
  options.dtype = dtype_;
  options.layout = layout_;
  options.mode = mode_;
  options.stores = nontemporal_
                       ? FusedNormalizationOptions::Stores::kNontemporal
                       : FusedNormalizationOptions::Stores::kRegular;
  options.preset = preset_;
  options.mean = mean_;
  options.std = std_;
  SetReferenceNormalization(options, channels_, ref);
  return options;
}

std::vector<uint8_t> FusedNormTester::Test() const {
  SCOPED_TRACE(Describe());
  RefInput ref;
  const FusedNormalizationOptions options = Options(&ref);
  const absl::StatusOr<const KernelInfo*> row = FindKernel(kernel_);
  if (row.ok() && !(*row)->covers(dtype_, layout_, mode_, channels_)) {
    CheckRefused(options, channels_);
    return {};
  }
  AllowExactByFmaForTesting(!exact_by_division_);
  absl::StatusOr<FusedNormalization> op = FusedNormalization::Create(options);
  AllowExactByFmaForTesting(true);
  EXPECT_TRUE(op.ok()) << op.status();
  if (!op.ok()) return {};
  if (exact_by_division_) {
    EXPECT_FALSE(FusedNormalizationTestPeer::ExactByFma(*op));
  }

  // Input: random bytes everywhere (row padding and tail too).
  const int64_t stride = width_ * channels_ + input_padding_;
  const size_t in_size = (height_ - 1) * stride + width_ * channels_;
  GuardedBuffer input(in_size + TailFor(in_size, input_alignment_));
  FillRandom(
      seed_ * 2654435761u + static_cast<uint32_t>(width_ * 131 + height_),
      &input);
  const uint8_t* pixels = input.data();

  absl::StatusOr<size_t> out_size = op->OutputBytes(height_, width_, channels_);
  EXPECT_TRUE(out_size.ok()) << out_size.status();
  if (!out_size.ok()) return {};
  GuardedBuffer output(*out_size + TailFor(*out_size, output_alignment_));
  // 0xff is NaN in every dtype: never an expected value.
  std::memset(output.data(), 0xff, output.size());

  const ImageView view{absl::MakeConstSpan(pixels, in_size), height_, width_,
                       channels_, stride};
  const Augmentation aug{flip_, erase_};
  const absl::Status status = op->Apply(
      view, aug, OutputView{absl::MakeSpan(output.data(), *out_size)});
  EXPECT_TRUE(status.ok()) << status;
  CheckAroundOutput(output, *out_size);

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
  std::vector<uint8_t> got(output.data(), output.data() + *out_size);
  EXPECT_EQ(expected.size(), got.size());
  if (expected.size() != got.size()) return got;
  if (expected != got) ReportMismatches(got, expected, DTypeSize(dtype_));
  if (mode_ == Mode::kFast) CheckFastBound(ref, expected_float);
  return got;
}

}  // namespace testing_ref
}  // namespace fusednorm
