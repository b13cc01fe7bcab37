// FusedNormalization::ApplyBatch: the same bytes as Apply for every image,
// written at its place in the batch and nowhere else, for every dtype, layout
// and store policy; streaming chosen by the whole batch's size; every bad
// argument rejected before a byte is written.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/format_names.h"
#include "gtest/gtest.h"
#include "ops/fused_normalization.h"
#include "testing/fused_normalization_test_peer.h"

namespace fusednorm {
namespace {

using Stores = FusedNormalizationOptions::Stores;

constexpr int64_t kH = 9, kW = 37, kC = 3, kStride = kW * kC + 5;
constexpr uint8_t kPoison = 0xab;

FusedNormalization MakeOp(DType dtype, Layout layout, Stores stores) {
  FusedNormalizationOptions o;
  o.dtype = dtype;
  o.layout = layout;
  o.stores = stores;
  o.flip_p = 0.5;
  o.erase.enabled = true;
  o.erase.p = 0.7;
  return *FusedNormalization::Create(o);
}

// `n` random non-zero images with padded rows, one buffer each.
std::vector<std::vector<uint8_t>> RandomImages(int n, std::mt19937& gen) {
  std::vector<std::vector<uint8_t>> images(n);
  for (auto& im : images) {
    im.resize(kH * kStride);
    for (uint8_t& b : im) b = static_cast<uint8_t>(1 + gen() % 255);
  }
  return images;
}

std::vector<ImageView> Views(const std::vector<std::vector<uint8_t>>& images) {
  std::vector<ImageView> views;
  for (const auto& im : images)
    views.push_back({absl::MakeConstSpan(im), kH, kW, kC, kStride});
  return views;
}

TEST(ApplyBatch, SameBytesAsApplyAtEachPlaceOnly) {
  std::mt19937 gen(11);
  const auto images = RandomImages(4, gen);
  const std::vector<ImageView> views = Views(images);
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    for (Layout layout : {Layout::kHWC, Layout::kHWC4, Layout::kCHW}) {
      for (Stores stores :
           {Stores::kAuto, Stores::kNontemporal, Stores::kRegular}) {
        for (size_t first : {0, 3}) {
          SCOPED_TRACE(absl::StrCat(DTypeName(dtype), " ", LayoutName(layout),
                                    " stores ", static_cast<int>(stores),
                                    " first ", first));
          const FusedNormalization op = MakeOp(dtype, layout, stores);
          const size_t image_bytes = *op.OutputBytes(kH, kW, kC);
          std::vector<Augmentation> augs;
          for (int k = 0; k < 4; ++k) {
            SampleStream s(5, 1, k);
            augs.push_back(op.Sample(kH, kW, s));
          }
          std::vector<uint8_t> batch(8 * image_bytes, kPoison);
          ASSERT_TRUE(
              op.ApplyBatch(views, augs, {absl::MakeSpan(batch)}, first).ok());
          for (size_t i = 0; i < 8; ++i) {
            std::vector<uint8_t> expected(image_bytes, kPoison);
            const size_t k = i - first;
            if (i >= first && k < 4) {
              ASSERT_TRUE(
                  op.Apply(views[k], augs[k], {absl::MakeSpan(expected)}).ok());
            }
            ASSERT_EQ(
                std::vector<uint8_t>(batch.begin() + i * image_bytes,
                                     batch.begin() + (i + 1) * image_bytes),
                expected)
                << "image " << i;
          }
        }
      }
    }
  }
}

// Records the store policy of the last kernel call.
bool last_nontemporal = false;
int calls = 0;
void RecordingKernel(const KernelConstants&, const KernelArgs& args) {
  last_nontemporal = args.nontemporal;
  ++calls;
}
const KernelInfo kRecording = {"recording", "",      0,
                               nullptr,     nullptr, &RecordingKernel};

// Whether the op streamed when writing one image into a batch of `images`.
bool StreamedInto(Stores stores, size_t images, bool batch_call) {
  FusedNormalization op = MakeOp(DType::kFloat32, Layout::kHWC, stores);
  FusedNormalizationTestPeer::ReplaceKernel(op, kC, &kRecording);
  std::mt19937 gen(3);
  const auto image = RandomImages(1, gen);
  const size_t image_bytes = *op.OutputBytes(kH, kW, kC);
  std::vector<uint8_t> batch(images * image_bytes);
  const int before = calls;
  const absl::Status s =
      batch_call ? op.ApplyBatch(Views(image), {Augmentation{}},
                                 {absl::MakeSpan(batch)}, images - 1)
                 : op.Apply(Views(image)[0], {}, {absl::MakeSpan(batch)});
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(calls, before + 1);
  return last_nontemporal;
}

TEST(ApplyBatch, StreamsByTheWholeBatchsSize) {
  // 9 * 37 * 3 * 4 = 3996 bytes per image; 2 MiB is 525 images.
  const size_t big = (kNontemporalAutoBytes + 3995) / 3996;
  EXPECT_TRUE(StreamedInto(Stores::kAuto, big, true));
  EXPECT_FALSE(StreamedInto(Stores::kAuto, big - 1, true));
  EXPECT_FALSE(StreamedInto(Stores::kRegular, big, true));
  EXPECT_TRUE(StreamedInto(Stores::kNontemporal, 1, true));
  // Apply decides by its own image, however large the buffer behind it.
  EXPECT_FALSE(StreamedInto(Stores::kAuto, big, false));
}

class ApplyBatchErrors : public ::testing::Test {
 protected:
  ApplyBatchErrors() : batch_(4 * kImageBytes, kPoison) {
    std::mt19937 gen(5);
    images_ = RandomImages(2, gen);
    views_ = Views(images_);
  }

  void ExpectRejected(absl::Span<const ImageView> views,
                      absl::Span<const Augmentation> augs, OutputView batch,
                      size_t first, const std::string& needle) {
    const absl::Status s = op_.ApplyBatch(views, augs, batch, first);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_NE(s.message().find(needle), std::string::npos)
        << s << "\nexpected to contain: " << needle;
    for (uint8_t b : batch_) ASSERT_EQ(b, kPoison) << "written despite " << s;
  }
  OutputView Batch() { return {absl::MakeSpan(batch_)}; }

  static constexpr size_t kImageBytes = kH * kW * kC * 4;
  FusedNormalization op_ = MakeOp(DType::kFloat32, Layout::kHWC, Stores::kAuto);
  std::vector<std::vector<uint8_t>> images_;
  std::vector<ImageView> views_;
  std::vector<uint8_t> batch_;
  const std::vector<Augmentation> augs_ = {Augmentation{}, Augmentation{}};
};

TEST_F(ApplyBatchErrors, EachBadArgument) {
  ExpectRejected(views_, {Augmentation{}}, Batch(), 0,
                 "augmentations has 1 entries but inputs has 2");
  ExpectRejected(views_, augs_, Batch(), 3,
                 "batch has 15984 bytes, 4 images of 3996 bytes, but images "
                 "3..4 were asked for");
  ExpectRejected(views_, augs_, Batch(), 5, "images 5..6");
  ExpectRejected(views_, augs_,
                 {absl::MakeSpan(batch_.data(), kImageBytes - 1)}, 0,
                 "but images 0..1");
  ExpectRejected(views_, augs_, {Batch().bytes, 4}, 0, "output row_stride = 4");
  std::vector<ImageView> views = views_;
  views[1].width = kW - 1;
  ExpectRejected(views, augs_, Batch(), 0,
                 "inputs[1] is 9x36x3 but inputs[0] is 9x37x3");
  views = views_;
  views[1].pixels = views[1].pixels.subspan(6);  // rows padded by 5
  ExpectRejected(views, augs_, Batch(), 0, "inputs[1]: input pixels has");
  const std::vector<Augmentation> bad = {Augmentation{},
                                         {false, {0, 30, 2, 8}}};
  ExpectRejected(views_, bad, Batch(), 0, "inputs[1]: erase rectangle");
  views = views_;
  views[0].pixels = {};
  ExpectRejected(views, augs_, Batch(), 0, "input pixels is null");
  // Image 1's pixels inside image 0's output: written before image 1 is
  // read, so refused like an overlap with its own output.
  views = views_;
  views[1].pixels = absl::MakeConstSpan(batch_.data(), views_[1].pixels.size());
  ExpectRejected(views, augs_, Batch(), 0, "inputs[1]: input and output");
  // The valid calls work; no images is a no-op.
  EXPECT_TRUE(op_.ApplyBatch({}, {}, Batch(), 4).ok());
  for (uint8_t b : batch_) ASSERT_EQ(b, kPoison);
  EXPECT_TRUE(op_.ApplyBatch(views_, augs_, Batch(), 2).ok());
}

}  // namespace
}  // namespace fusednorm
