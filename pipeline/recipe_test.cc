// Transform lists through the loader: each sample equals its ops applied
// one by one in list order with the decisions its stream gives them (the
// flip done by the fused op or where it is), for any thread count; batch
// transforms and soft targets equal MixBatch and MakeTargets applied to the
// same epoch without them; repeated augmentations deal torchvision's
// RASampler lists to the ranks; and the recipe's own rules and errors.
#include "pipeline/recipe.h"

#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/mix/mix_dispatch.h"
#include "ops/op_table.h"
#include "pipeline/chain.h"
#include "pipeline/epoch_order.h"
#include "pipeline/preprocessor.h"
#include "testing/expect_error.h"

namespace fusednorm {
namespace {

using absl::StatusCode;

// A dataset as `inner` is, but knowing its labels only by reading them.
class LabelsUnknown : public Dataset {
 public:
  explicit LabelsUnknown(std::shared_ptr<const Dataset> inner)
      : inner_(std::move(inner)) {}
  std::string name() const override { return inner_->name(); }
  size_t size() const override { return inner_->size(); }
  int channels() const override { return inner_->channels(); }
  absl::Status Read(size_t index, SampleBuffer* buffer,
                    RawSample* out) const override {
    return inner_->Read(index, buffer, out);
  }

 private:
  std::shared_ptr<const Dataset> inner_;
};

struct Sample {
  std::vector<uint8_t> bytes;
  int64_t label;
  uint64_t index;
};

// Every sample of an epoch, in order, with its batch's global number.
struct Epoch {
  std::vector<Sample> samples;
  std::vector<uint64_t> batch_of;  // per sample
  std::map<uint64_t, std::vector<float>> targets;
};

Epoch RunEpoch(const Preprocessor& p, uint32_t epoch) {
  Epoch e;
  auto loader = p.StartEpoch(Split::kTrain, epoch);
  EXPECT_TRUE(loader.ok()) << loader.status();
  if (!loader.ok()) return e;
  for (;;) {
    absl::StatusOr<BatchRef> b = (*loader)->Next();
    EXPECT_TRUE(b.ok()) << b.status();
    if (!b.ok() || *b == nullptr) break;
    for (size_t k = 0; k < (*b)->count; ++k) {
      const uint8_t* at = (*b)->data + k * (*b)->sample_bytes;
      e.samples.push_back({std::vector<uint8_t>(at, at + (*b)->sample_bytes),
                           (*b)->labels[k], (*b)->sample_indices[k]});
      e.batch_of.push_back((*b)->global_index);
    }
    e.targets[(*b)->global_index] = (*b)->targets;
  }
  return e;
}

std::vector<std::unique_ptr<PreprocessOp>> Ops(const std::string& text) {
  auto ops = MakeTransforms(text, "train_transforms", OpContext());
  EXPECT_TRUE(ops.ok()) << ops.status();
  return ops.ok() ? *std::move(ops)
                  : std::vector<std::unique_ptr<PreprocessOp>>();
}

absl::StatusOr<Preprocessor> Build(std::shared_ptr<const Dataset> data,
                                   const std::string& train, int threads,
                                   uint64_t seed = 5) {
  PreprocessorBuilder b;
  b.dataset(std::move(data))
      .train_transforms(Ops(train))
      .val_transforms(CenterCrop(8))
      .batch_size(4)
      .threads(threads)
      .seed(seed);
  return b.Commit();
}

// The sample `index` of epoch `epoch` done by hand: every op of `list` in
// order, each deciding from the sample's stream as it comes, the real ops
// (the flip too) applied where they are; then the fused op with no flip
// and the erasing drawn.
std::vector<uint8_t> ByHand(const Dataset& data, const std::string& list,
                            const FusedNormalization& fused, uint64_t seed,
                            uint32_t epoch, uint64_t index) {
  const auto ops = Ops(list);
  absl::StatusOr<fusednorm::Sample> s = DecodeSample(data, index);
  EXPECT_TRUE(s.ok()) << s.status();
  Image image = s->image;
  SampleStream stream(seed, epoch, index);
  Augmentation aug;
  OpWorkspace ws;
  for (const auto& op : ops) {
    const OpDecision d = op->Decide({image.height, image.width}, stream);
    if (op->fused_part() == PreprocessOp::FusedPart::kErase) {
      if (d.apply) aug.erase = d.erase;
      continue;
    }
    if (op->fused_part() == PreprocessOp::FusedPart::kToTensor) continue;
    Image out;
    EXPECT_TRUE(op->Apply(image.view(), d, &ws, &out).ok()) << op->name();
    image = std::move(out);
  }
  std::vector<uint8_t> bytes(
      *fused.OutputBytes(image.height, image.width, image.channels));
  EXPECT_TRUE(
      fused.Apply(image.view(), aug, OutputView{absl::MakeSpan(bytes)}).ok());
  return bytes;
}

void ExpectSamplesByHand(const std::string& list) {
  SCOPED_TRACE(list);
  std::shared_ptr<const Dataset> data(MakeSyntheticDataset(12));
  absl::StatusOr<Preprocessor> one = Build(data, list, 1);
  absl::StatusOr<Preprocessor> three = Build(data, list, 3);
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_TRUE(three.ok()) << three.status();
  const Epoch a = RunEpoch(*one, 2), b = RunEpoch(*three, 2);
  ASSERT_EQ(a.samples.size(), 12u);
  ASSERT_EQ(b.samples.size(), 12u);
  for (size_t i = 0; i < a.samples.size(); ++i) {
    EXPECT_EQ(a.samples[i].bytes, b.samples[i].bytes) << i;
    EXPECT_EQ(a.samples[i].bytes, ByHand(*data, list, one->fused(Split::kTrain),
                                         5, 2, a.samples[i].index))
        << "sample " << a.samples[i].index;
  }
}

TEST(Lists, SamplesAreTheirOpsInListOrder) {
  // The flip before ColorJitter (which commutes with it) is the fused op's.
  ExpectSamplesByHand(
      "RandomResizedCrop(24), RandomHorizontalFlip(), "
      "ColorJitter(0.4, 0.4, 0.4, 0.1), RandomErasing(0.5, value=(1, 2, 3))");
  // A flip before a crop mirrors where it is; two flips.
  ExpectSamplesByHand("RandomHorizontalFlip(), RandomResizedCrop(20)");
  ExpectSamplesByHand(
      "RandomHorizontalFlip(0.7), RandomResizedCrop(20, "
      "interpolation=bicubic), RandomVerticalFlip(), RandomGrayscale(0.5), "
      "RandomHorizontalFlip(0.3), ToTensor(), RandomErasing(1.0)");
  ExpectSamplesByHand(
      "Resize(30, interpolation=nearest, max_size=40), CenterCrop((18, 26)), "
      "ColorJitter(brightness=(0.0, 3.0), hue=(-0.5, 0.5)), "
      "Grayscale(num_output_channels=3)");
  // The auto-augment policies and the transforms made of their kernels:
  // the flip before TrivialAugmentWide (shears do not commute with it)
  // runs where it stands, the one before the table ops is the fused op's;
  // an expanding rotation's size is the angle's, then a crop fixes it.
  ExpectSamplesByHand(
      "RandomResizedCrop(24), RandomHorizontalFlip(), "
      "TrivialAugmentWide(interpolation=bilinear, fill=(9, 99, 199)), "
      "RandomErasing(0.1)");
  ExpectSamplesByHand(
      "RandomResizedCrop(24), RandAugment(3, 12), "
      "AutoAugment(AutoAugmentPolicy.SVHN, interpolation=bicubic)");
  // RandomCrop inside the image, into constant and reflected padding, and
  // after a resize.
  ExpectSamplesByHand(
      "RandomCrop(40, padding=8, fill=(9, 99, 199)), RandomHorizontalFlip(), "
      "RandomErasing(0.5)");
  ExpectSamplesByHand(
      "RandomCrop((300, 100), padding=(2, 3, 4, 5), pad_if_needed=True, "
      "padding_mode='symmetric'), Resize((24, 20))");
  ExpectSamplesByHand(
      "Resize(20), RandomCrop(24, pad_if_needed=True, padding_mode=edge)");
  ExpectSamplesByHand(
      "RandomRotation(45, expand=True), CenterCrop(20), "
      "RandomAffine(10, (0.1, 0.1), (0.8, 1.2), 5, fill=7), "
      "RandomHorizontalFlip(), RandomPosterize(3), RandomSolarize(99), "
      "RandomAdjustSharpness(2), RandomAutocontrast(), RandomEqualize(), "
      "RandomInvert()");
}

// The output size followed through a list: set by crops, computed by a
// Resize(int) from the size before it when known (a crop's, or the
// dataset's one size), kept by the others.
TEST(Lists, OutputSizeFollowsTheOps) {
  struct Case {
    const char* list;
    std::optional<Size2> image;
    std::optional<Size2> want;
    size_t position;
  };
  const size_t kData = ListSize::kDatasetSize;
  const Case cases[] = {
      {"RandomHorizontalFlip(), ColorJitter(0.4)", Size2{32, 32}, Size2{32, 32},
       kData},
      {"RandomHorizontalFlip()", std::nullopt, std::nullopt, 0},
      {"Resize(64)", Size2{32, 48}, Size2{64, 96}, 0},
      {"Resize(64)", std::nullopt, std::nullopt, 0},
      {"CenterCrop(100), Grayscale(), Resize(50)", std::nullopt, Size2{50, 50},
       2},
      {"Resize(64), CenterCrop((20, 30))", std::nullopt, Size2{20, 30}, 1},
      {"RandomRotation(30, expand=True)", Size2{32, 32}, std::nullopt, 0},
      {"RandomRotation(30, expand=True), CenterCrop(8), Resize(16)",
       std::nullopt, Size2{16, 16}, 2},
      {"RandomCrop(24, padding=4), ToTensor()", Size2{32, 32}, Size2{24, 24},
       0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.list);
    const std::optional<ListSize> got = *ListOutputSize(Ops(c.list), c.image);
    ASSERT_EQ(got.has_value(), c.want.has_value());
    if (!got) continue;
    EXPECT_EQ(got->size.height, c.want->height);
    EXPECT_EQ(got->size.width, c.want->width);
    EXPECT_EQ(got->position, c.position);
  }
}

// ", Normalize(...)" with the builder's default (ImageNet) values.
const char kImagenetNormalize[] =
    ", Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])";

// Each conversion takes what torchvision v1's takes (ToTensor a PIL image,
// ToDtype a tensor, Normalize a float one), and a list may not end in
// uint8; errors name the list's first conversion as written.
TEST(Lists, ConversionsTakeWhatTorchvisionsTake) {
  std::shared_ptr<const Dataset> data(MakeSyntheticDataset(6));
  const std::string n = kImagenetNormalize;
  for (const auto& [list, message] :
       std::vector<std::pair<std::string, std::string>>{
           {"CenterCrop(8), ToTensor(), ToTensor()",
            "position 2 (ToTensor()): ToTensor takes a PIL image, and the "
            "image is a tensor since ToTensor (position 1): give one "
            "conversion"},
           {"CenterCrop(8), PILToTensor(), ToTensor()",
            "tensor since PILToTensor (position 1)"},
           {"CenterCrop(8), ToImage(), PILToTensor()",
            "PILToTensor takes a PIL image"},
           {"CenterCrop(8), ToDtype(torch.float32, scale=True)" + n,
            "position 1 (ToDtype(dtype=torch.float32, scale=True)): ToDtype "
            "converts a tensor, and the image is not one yet"},
           {"CenterCrop(8), ConvertImageDtype(torch.float32), ToTensor()",
            "ConvertImageDtype converts a tensor"},
           {"CenterCrop(8), PILToTensor()" + n,
            "the image is a uint8 tensor since PILToTensor (position 1); "
            "torchvision normalizes float tensors"},
           {"CenterCrop(8), ToImage(), RandomErasing(value=0.5), "
            "ToDtype(torch.float32, scale=True)" +
                n,
            "position 2 (RandomErasing(p=0.5, scale=(0.02, 0.33), ratio=(0.3, "
            "3.3), value=0.5, inplace=False)): the image is a uint8 tensor "
            "since ToImage (position 1), where torchvision writes the value"},
           {"CenterCrop(8), PILToTensor()",
            "train_transforms end in the uint8 tensor of PILToTensor "
            "(position 1), where fusednorm makes float tensors"},
           {"CenterCrop(8), ToImage(), ToPureTensor()",
            "end in the uint8 tensor of ToImage (position 1)"},
           // The first conversion is the one named, as the list wrote it.
           {"CenterCrop(8), PILToTensor(), ToDtype(torch.float32, "
            "scale=True), ToTensor()",
            "position 3 (ToTensor()): ToTensor takes a PIL image, and the "
            "image is a tensor since PILToTensor (position 1)"},
           {"PILToTensor(), CenterCrop(8), ConvertImageDtype(torch.float)",
            "position 1 (CenterCrop(size=(8, 8))): after PILToTensor "
            "(position 0), where torchvision would run it on a tensor; "
            "fusednorm computes its PIL-image route: put it before "
            "PILToTensor"}}) {
    SCOPED_TRACE(list);
    ExpectError(Build(data, list, 1).status(), StatusCode::kInvalidArgument,
                message);
  }
}

// The conversions accepted give ToTensor's bytes, and an erase to 0 on the
// uint8 tensor the PIL image's; the normalization, in the list or left to
// the settings, stands where torchvision's order puts it.
TEST(Lists, AcceptedConversionsGiveTorchvisionsValues) {
  std::shared_ptr<const Dataset> data(MakeSyntheticDataset(6));
  const std::string n = kImagenetNormalize;
  const auto bytes = [&](const std::string& list) {
    SCOPED_TRACE(list);
    absl::StatusOr<Preprocessor> p = Build(data, list, 1);
    EXPECT_TRUE(p.ok()) << p.status();
    std::vector<std::vector<uint8_t>> out;
    if (!p.ok()) return out;
    for (const Sample& s : RunEpoch(*p, 0).samples) out.push_back(s.bytes);
    return out;
  };
  const auto plain = bytes("CenterCrop(8), ToTensor()" + n);
  for (const std::string& list :
       {"CenterCrop(8), PILToTensor(), ConvertImageDtype(torch.float32)" + n,
        "CenterCrop(8), ToImage(), ToDtype(torch.float32, scale=True), "
        "ToPureTensor()" +
            n,
        "CenterCrop(8), ToTensor(), ToDtype(torch.float32, scale=True), "
        "ToImage()" +
            n,
        "CenterCrop(8), ToPureTensor(), ToTensor()" + n}) {
    EXPECT_EQ(bytes(list), plain) << list;
  }
  const auto erased =
      bytes("CenterCrop(8), RandomErasing(1.0), ToTensor()" + n);
  EXPECT_NE(erased, plain);
  EXPECT_EQ(bytes("CenterCrop(8), PILToTensor(), RandomErasing(1.0), "
                  "ToDtype(torch.float32, scale=True)" +
                  n),
            erased);
  // Left to the settings (here the builder's ImageNet preset, which n
  // repeats), the normalization stands where torchvision's Normalize would:
  // right after the conversion to float.
  EXPECT_EQ(bytes("CenterCrop(8), RandomErasing(1.0), ToTensor()"), erased);
  EXPECT_EQ(bytes("CenterCrop(8), ToImage(), RandomErasing(1.0), "
                  "ToDtype(torch.float32, scale=True)"),
            erased);
  EXPECT_EQ(bytes("CenterCrop(8), ToTensor(), RandomErasing(1.0)"),
            bytes("CenterCrop(8), ToTensor()" + n + ", RandomErasing(1.0)"));
}

// A size known before an op that cannot make one from it is an error
// naming that op and its input, not "no transform fixes the output size".
TEST(Lists, AnImpossibleSizeNamesItsOp) {
  for (const auto& [list, message] :
       std::vector<std::pair<const char*, const char*>>{
           {"CenterCrop((2, 58)), Resize(3, max_size=15)",
            "position 1 (Resize(size=3, interpolation=bilinear, max_size=15, "
            "antialias=True)) on 2x58 images: output size 0x15 must be"},
           {"CenterCrop((1, 1000)), Resize(2000)",
            ") on 1x1000 images: output size 2000x2000000 must be"},
           // An op whose output size is fixed still takes the size before
           // it: a crop larger than the image it gets, unpadded.
           {"CenterCrop(100), RandomCrop(200)",
            "position 1 (RandomCrop(size=(200, 200), padding=None, "
            "pad_if_needed=False, fill=0, padding_mode='constant')) on "
            "100x100 images: RandomCrop: the crop of 200x200 is larger than "
            "the padded image of 100x100"},
           {"RandomResizedCrop(32), RandomCrop(40, padding=3)",
            "on 32x32 images: RandomCrop: the crop of 40x40 is larger than "
            "the padded image of 38x38"}}) {
    SCOPED_TRACE(list);
    const absl::StatusOr<std::optional<ListSize>> got =
        ListOutputSize(Ops(list));
    ASSERT_FALSE(got.ok());
    EXPECT_NE(got.status().message().find(message), std::string::npos)
        << got.status();
  }
  // Padded enough, or padded as needed, the same crops are taken.
  for (const char* list :
       {"CenterCrop(100), RandomCrop(200, padding=50)",
        "CenterCrop(100), RandomCrop(200, pad_if_needed=True)",
        "RandomResizedCrop(32), RandomCrop(38, padding=3)"}) {
    SCOPED_TRACE(list);
    const absl::StatusOr<std::optional<ListSize>> got =
        ListOutputSize(Ops(list));
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_TRUE(got->has_value());
  }
  // The dataset's one size (CIFAR's) is known the same way.
  const absl::StatusOr<std::optional<ListSize>> cifar =
      ListOutputSize(Ops("Resize(46341)"), Size2{32, 32});
  ASSERT_FALSE(cifar.ok());
  EXPECT_NE(cifar.status().message().find(
                "position 0 (Resize(size=46341, interpolation=bilinear, "
                "max_size=None, antialias=True)) on 32x32 images: output "
                "size 46341x46341 must be"),
            std::string::npos)
      << cifar.status();
}

TEST(Lists, ChannelsFollowTheOps) {
  std::shared_ptr<const Dataset> data(MakeSyntheticDataset(8));
  PreprocessorBuilder b;
  b.dataset(data)
      .train_transforms(Ops("CenterCrop(8), Grayscale()"))
      .val_transforms(CenterCrop(8));
  ExpectError(b.Commit().status(), StatusCode::kInvalidArgument,
              "the normalization is for 3 channels but the images have 1 "
              "after the transforms");
  PreprocessorBuilder g;
  g.dataset(data)
      .normalization({0.5f}, {0.25f})
      .train_transforms(Ops("CenterCrop(8), Grayscale()"))
      .val_transforms(Ops("CenterCrop(8), Grayscale()"))
      .batch_size(2);
  absl::StatusOr<Preprocessor> p = g.Commit();
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->channels(Split::kTrain), 1);
  EXPECT_EQ(p->sample_bytes(Split::kTrain), 8u * 8 * 4);
  EXPECT_EQ(RunEpoch(*p, 0).samples.size(), 8u);
}

// MixUp/CutMix and the targets are MixBatch and MakeTargets applied to the
// batches of the same epoch without them, with each batch's decisions from
// its stream (seed, epoch, 2^62 + batch); for any thread count (whichever
// worker finishes a batch mixes it) and batch size (1: a sample mixed with
// itself; 4 and 7: short last batches).
// The loader's mixed batches and soft targets against MixBatch and
// MakeTargets on the plain batches of the same seed, for one output dtype
// and layout at one batch size and thread count, samples of size x size.
void ExpectMixedBatches(DType dtype, Layout layout, size_t batch_size,
                        int threads, int64_t size = 16) {
  SCOPED_TRACE(absl::StrCat("dtype ", static_cast<int>(dtype), " layout ",
                            static_cast<int>(layout), " batch_size ",
                            batch_size, " threads ", threads, " size ", size));
  std::shared_ptr<const Dataset> data(MakeSyntheticDataset(22));
  const std::string list =
      absl::StrCat("RandomResizedCrop(", size, "), RandomHorizontalFlip()");
  auto batch_op = MakeBatchTransforms("RandomChoice([MixUp(0.2), CutMix(1.0)])",
                                      "batch", OpContext());
  ASSERT_TRUE(batch_op.ok());
  PreprocessorBuilder b;
  b.dataset(data)
      .train_transforms(Ops(list))
      .val_transforms(CenterCrop(8))
      .batch_size(batch_size)
      .threads(threads)
      .seed(9)
      .dtype(dtype)
      .layout(layout)
      .batch_transform(*(*batch_op)[0])
      .targets(10, 0.1);
  absl::StatusOr<Preprocessor> mixed = b.Commit();
  ASSERT_TRUE(mixed.ok()) << mixed.status();
  PreprocessorBuilder c;
  c.dataset(data)
      .train_transforms(Ops(list))
      .val_transforms(CenterCrop(8))
      .batch_size(batch_size)
      .seed(9)
      .dtype(dtype)
      .layout(layout);
  absl::StatusOr<Preprocessor> plain = c.Commit();
  ASSERT_TRUE(plain.ok()) << plain.status();
  const Epoch m = RunEpoch(*mixed, 1), q = RunEpoch(*plain, 1);
  ASSERT_EQ(m.samples.size(), q.samples.size());
  BatchShape shape;
  shape.dtype = dtype;
  shape.layout = layout;
  shape.height = shape.width = size;
  shape.channels = 3;
  shape.sample_bytes = q.samples[0].bytes.size();
  std::set<int> kinds;
  for (size_t first = 0; first < q.samples.size(); first += batch_size) {
    const size_t n = std::min(batch_size, q.samples.size() - first);
    const uint64_t batch = q.batch_of[first];
    std::vector<uint8_t> bytes;
    std::vector<int64_t> labels;
    for (size_t k = 0; k < n; ++k) {
      const Sample& s = q.samples[first + k];
      bytes.insert(bytes.end(), s.bytes.begin(), s.bytes.end());
      labels.push_back(s.label);
    }
    SampleStream stream(9, 1, (uint64_t{1} << 62) + batch);
    const BatchDecision d = (*batch_op)[0]->Decide({size, size}, stream);
    kinds.insert(static_cast<int>(d.kind));
    std::vector<uint8_t> scratch;
    std::vector<bool> ok;
    for (const int64_t label : labels) ok.push_back(label >= 0);
    MixBatch(d, shape, **SelectMixKernel(""), ok, bytes.data(), n, &scratch);
    std::vector<float> targets(n * 10);
    MakeTargets(d, labels, 10, 0.1, targets.data());
    for (size_t k = 0; k < n; ++k) {
      EXPECT_EQ(
          std::vector<uint8_t>(bytes.begin() + k * shape.sample_bytes,
                               bytes.begin() + (k + 1) * shape.sample_bytes),
          m.samples[first + k].bytes)
          << "batch " << batch << " sample " << k;
    }
    EXPECT_EQ(m.targets.at(batch), targets) << "batch " << batch;
  }
  EXPECT_EQ(kinds.size(), 2u) << "both MixUp and CutMix batches";
}

TEST(BatchTransforms, AreTheBatchDecisionsAppliedToThePlainBatches) {
  for (const auto& [batch_size, threads] : std::vector<std::pair<size_t, int>>{
           {1, 1}, {1, 3}, {4, 1}, {4, 3}, {4, 8}, {7, 2}, {7, 8}}) {
    ExpectMixedBatches(DType::kFloat16, Layout::kCHW, batch_size, threads);
  }
}

// Each dtype (the mix kernels round each their own way) with each layout
// (CutMix's box is pasted per plane or per row), at a size whose samples
// start anywhere in a vector (15x15x3 float32: 2700 bytes) and one whose
// samples are whole vectors.
TEST(BatchTransforms, EveryDtypeAndLayoutMixesAsMixBatch) {
  for (const DType dtype :
       {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    for (const Layout layout : {Layout::kHWC, Layout::kHWC4, Layout::kCHW}) {
      for (const int64_t size : {15, 16}) {
        for (const auto& [batch_size, threads] :
             std::vector<std::pair<size_t, int>>{{1, 1}, {4, 3}, {7, 8}}) {
          ExpectMixedBatches(dtype, layout, batch_size, threads, size);
        }
      }
    }
  }
}

TEST(BatchTransforms, Errors) {
  std::shared_ptr<const Dataset> data(MakeSyntheticDataset(8));
  {
    PreprocessorBuilder b;
    b.dataset(data)
        .train_transforms(CenterCrop(8))
        .val_transforms(CenterCrop(8));
    b.batch_transform(MixUp(0.2));
    ExpectError(b.Commit().status(), StatusCode::kInvalidArgument,
                "MixUp(alpha=0.2, num_classes=None) mixes labels into soft "
                "targets: set num_classes");
  }
  {
    PreprocessorBuilder b;
    b.dataset(data)
        .train_transforms(CenterCrop(8))
        .val_transforms(CenterCrop(8));
    b.batch_transform(MixUp(0.2, 10)).targets(5);
    ExpectError(b.Commit().status(), StatusCode::kInvalidArgument,
                "has num_classes = 10 but num_classes = 5");
  }
  {
    PreprocessorBuilder b;
    b.dataset(data)
        .train_transforms(CenterCrop(8))
        .val_transforms(CenterCrop(8));
    b.targets(10, 1.5);
    ExpectError(b.Commit().status(), StatusCode::kInvalidArgument,
                "label_smoothing = 1.5");
  }
  {
    // 2^24 classes: 64 MiB of targets a sample, 33 samples past the limit.
    PreprocessorBuilder b;
    b.dataset(data)
        .train_transforms(CenterCrop(8))
        .val_transforms(CenterCrop(8))
        .batch_size(33)
        .targets(int64_t{1} << 24);
    ExpectError(b.Commit().status(), StatusCode::kInvalidArgument,
                "num_classes = 16777216 with batch_size = 33: a batch's soft "
                "targets would take more than 2147483648 bytes");
  }
}

// Soft targets must hold every label: refused at Commit where the dataset
// knows its labels before reading, else by the sample that has one too
// large.
TEST(BatchTransforms, NumClassesHoldsEveryLabel) {
  std::shared_ptr<const Dataset> data(MakeSyntheticDataset(8));
  {
    // Synthetic labels are index % 10: num_classes 5 leaves some out, which
    // the synthetic dataset knows before reading; its first 5 fit.
    for (const size_t images : {0, 6, 5}) {
      PreprocessorBuilder b;
      b.dataset(data)
          .train_transforms(CenterCrop(8))
          .val_transforms(CenterCrop(8))
          .targets(5);
      LoaderSettings settings;
      settings.samples = images;
      b.loader(settings);
      const absl::Status status = b.Commit().status();
      if (images == 5) {
        EXPECT_TRUE(status.ok()) << status;
      } else {
        ExpectError(status, StatusCode::kInvalidArgument,
                    images == 6
                        ? "num_classes = 5 but the first 6 samples of "
                          "synthetic(8) have labels up to 5: soft "
                          "targets need num_classes >= 6"
                        : "num_classes = 5 but synthetic(8) has labels "
                          "up to 7: soft targets need num_classes >= 8");
      }
    }
  }
  {
    // A dataset that knows its labels only by reading them: the sample
    // with label 5 is the error, named.
    PreprocessorBuilder b;
    b.dataset(std::make_shared<LabelsUnknown>(data))
        .train_transforms(CenterCrop(8))
        .val_transforms(CenterCrop(8))
        .targets(5);
    absl::StatusOr<Preprocessor> p = b.Commit();
    ASSERT_TRUE(p.ok());
    auto loader = p->StartEpoch(Split::kTrain, 0);
    absl::Status error;
    for (;;) {
      absl::StatusOr<BatchRef> batch = (*loader)->Next();
      if (!batch.ok()) {
        error = batch.status();
        break;
      }
      if (*batch == nullptr) break;
    }
    ExpectError(error, StatusCode::kInvalidArgument,
                " is not below num_classes = 5");
    EXPECT_EQ(error.message().rfind("sample ", 0), 0u) << error;
  }
}

// torchvision's RASampler lists, from the epoch's order (the plain
// epoch's, one sample a batch), dealt to every rank.
TEST(RepeatedAugmentations, RanksGetRaSamplersLists) {
  std::shared_ptr<const Dataset> data(MakeSyntheticDataset(520));
  LoaderSettings plain;
  plain.batch_size = 1;
  plain.threads = 2;
  plain.seed = 4;
  PreprocessorBuilder o;
  o.dataset(data)
      .train_transforms(RandomResizedCrop(8))
      .val_transforms(CenterCrop(8));
  o.loader(plain);
  absl::StatusOr<Preprocessor> order_p = o.Commit();
  ASSERT_TRUE(order_p.ok());
  const Epoch order = RunEpoch(*order_p, 3);
  const int r = 3, world = 2;
  std::vector<uint64_t> repeated;
  for (const Sample& s : order.samples)
    for (int k = 0; k < r; ++k) repeated.push_back(s.index);
  const size_t selected = 520 / 256 * 256 / world;  // 256
  std::map<uint64_t, std::set<std::vector<uint8_t>>> images;
  for (int rank = 0; rank < world; ++rank) {
    LoaderSettings l = plain;
    l.batch_size = 7;
    l.repeats = r;
    l.rank = rank;
    l.world = world;
    PreprocessorBuilder b;
    b.dataset(data)
        .train_transforms(RandomResizedCrop(8))
        .val_transforms(CenterCrop(8));
    b.loader(l);
    absl::StatusOr<Preprocessor> p = b.Commit();
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(p->batches_per_epoch(Split::kTrain), (selected + 6) / 7);
    EXPECT_EQ(p->batches_per_epoch(Split::kVal), 38u);  // ceil(75 / 2)
    const Epoch e = RunEpoch(*p, 3);
    ASSERT_EQ(e.samples.size(), selected);
    for (size_t k = 0; k < selected; ++k) {
      ASSERT_EQ(e.samples[k].index, repeated[rank + k * world]) << k;
      images[e.samples[k].index].insert(e.samples[k].bytes);
    }
  }
  // A sample dealt to both ranks got its own decisions each time.
  size_t twice = 0;
  for (const auto& [index, shown] : images) twice += shown.size() >= 2;
  EXPECT_GT(twice, 100u);
  PreprocessorBuilder few;
  few.dataset(std::shared_ptr<const Dataset>(MakeSyntheticDataset(255)))
      .train_transforms(CenterCrop(8))
      .val_transforms(CenterCrop(8))
      .repeated_augmentations(2);
  ExpectError(few.Commit().status(), StatusCode::kInvalidArgument,
              "RASampler keeps floor(samples / 256) * 256 / world_size");
}

// The recipe's lists: a Normalize in them is the normalization, and must
// agree with the settings; size goes with the standard lists only.
TEST(Recipe, ListsAndNormalization) {
  std::shared_ptr<const Dataset> data(MakeSyntheticDataset(8));
  RecipeOptions o;
  o.loader.batch_size = 4;
  o.train_transforms =
      "RandomResizedCrop(16), ToTensor(), Normalize((0.5, 0.5, 0.5), (0.25, "
      "0.25, 0.25))";
  o.val_transforms = "Resize(20), CenterCrop(16), Normalize([0.5] * 3)";
  ExpectError(BuildRecipe(o, data).status(), StatusCode::kInvalidArgument,
              "val_transforms: character");
  o.val_transforms =
      "Resize(20), CenterCrop(16), Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))";
  ExpectError(BuildRecipe(o, data).status(), StatusCode::kInvalidArgument,
              "the Normalize at train_transforms position 2 says otherwise");
  // One value for every channel says the same as three equal ones.
  o.val_transforms = "Resize(20), CenterCrop(16), Normalize(0.5, (0.25,))";
  EXPECT_TRUE(BuildRecipe(o, data).ok());
  // A second Normalize in one list is refused whatever its values.
  o.val_transforms = "Resize(20), CenterCrop(16)";
  o.train_transforms =
      "RandomResizedCrop(16), ToTensor(), Normalize(0.5, 0.25), "
      "Normalize(0.1, 0.2)";
  ExpectError(
      BuildRecipe(o, data).status(), StatusCode::kInvalidArgument,
      "position 3 (Normalize(mean=(0.1,), std=(0.2,), inplace=False)): a "
      "second Normalize (the first is at train_transforms position 2)");
  o.train_transforms =
      "RandomResizedCrop(16), ToTensor(), Normalize((0.5, 0.5, 0.5), (0.25, "
      "0.25, 0.25))";
  absl::StatusOr<Preprocessor> p = BuildRecipe(o, data);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->fused(Split::kTrain).normalization().mean[0], 0.5f);
  EXPECT_EQ(p->fused(Split::kVal).normalization().std[2], 0.25f);
  o.normalization_given = true;  // the preset (imagenet) was asked for
  ExpectError(BuildRecipe(o, data).status(), StatusCode::kInvalidArgument,
              "the normalization settings (preset, mean, std) say otherwise");
  o.normalization_given = false;
  o.size_given = true;
  o.val_transforms = "CenterCrop(16)";
  ExpectError(BuildRecipe(o, data).status(), StatusCode::kInvalidArgument,
              "size sets the standard lists' size");
  o.size_given = false;
  o.train_transforms = "RandomResizedCrop(5000)";
  ExpectError(BuildRecipe(o, data).status(), StatusCode::kInvalidArgument,
              "samples of 5000x5000 are too large");
  // A list's Normalize stays where it is: later errors keep the positions
  // the user wrote, and only flips may follow it.
  o.train_transforms =
      "RandomResizedCrop(16), ToTensor(), Normalize((0.5, 0.5, 0.5), (0.25, "
      "0.25, 0.25)), RandomErasing(), RandomErasing()";
  ExpectError(BuildRecipe(o, data).status(), StatusCode::kInvalidArgument,
              "train_transforms position 4 (RandomErasing(");
  o.train_transforms =
      "Normalize((0.5, 0.5, 0.5), (0.25, 0.25, 0.25)), RandomResizedCrop(16)";
  ExpectError(BuildRecipe(o, data).status(), StatusCode::kInvalidArgument,
              "after Normalize (position 0)");
  o.train_transforms = "";
  o.batch_transforms = "MixUp(), CutMix()";
  ExpectError(BuildRecipe(o, data).status(), StatusCode::kInvalidArgument,
              "batch_transforms has 2 transforms: give one");
  o.batch_transforms = "RandomChoice([MixUp(), RandomChoice([CutMix()])])";
  o.num_classes = 10;
  ExpectError(BuildRecipe(o, data).status(), StatusCode::kInvalidArgument,
              "is a RandomChoice; list its transforms in the outer one");
}

// The standard lists, given nothing: RandomResizedCrop, flip, erasing.
TEST(Recipe, StandardListsByDefault) {
  std::shared_ptr<const Dataset> data(MakeSyntheticDataset(8));
  RecipeOptions o;
  o.size = {32, 48};
  absl::StatusOr<Preprocessor> p = BuildRecipe(o, data);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->Describe(Split::kTrain)
                .find("RandomResizedCrop(size=(32, 48), scale=(0.08, 1.0)"),
            0u);
  EXPECT_EQ(p->fused(Split::kTrain).flip_p(), 0.5);
  EXPECT_EQ(p->fused(Split::kTrain).erase().p, 0.5);
  EXPECT_EQ(p->Describe(Split::kVal).find("Resize(size=54"), 0u)
      << p->Describe(Split::kVal);
}

}  // namespace
}  // namespace fusednorm
