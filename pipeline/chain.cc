// BuildChain (chain.h): the chain rules of docs/design.md, one check per
// function.
#include "pipeline/chain.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status.h"
#include "ops/fused_ops.h"

namespace fusednorm {
namespace {

using FusedPart = PreprocessOp::FusedPart;

// What the walk over a list has seen so far.
struct Walk {
  const ChainOptions* options;
  FusedNormalizationOptions fused;
  int channels = 0;
  int64_t erase_at = -1;      // RandomErasing's position
  int64_t normalize_at = -1;  // Normalize's position
  int64_t tensor_at = -1;     // the first conversion's position
  std::string tensor_by;      // and the op the list wrote there
  // Where the image became a float tensor (where a Normalize the list
  // leaves out would stand); a uint8 tensor between tensor_at and there.
  int64_t float_at = -1;
  bool uint8() const { return tensor_at >= 0 && float_at < 0; }
  int64_t last_flip = -1;  // the last RandomHorizontalFlip's
  // Whether every real op after the last flip commutes with it.
  bool flip_commutes = true;
};

std::string Where(const ChainOptions& o, size_t i, const PreprocessOp& op) {
  return absl::StrCat(o.list_name, " position ", i, " (", op.name(), ")");
}

// Whether the list's RandomErasing writes a value other than 0.
bool ErasesToNonZero(const Walk& w) {
  const std::vector<float>& value = w.fused.erase.value;
  return !std::all_of(value.begin(), value.end(),
                      [](float v) { return v == 0; });
}

// "PILToTensor (position 1)": the list's first conversion.
std::string TensorBy(const Walk& w) {
  return absl::StrCat(w.tensor_by, " (position ", w.tensor_at, ")");
}

// At the list's first tensor conversion (`where`), the tensor ops before
// it. Normalize is refused: torchvision normalizes the float tensor, not a
// PIL image. RandomErasing to 0 is taken: torchvision v2 erases a PIL image
// to the same pixels, which the fused op then normalizes; to other values
// it is refused (v1 fails there, v2 writes them into uint8 pixels). The
// earlier of the two is named.
absl::Status CheckBeforeTensor(const std::string& where, const Walk& w) {
  const bool erase_refused = w.erase_at >= 0 && ErasesToNonZero(w);
  if (w.normalize_at >= 0 && (!erase_refused || w.normalize_at < w.erase_at)) {
    return InvalidArgumentCat(
        where, ": after Normalize (position ", w.normalize_at,
        "); torchvision normalizes the float tensor, not a PIL image: put "
        "Normalize after the conversion to float");
  }
  if (!erase_refused) return absl::OkStatus();
  return InvalidArgumentCat(
      where, ": after RandomErasing (position ", w.erase_at, ") with value = (",
      absl::StrJoin(
          w.fused.erase.value, ", ",
          [](std::string* out, float v) { out->append(ShortestDouble(v)); }),
      "): torchvision v1 fails on a PIL image there, v2 writes the value into "
      "its uint8 pixels: put RandomErasing after the conversion, or erase to "
      "0");
}

// A conversion at position i, as torchvision takes it: ToTensor and
// PILToTensor need a PIL image, ToDtype and ConvertImageDtype a tensor,
// which they make float; ToImage leaves a tensor as it is, ToPureTensor
// anything.
absl::Status AddConversion(const ToTensor& op, size_t i,
                           const std::string& where, Walk* w) {
  using C = ToTensor::Conversion;
  const C c = op.conversion();
  if (c == C::kPure || (c == C::kToImage && w->tensor_at >= 0))
    return absl::OkStatus();
  if (c == C::kToFloat) {
    if (w->tensor_at < 0) {
      return InvalidArgumentCat(
          where, ": ", op.source(),
          " converts a tensor, and the image is not one yet: put "
          "PILToTensor() or ToImage() before it, or use ToTensor()");
    }
    if (w->uint8()) w->float_at = static_cast<int64_t>(i);
    return absl::OkStatus();
  }
  if (w->tensor_at >= 0) {
    return InvalidArgumentCat(where, ": ", op.source(),
                              " takes a PIL image, and the image is a tensor "
                              "since ",
                              TensorBy(*w), ": give one conversion");
  }
  FUSEDNORM_RETURN_IF_ERROR(CheckBeforeTensor(where, *w));
  w->tensor_at = static_cast<int64_t>(i);
  w->tensor_by = op.source();
  if (c == C::kToTensor) w->float_at = static_cast<int64_t>(i);
  return absl::OkStatus();
}

// Normalize or RandomErasing at `where` on a uint8 tensor: torchvision
// normalizes float tensors only, and erases uint8 pixels to the value
// truncated to an integer, so only an erase to 0 is taken there.
absl::Status CheckOnUint8(const PreprocessOp& op, const std::string& where,
                          const Walk& w) {
  if (!w.uint8()) return absl::OkStatus();
  if (op.fused_part() == FusedPart::kNormalize) {
    return InvalidArgumentCat(
        where, ": the image is a uint8 tensor since ", TensorBy(w),
        "; torchvision normalizes float tensors: put ToDtype(torch.float32, "
        "scale=True) before Normalize");
  }
  if (!ErasesToNonZero(w)) return absl::OkStatus();
  return InvalidArgumentCat(
      where, ": the image is a uint8 tensor since ", TensorBy(w),
      ", where torchvision writes the value into uint8 pixels: put "
      "RandomErasing after the conversion to float, or erase to 0");
}

// A fused op at position i: its part's own rule.
absl::Status AddFusedOp(const PreprocessOp& op, size_t i,
                        const std::string& where, Walk* w) {
  switch (op.fused_part()) {
    case FusedPart::kNormalize:
      if (w->normalize_at >= 0) {
        return InvalidArgumentCat(
            where, ": a second Normalize (the first is at position ",
            w->normalize_at,
            "); torchvision would normalize twice, fusednorm normalizes "
            "once: give one Normalize");
      }
      if (!static_cast<const Normalize&>(op).AgreesWith(w->options->base)) {
        return InvalidArgumentCat(
            where,
            ": the normalization (mean, std or preset) says otherwise; give "
            "it once, or the same in both");
      }
      w->normalize_at = static_cast<int64_t>(i);
      return CheckOnUint8(op, where, *w);
    case FusedPart::kErase:
      if (!w->options->allow_erase) {
        return InvalidArgumentCat(where,
                                  ": RandomErasing is for training only, not ",
                                  w->options->list_name);
      }
      if (w->erase_at >= 0)
        return InvalidArgumentCat(where, ": RandomErasing appears twice");
      w->erase_at = static_cast<int64_t>(i);
      op.FuseInto(&w->fused);
      return CheckOnUint8(op, where, *w);
    case FusedPart::kToTensor:
      return AddConversion(static_cast<const ToTensor&>(op), i, where, w);
    default:
      return absl::OkStatus();
  }
}

// A real op at position i: its order rules, channels and size.
absl::Status AddRealOp(const PreprocessOp& op, size_t i,
                       const std::string& where, Walk* w) {
  if (w->erase_at >= 0) {
    return InvalidArgumentCat(
        where, ": after RandomErasing (position ", w->erase_at,
        "), which works on the normalized tensor: put it after every op "
        "that changes pixels");
  }
  if (w->normalize_at >= 0 && !op.SameOnTensors()) {
    return InvalidArgumentCat(
        where, ": after Normalize (position ", w->normalize_at,
        "), which works on the tensor: put it before Normalize");
  }
  const bool flip = op.fused_part() == FusedPart::kFlip;
  if (w->tensor_at >= 0 && !op.SameOnTensors()) {
    return InvalidArgumentCat(
        where, ": after ", TensorBy(*w),
        ", where torchvision would run it on a tensor; fusednorm computes "
        "its PIL-image route: put it before ",
        w->tensor_by);
  }
  FUSEDNORM_RETURN_IF_ERROR(PrefixStatus(op.Validate(), where + ": "));
  absl::StatusOr<int> channels = op.OutputChannels(w->channels);
  if (!channels.ok()) return PrefixStatus(channels.status(), where + ": ");
  w->channels = *channels;
  if (const std::optional<Size2> f = op.FixedOutputSize()) {
    FUSEDNORM_RETURN_IF_ERROR(
        PrefixStatus(ValidateOutputSize(f->height, f->width), where + ": "));
  }
  if (flip) {
    w->last_flip = static_cast<int64_t>(i);
    w->flip_commutes = true;
  } else {
    w->flip_commutes = w->flip_commutes && op.CommutesWithHorizontalFlip();
  }
  return absl::OkStatus();
}

// The size every sample has after the real ops: the fixed size, or
// `sample_size`; they must agree when both are given.
absl::StatusOr<Size2> SampleSize(const std::string& list_name,
                                 const std::optional<Size2>& fixed,
                                 const std::optional<Size2>& sample_size) {
  if (fixed && sample_size &&
      (fixed->height != sample_size->height ||
       fixed->width != sample_size->width)) {
    return InvalidArgumentCat(list_name, " end in ", fixed->height, "x",
                              fixed->width, " but sample_size is ",
                              sample_size->height, "x", sample_size->width);
  }
  if (fixed) return *fixed;
  if (sample_size) return *sample_size;
  return InvalidArgumentCat(
      list_name,
      ": no transform fixes the output size (end the list with a "
      "crop or an exact Resize, or set sample_size)");
}

// [0.5, 0.25]: float32 values in the fewest digits that read back as them.
std::string FloatList(const std::vector<float>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    char digits[32];
    const std::to_chars_result r =
        std::to_chars(digits, digits + sizeof(digits), values[i]);
    absl::StrAppend(&out, i > 0 ? ", " : "",
                    absl::string_view(digits, r.ptr - digits));
  }
  return out + "]";
}

// `values` (1 or `channels` of them) for channel c.
float ForChannel(const std::vector<float>& values, int c) {
  return values[values.size() == 1 ? 0 : static_cast<size_t>(c)];
}

// The normalization `options` apply, with one mean or std spread over
// `channels` as torch broadcasts it; refused when a count is neither 1 nor
// `channels`.
absl::Status SpreadNormalization(const std::string& list_name, int channels,
                                 FusedNormalizationOptions* options) {
  if (options->mean.empty()) return absl::OkStatus();  // a preset
  for (std::vector<float>* v : {&options->mean, &options->std}) {
    if (v->size() == static_cast<size_t>(channels)) continue;
    if (v->size() != 1) {
      return InvalidArgumentCat(
          list_name, ": the normalization's ",
          v == &options->mean ? "mean " : "std ", FloatList(*v), " has ",
          v->size(), " values but the images have ", channels,
          " channels after the transforms ", GiveValues(channels));
    }
    v->assign(static_cast<size_t>(channels), v->front());
  }
  return absl::OkStatus();
}

// RandomErasing before Normalize erases the [0, 1] tensor, and Normalize
// then maps its values too: the fused op writes (v - mean) / std for each
// channel, in float32 as torch computes it.
void NormalizeEraseValues(int channels, FusedNormalizationOptions* options) {
  const Normalization n = options->mean.empty()
                              ? PresetNormalization(options->preset)
                              : Normalization{options->mean, options->std, 0};
  const std::vector<float> v = options->erase.value;  // empty: 0
  options->erase.value.resize(static_cast<size_t>(channels));
  for (int c = 0; c < channels; ++c) {
    const float value = v.empty() ? 0.0f : ForChannel(v, c);
    const float centred = value - ForChannel(n.mean, c);
    options->erase.value[static_cast<size_t>(c)] =
        centred / ForChannel(n.std, c);
  }
}

// The fused op for `options`, checked against the chain's channels; with
// `erase_in_pixels`, the erasing comes before Normalize.
absl::Status AddFused(const std::string& list_name,
                      FusedNormalizationOptions options, bool erase_in_pixels,
                      Chain* chain) {
  FUSEDNORM_RETURN_IF_ERROR(
      SpreadNormalization(list_name, chain->channels, &options));
  const size_t values = options.erase.value.size();
  if (values > 1 && values != static_cast<size_t>(chain->channels)) {
    return InvalidArgumentCat(list_name, ": RandomErasing value has ", values,
                              " values but the images have ", chain->channels,
                              " channels ", GiveValues(chain->channels));
  }
  absl::StatusOr<FusedNormalization> fused =
      FusedNormalization::Create(options);
  if (!fused.ok())
    return PrefixStatus(fused.status(), absl::StrCat(list_name, ": "));
  if (fused->channels() != 0 && fused->channels() != chain->channels) {
    return InvalidArgumentCat(list_name, ": the normalization is for ",
                              fused->channels(),
                              " channels but the images have ", chain->channels,
                              " after the transforms");
  }
  if (erase_in_pixels) {
    NormalizeEraseValues(chain->channels, &options);
    fused = FusedNormalization::Create(options);
    if (!fused.ok()) {
      return PrefixStatus(
          fused.status(),
          absl::StrCat(list_name,
                       ": RandomErasing's value as Normalize maps it: "));
    }
  }
  FUSEDNORM_ASSIGN_OR_RETURN(
      chain->sample_bytes,
      fused->OutputBytes(chain->size.height, chain->size.width,
                         chain->channels));
  chain->fused.emplace(*std::move(fused));
  return absl::OkStatus();
}

// The chain's ops and steps: real ops copied in order; the last flip, where
// everything after it commutes with it, and the erasing go to the fused op.
void AddSteps(const std::vector<std::unique_ptr<PreprocessOp>>& list,
              const Walk& w, Chain* chain) {
  for (size_t i = 0; i < list.size(); ++i) {
    const PreprocessOp& op = *list[i];
    const FusedPart part = op.fused_part();
    const bool fused_flip = part == FusedPart::kFlip &&
                            static_cast<int64_t>(i) == w.last_flip &&
                            w.flip_commutes;
    if (part == FusedPart::kErase || fused_flip) {
      chain->fused_ops.push_back(op.Clone());
      chain->steps.push_back(
          {fused_flip ? Chain::Step::Kind::kFlip : Chain::Step::Kind::kErase,
           chain->fused_ops.back().get()});
    } else if (part == FusedPart::kNone || part == FusedPart::kFlip) {
      chain->ops.push_back(op.Clone());
      chain->steps.push_back({Chain::Step::Kind::kReal, chain->ops.back().get(),
                              chain->ops.size() - 1});
    }
  }
}

}  // namespace

BatchShape Chain::batch_shape() const {
  BatchShape s;
  s.dtype = fused->dtype();
  s.layout = fused->layout();
  s.height = size.height;
  s.width = size.width;
  s.channels = channels;
  s.sample_bytes = sample_bytes;
  return s;
}

absl::StatusOr<std::optional<ListSize>> ListOutputSize(
    const std::vector<std::unique_ptr<PreprocessOp>>& list,
    std::optional<Size2> image_size) {
  std::optional<ListSize> size;
  if (image_size) size = ListSize{ListSize::kDatasetSize, *image_size};
  for (size_t i = 0; i < list.size(); ++i) {
    const PreprocessOp& op = *list[i];
    const FusedPart part = op.fused_part();
    if ((part != FusedPart::kNone && part != FusedPart::kFlip) ||
        op.KeepsSize()) {
      continue;  // a fused part, a flip, a colour op: the size stays
    }
    // A known input size is checked even where the output's is fixed: a
    // RandomCrop(200) after a CenterCrop(100) is refused here, before any
    // image is read, not at every sample.
    std::optional<Size2> next;
    if (size) {
      const Size2 in = size->size;
      const absl::StatusOr<std::optional<Size2>> s = op.SizeOfEveryDraw(in);
      if (!s.ok()) {
        return PrefixStatus(
            s.status(), absl::StrCat("position ", i, " (", op.name(), ") on ",
                                     in.height, "x", in.width, " images: "));
      }
      next = *s;
    }
    if (const std::optional<Size2> fixed = op.FixedOutputSize()) next = fixed;
    size = next ? std::optional<ListSize>(ListSize{i, *next}) : std::nullopt;
  }
  return size;
}

absl::StatusOr<Chain> BuildChain(
    const std::vector<std::unique_ptr<PreprocessOp>>& list,
    const ChainOptions& options) {
  Walk w;
  w.options = &options;
  w.fused = options.base;
  w.fused.flip_p = 0.0;
  w.fused.erase.enabled = false;
  w.channels = options.channels;
  for (size_t i = 0; i < list.size(); ++i) {
    const PreprocessOp& op = *list[i];
    const std::string where = Where(options, i, op);
    const FusedPart part = op.fused_part();
    if (part != FusedPart::kNone && part != FusedPart::kFlip) {
      FUSEDNORM_RETURN_IF_ERROR(PrefixStatus(op.Validate(), where + ": "));
      FUSEDNORM_RETURN_IF_ERROR(AddFusedOp(op, i, where, &w));
      continue;
    }
    FUSEDNORM_RETURN_IF_ERROR(AddRealOp(op, i, where, &w));
  }
  if (w.uint8()) {
    return InvalidArgumentCat(
        options.list_name, " end in the uint8 tensor of ", TensorBy(w),
        ", where fusednorm makes float tensors: follow it with "
        "ToDtype(torch.float32, scale=True)");
  }
  Chain chain;
  AddSteps(list, w, &chain);
  for (const Chain::Step& s : chain.steps) {
    if (s.kind == Chain::Step::Kind::kFlip) s.op->FuseInto(&w.fused);
  }
  chain.channels = w.channels;
  const absl::StatusOr<std::optional<ListSize>> fixed =
      ListOutputSize(list, options.image_size);
  if (!fixed.ok()) return PrefixStatus(fixed.status(), options.list_name + " ");
  FUSEDNORM_ASSIGN_OR_RETURN(
      chain.size,
      SampleSize(options.list_name,
                 *fixed ? std::optional<Size2>((*fixed)->size) : std::nullopt,
                 options.sample_size));
  // The normalization stands at the list's Normalize, or where it would
  // stand in torchvision's order when the list leaves it to the settings:
  // right after the conversion to float (none: before any erasing).
  const int64_t normalized_at =
      w.normalize_at >= 0 ? w.normalize_at : w.float_at;
  const bool erase_in_pixels = w.erase_at >= 0 && normalized_at > w.erase_at;
  FUSEDNORM_RETURN_IF_ERROR(
      AddFused(options.list_name, w.fused, erase_in_pixels, &chain));
  return chain;
}

}  // namespace fusednorm
