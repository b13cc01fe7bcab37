// FusedNormalization (fused_normalization.h): option and buffer checks, the
// kernel choice per channel count, torchvision's erase sampling, the call.
#include "ops/fused_normalization.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "core/format_names.h"
#include "core/round.h"
#include "core/status.h"
#include "kernels/dispatch.h"
#include "kernels/formats.h"
#include "ops/box_params.h"

namespace fusednorm {
namespace {

bool ValidEnums(DType dtype, Layout layout, Mode mode) {
  return static_cast<unsigned>(dtype) <=
             static_cast<unsigned>(DType::kBFloat16) &&
         static_cast<unsigned>(layout) <= static_cast<unsigned>(Layout::kCHW) &&
         static_cast<unsigned>(mode) <=
             static_cast<unsigned>(Mode::kTorchvisionExact);
}

absl::Status ValidateProbability(const char* name, double p) {
  if (!(p >= 0.0 && p <= 1.0))
    return InvalidArgumentCat(name, " = ", p, " must be in [0, 1]");
  return absl::OkStatus();
}

// Checked whether or not erasing is enabled: bad ranges are bad arguments.
absl::Status ValidateErase(const EraseOptions& e) {
  FUSEDNORM_RETURN_IF_ERROR(ValidateProbability("erase.p", e.p));
  for (const auto& [name, v] :
       {std::pair<const char*, double>{"erase.scale_min", e.scale_min},
        {"erase.scale_max", e.scale_max}}) {
    if (!(v >= 0.0 && v <= 1.0))
      return InvalidArgumentCat(name, " = ", v, " must be in [0, 1]");
  }
  if (e.scale_min > e.scale_max) {
    return InvalidArgumentCat(
        "erase.scale_min = ", e.scale_min,
        " is greater than erase.scale_max = ", e.scale_max);
  }
  for (const auto& [name, v] :
       {std::pair<const char*, double>{"erase.ratio_min", e.ratio_min},
        {"erase.ratio_max", e.ratio_max}}) {
    if (!(v > 0.0 && std::isfinite(v)))
      return InvalidArgumentCat(name, " = ", v, " must be finite and > 0");
  }
  if (e.ratio_min > e.ratio_max) {
    return InvalidArgumentCat(
        "erase.ratio_min = ", e.ratio_min,
        " is greater than erase.ratio_max = ", e.ratio_max);
  }
  if (e.value.size() > kMaxChannels) {
    return InvalidArgumentCat("erase.value has ", e.value.size(),
                              " values; at most ", kMaxChannels);
  }
  for (size_t c = 0; c < e.value.size(); ++c) {
    if (!std::isfinite(e.value[c]))
      return InvalidArgumentCat("erase.value[", c, "] = ", e.value[c],
                                " is not finite");
  }
  return absl::OkStatus();
}

// Whether erasing writes values other than the kernel's +0.0.
bool ErasesToValues(const EraseOptions& e) {
  for (const float v : e.value) {
    if (v != 0.0f || std::signbit(v)) return true;
  }
  return false;
}

// Stores float `v` as element `i` of an output of `dtype`.
void StoreValue(DType dtype, float v, int64_t i, uint8_t* out) {
  switch (dtype) {
    case DType::kFloat32:
      std::memcpy(out + i * 4, &v, 4);
      return;
    case DType::kFloat16: {
      const uint16_t h = FloatToHalfBits(v);
      std::memcpy(out + i * 2, &h, 2);
      return;
    }
    case DType::kBFloat16: {
      const uint16_t b = FloatToBFloat16Bits(v);
      std::memcpy(out + i * 2, &b, 2);
      return;
    }
  }
}

// a * b, or nullopt when the product leaves [0, INT64_MAX].
std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r) || r < 0) return std::nullopt;
  return r;
}

std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r) || r < 0) return std::nullopt;
  return r;
}

// Custom mean and std as torch broadcasts them: one value of either serves
// every channel of the other, and one of both serves any channel count
// (channels 0, as for NO_NORM).
absl::StatusOr<Normalization> SpreadCustom(const std::vector<float>& mean,
                                           const std::vector<float>& std) {
  const size_t n = std::max(mean.size(), std.size());
  if (mean.empty() || std.empty() ||
      (mean.size() != std.size() && mean.size() != 1 && std.size() != 1)) {
    return InvalidArgumentCat("mean has ", mean.size(), " values but std has ",
                              std.size(),
                              "; give both with the same count, or one value "
                              "of either for every channel");
  }
  if (n > kMaxChannels) {
    return InvalidArgumentCat("mean/std have ", n, " values; at most ",
                              kMaxChannels, " channels are supported");
  }
  Normalization norm{mean, std, n == 1 ? 0 : static_cast<int>(n)};
  norm.mean.resize(n, mean[0]);  // a single value repeated
  norm.std.resize(n, std[0]);
  return norm;
}

// The mean and std `options` ask for (a preset's, or the custom values),
// checked: counts, finiteness, std not 0 (torchvision's Normalize takes a
// negative std, which turns the values' signs).
absl::StatusOr<Normalization> ResolveNormalization(
    const FusedNormalizationOptions& options) {
  Normalization norm;
  if (options.mean.empty() && options.std.empty()) {
    if (static_cast<unsigned>(options.preset) >
        static_cast<unsigned>(Preset::kMlperf)) {
      return InvalidArgumentCat("preset = ", static_cast<int>(options.preset),
                                " is not a preset");
    }
    norm = PresetNormalization(options.preset);
  } else {
    FUSEDNORM_ASSIGN_OR_RETURN(norm, SpreadCustom(options.mean, options.std));
  }
  for (size_t c = 0; c < norm.mean.size(); ++c) {
    if (!std::isfinite(norm.mean[c]))
      return InvalidArgumentCat("mean[", c, "] = ", norm.mean[c],
                                " is not finite");
    if (!std::isfinite(norm.std[c]) || norm.std[c] == 0.0f) {
      return InvalidArgumentCat("std[", c, "] = ", norm.std[c],
                                " must be finite and not 0");
    }
  }
  return norm;
}

// The kernel constants for `norm`; InvalidArgument when some output value
// would not be a finite float32 in either mode (a tiny std overflows).
absl::StatusOr<std::shared_ptr<const KernelConstants>> MakeConstants(
    const Normalization& norm, DType dtype, Layout layout, Mode mode) {
  // Channels past the given values repeat the last one (NO_NORM's single
  // mean/std serve every channel count; kernels ignore the others).
  float mean[kMaxChannels], std[kMaxChannels];
  for (int c = 0; c < kMaxChannels; ++c) {
    const size_t i = std::min<size_t>(c, norm.mean.size() - 1);
    mean[c] = norm.mean[i];
    std[c] = norm.std[i];
  }
  auto k = std::make_shared<KernelConstants>();
  MakeKernelConstants(dtype, layout, mode, mean, std, k.get());
  for (int c = 0; c < kMaxChannels; ++c) {
    for (int x = 0; x < 256; ++x) {
      const float fast = static_cast<float>(x) * k->mul[c] - k->sub[c];
      if (!std::isfinite(fast) || !std::isfinite(k->table[c][x])) {
        const size_t i = std::min<size_t>(c, norm.mean.size() - 1);
        return InvalidArgumentCat("std[", i, "] = ", norm.std[i], " with mean[",
                                  i, "] = ", norm.mean[i],
                                  " makes normalized values overflow float32");
      }
    }
  }
  return std::shared_ptr<const KernelConstants>(std::move(k));
}

}  // namespace

absl::Status CheckEraseRect(const EraseRect& r, int64_t height, int64_t width) {
  if (r.height == 0 && r.width == 0) return absl::OkStatus();
  if (r.top < 0 || r.left < 0 || r.height < 0 || r.width < 0 ||
      r.top > height || r.left > width || r.height > height - r.top ||
      r.width > width - r.left) {
    return InvalidArgumentCat("erase rectangle (top ", r.top, ", left ", r.left,
                              ", height ", r.height, ", width ", r.width,
                              ") is not inside the ", height, "x", width,
                              " image");
  }
  return absl::OkStatus();
}

absl::StatusOr<FusedNormalization> FusedNormalization::Create(
    const FusedNormalizationOptions& options) {
  if (!ValidEnums(options.dtype, options.layout.value_or(Layout::kHWC),
                  options.mode)) {
    return InvalidArgumentCat(
        "dtype/layout/mode hold a value outside their enums (dtype ",
        static_cast<int>(options.dtype), ", layout ",
        static_cast<int>(options.layout.value_or(Layout::kHWC)), ", mode ",
        static_cast<int>(options.mode), ")");
  }
  FusedNormalization op;
  FUSEDNORM_ASSIGN_OR_RETURN(op.norm_, ResolveNormalization(options));
  FUSEDNORM_RETURN_IF_ERROR(ValidateProbability("flip_p", options.flip_p));
  FUSEDNORM_RETURN_IF_ERROR(ValidateErase(options.erase));
  const Layout layout = options.layout.value_or(
      options.dtype == DType::kFloat32 ? Layout::kHWC : Layout::kHWC4);
  FUSEDNORM_ASSIGN_OR_RETURN(
      op.constants_,
      MakeConstants(op.norm_, options.dtype, layout, options.mode));
  op.flip_p_ = options.flip_p;
  op.erase_ = options.erase;
  op.stores_ = options.stores;
  FUSEDNORM_RETURN_IF_ERROR(op.ChooseKernels(options.kernel));
  return op;
}

absl::Status FusedNormalization::ChooseKernels(const std::string& id) {
  // An unknown kernel id, or one this CPU cannot run, is wrong whatever the
  // channel count.
  FUSEDNORM_RETURN_IF_ERROR(ForcedKernel(id).status());
  for (int c = 1; c <= kMaxChannels; ++c) {
    absl::StatusOr<const KernelInfo*> k =
        SelectKernel(id, dtype(), layout(), mode(), c);
    if (k.ok()) {
      kernels_[c] = *k;
      continue;
    }
    // A kernel that does not cover some channel count fails only when that
    // count is required: now, or at Apply() for NO_NORM.
    if (c == channels()) return k.status();
    kernel_status_[c] = k.status();
  }
  return absl::OkStatus();
}

const char* FusedNormalization::kernel_id(int channels) const {
  if (channels < 1 || channels > kMaxChannels || kernels_[channels] == nullptr)
    return "";
  return kernels_[channels]->id;
}

absl::StatusOr<size_t> FusedNormalization::OutputBytes(int64_t height,
                                                       int64_t width,
                                                       int channels) const {
  if (height < 1)
    return InvalidArgumentCat("height = ", height, " must be >= 1");
  if (width < 1) return InvalidArgumentCat("width = ", width, " must be >= 1");
  if (channels < 1 || channels > kMaxChannels) {
    return InvalidArgumentCat("channels = ", channels, " must be in 1..",
                              kMaxChannels);
  }
  std::optional<int64_t> n = CheckedMul(height, width);
  if (n) n = CheckedMul(*n, StoredChannels(layout(), channels));
  if (n) n = CheckedMul(*n, static_cast<int64_t>(DTypeSize(dtype())));
  if (!n || static_cast<uint64_t>(*n) > std::numeric_limits<size_t>::max()) {
    return InvalidArgumentCat("output size for height = ", height,
                              ", width = ", width, ", channels = ", channels,
                              " overflows");
  }
  return static_cast<size_t>(*n);
}

std::vector<int64_t> FusedNormalization::OutputShape(int64_t height,
                                                     int64_t width,
                                                     int channels) const {
  switch (layout()) {
    case Layout::kHWC:
      return {height, width, channels};
    case Layout::kHWC4:
      return {height, width, 4};
    case Layout::kCHW:
      break;
  }
  return {channels, height, width};
}

absl::StatusOr<size_t> FusedNormalization::OutputBytes(int64_t height,
                                                       int64_t width) const {
  if (channels() == 0) {
    return InvalidArgumentCat(
        "channels: this normalization (NO_NORM, or one mean and std) takes "
        "any channel count; pass it to OutputBytes");
  }
  return OutputBytes(height, width, channels());
}

Augmentation FusedNormalization::Sample(int64_t height, int64_t width,
                                        SampleStream& stream) const {
  Augmentation aug;
  aug.flip = stream.Uniform() < flip_p_;
  if (!erase_.enabled || !(stream.Uniform() < erase_.p) || height < 1 ||
      width < 1) {
    return aug;
  }
  // torchvision.transforms.RandomErasing.get_params, value = 0; no
  // acceptable rectangle in 10 attempts: no erase.
  StreamDraws draws(stream);
  const std::optional<CropWindow> box = DrawBox(
      BoxKind::kErase, height, width,
      {erase_.scale_min, erase_.scale_max, erase_.ratio_min, erase_.ratio_max},
      draws);
  if (box) aug.erase = EraseRect{box->top, box->left, box->height, box->width};
  return aug;  // no acceptable rectangle in 10 attempts: no erase
}

absl::StatusOr<int64_t> FusedNormalization::CheckInput(
    const ImageView& in) const {
  // Sizes first: an empty image has no pixels, and says so by its size.
  if (in.height < 1)
    return InvalidArgumentCat("input height = ", in.height, " must be >= 1");
  if (in.width < 1)
    return InvalidArgumentCat("input width = ", in.width, " must be >= 1");
  if (in.pixels.data() == nullptr)
    return InvalidArgumentCat("input pixels is null");
  if (in.channels < 1 || in.channels > kMaxChannels) {
    return InvalidArgumentCat("input channels = ", in.channels,
                              " must be in 1..", kMaxChannels);
  }
  if (channels() != 0 && in.channels != channels()) {
    return InvalidArgumentCat("input channels = ", in.channels,
                              " does not match the normalization's ",
                              channels(), " channels");
  }
  const std::optional<int64_t> row_bytes = CheckedMul(in.width, in.channels);
  if (!row_bytes)
    return InvalidArgumentCat("input width = ", in.width,
                              " overflows a row size");
  if (in.row_stride < *row_bytes) {
    return InvalidArgumentCat("input row_stride = ", in.row_stride,
                              " is less than width * channels = ", *row_bytes);
  }
  std::optional<int64_t> need = CheckedMul(in.height - 1, in.row_stride);
  if (need) need = CheckedAdd(*need, *row_bytes);
  if (!need) {
    return InvalidArgumentCat("input size for height = ", in.height,
                              ", row_stride = ", in.row_stride, " overflows");
  }
  if (static_cast<uint64_t>(*need) > in.pixels.size()) {
    return InvalidArgumentCat("input pixels has ", in.pixels.size(),
                              " bytes but height = ", in.height,
                              ", row_stride = ", in.row_stride, " needs ",
                              *need);
  }
  return *need;
}

absl::StatusOr<size_t> FusedNormalization::CheckOutput(const ImageView& in,
                                                       OutputView out) const {
  if (out.row_stride != 0) {
    return InvalidArgumentCat(
        "output row_stride = ", out.row_stride,
        ": FusedNormalization derives the output stride from dtype and layout; "
        "pass 0");
  }
  if (out.bytes.data() == nullptr)
    return InvalidArgumentCat("output bytes is null");
  FUSEDNORM_ASSIGN_OR_RETURN(const size_t need,
                             OutputBytes(in.height, in.width, in.channels));
  if (out.bytes.size() < need) {
    return InvalidArgumentCat("output bytes has ", out.bytes.size(),
                              " bytes but ", in.height, "x", in.width, "x",
                              in.channels, " ", DTypeName(dtype()), " ",
                              LayoutName(layout()), " needs ", need);
  }
  return need;
}

absl::StatusOr<KernelArgs> FusedNormalization::Prepare(
    const ImageView& in, const Augmentation& aug, OutputView out,
    absl::Span<const uint8_t> written) const {
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t in_need, CheckInput(in));
  FUSEDNORM_ASSIGN_OR_RETURN(const size_t out_need, CheckOutput(in, out));
  FUSEDNORM_RETURN_IF_ERROR(CheckEraseRect(aug.erase, in.height, in.width));
  FUSEDNORM_RETURN_IF_ERROR(CheckEraseValues(in.channels));
  // The kernels require disjoint buffers, and no input may lie in what an
  // earlier image of the same call has already overwritten.
  if (written.empty()) written = {out.bytes.data(), out_need};
  const auto in_lo = reinterpret_cast<uintptr_t>(in.pixels.data());
  const auto out_lo = reinterpret_cast<uintptr_t>(written.data());
  if (in_lo < out_lo + written.size() &&
      out_lo < in_lo + static_cast<uint64_t>(in_need)) {
    return InvalidArgumentCat("input and output buffers overlap");
  }
  if (kernels_[in.channels] == nullptr) return kernel_status_[in.channels];
  KernelArgs args;
  args.input = in.pixels.data();
  args.input_row_stride = in.row_stride;
  args.height = in.height;
  args.width = in.width;
  args.channels = in.channels;
  args.output = out.bytes.data();
  args.flip = aug.flip;
  args.erase = aug.erase;
  return args;
}

absl::Status FusedNormalization::CheckEraseValues(int channels) const {
  const size_t n = erase_.value.size();
  if (n > 1 && n != static_cast<size_t>(channels)) {
    return InvalidArgumentCat("erase.value has ", n,
                              " values but the image has ", channels,
                              " channels ", GiveValues(channels));
  }
  return absl::OkStatus();
}

void FusedNormalization::FillErase(const KernelArgs& a) const {
  if (a.erase.empty() || !ErasesToValues(erase_)) return;
  const int C = a.channels;
  for (int64_t h = a.erase.top; h < a.erase.top + a.erase.height; ++h) {
    for (int64_t w = a.erase.left; w < a.erase.left + a.erase.width; ++w) {
      for (int c = 0; c < C; ++c) {
        const float v =
            erase_.value[std::min<size_t>(c, erase_.value.size() - 1)];
        StoreValue(dtype(), v,
                   OutputIndex(layout(), a.height, a.width, C, c, h, w),
                   static_cast<uint8_t*>(a.output));
      }
    }
  }
}

bool FusedNormalization::Streams(size_t bytes) const {
  using Stores = FusedNormalizationOptions::Stores;
  return stores_ == Stores::kNontemporal ||
         (stores_ == Stores::kAuto && bytes >= kNontemporalAutoBytes);
}

absl::Status FusedNormalization::Apply(const ImageView& in,
                                       const Augmentation& aug,
                                       OutputView out) const {
  FUSEDNORM_ASSIGN_OR_RETURN(KernelArgs args, Prepare(in, aug, out, {}));
  args.nontemporal =
      Streams(*OutputBytes(in.height, in.width, in.channels));  // checked
  kernels_[in.channels]->fn(*constants_, args);
  FillErase(args);
  return absl::OkStatus();
}

absl::Status FusedNormalization::ApplyBatch(absl::Span<const ImageView> inputs,
                                            absl::Span<const Augmentation> augs,
                                            OutputView batch,
                                            size_t first) const {
  if (augs.size() != inputs.size()) {
    return InvalidArgumentCat("augmentations has ", augs.size(),
                              " entries but inputs has ", inputs.size());
  }
  if (inputs.empty()) return absl::OkStatus();
  if (batch.row_stride != 0) return CheckOutput(inputs[0], batch).status();
  const ImageView& in0 = inputs[0];
  FUSEDNORM_ASSIGN_OR_RETURN(const size_t image_bytes,
                             OutputBytes(in0.height, in0.width, in0.channels));
  const size_t images = batch.bytes.size() / image_bytes;
  if (first > images || inputs.size() > images - first) {
    return InvalidArgumentCat("batch has ", batch.bytes.size(), " bytes, ",
                              images, " images of ", image_bytes,
                              " bytes, but images ", first, "..",
                              first + inputs.size() - 1, " were asked for");
  }
  // Inline for the common one-image call: a worker's sample allocates nothing.
  absl::InlinedVector<KernelArgs, 4> args(inputs.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    const ImageView& in = inputs[k];
    if (in.height != in0.height || in.width != in0.width ||
        in.channels != in0.channels) {
      return InvalidArgumentCat("inputs[", k, "] is ", in.height, "x", in.width,
                                "x", in.channels, " but inputs[0] is ",
                                in0.height, "x", in0.width, "x", in0.channels);
    }
    const OutputView out{
        batch.bytes.subspan((first + k) * image_bytes, image_bytes)};
    absl::StatusOr<KernelArgs> a = Prepare(
        in, augs[k], out,
        batch.bytes.subspan(first * image_bytes, inputs.size() * image_bytes));
    if (!a.ok())
      return PrefixStatus(a.status(), absl::StrCat("inputs[", k, "]: "));
    args[k] = *a;
  }
  const bool stream = Streams(batch.bytes.size());
  for (KernelArgs& a : args) {
    a.nontemporal = stream;
    kernels_[in0.channels]->fn(*constants_, a);
    FillErase(a);
  }
  return absl::OkStatus();
}

absl::StatusOr<Augmentation> FusedNormalization::Execute(
    const ImageView& input, SampleStream& stream, OutputView output) const {
  const Augmentation aug = Sample(input.height, input.width, stream);
  FUSEDNORM_RETURN_IF_ERROR(Apply(input, aug, output));
  return aug;
}

}  // namespace fusednorm
