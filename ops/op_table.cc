// The op table's rows and factories (op_table.h). A factory reads its
// arguments with BoundArgs' typed readers and hands them to the op's
// constructor; the op's Validate() then checks the ranges.
#include "ops/op_table.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status.h"
#include "ops/augment_table.h"
#include "ops/color.h"
#include "ops/composites.h"
#include "ops/fused_ops.h"
#include "ops/geometry.h"
#include "ops/random_crop.h"

namespace fusednorm {
namespace {

using SampleOp = absl::StatusOr<std::unique_ptr<PreprocessOp>>;
using BatchOpOr = absl::StatusOr<std::unique_ptr<BatchOp>>;

SampleOp MakeRandomResizedCrop(const BoundArgs& a, const OpContext& c) {
  FUSEDNORM_ASSIGN_OR_RETURN(const Size2 size, a.Size("size"));
  FUSEDNORM_ASSIGN_OR_RETURN(const auto scale, a.Range("scale"));
  FUSEDNORM_ASSIGN_OR_RETURN(const auto ratio, a.Range("ratio"));
  FUSEDNORM_ASSIGN_OR_RETURN(const Interpolation i,
                             a.InterpolationMode("interpolation"));
  FUSEDNORM_RETURN_IF_ERROR(a.Antialias("antialias"));
  return std::make_unique<RandomResizedCrop>(size, scale.first, scale.second,
                                             ratio.first, ratio.second,
                                             Resampling{i, c.resize_filter});
}

SampleOp MakeResize(const BoundArgs& a, const OpContext& c) {
  bool shorter = false;
  FUSEDNORM_ASSIGN_OR_RETURN(const Size2 size, a.Size("size", &shorter));
  FUSEDNORM_ASSIGN_OR_RETURN(const Interpolation i,
                             a.InterpolationMode("interpolation"));
  FUSEDNORM_ASSIGN_OR_RETURN(const std::optional<int64_t> max_size,
                             a.OptionalInt("max_size"));
  FUSEDNORM_RETURN_IF_ERROR(a.Antialias("antialias"));
  const Resampling r{i, c.resize_filter};
  if (shorter) return std::make_unique<Resize>(size.height, r, max_size);
  if (max_size) {
    return InvalidArgumentCat(
        "Resize max_size = ", *max_size,
        ": only with a size for the shorter side (an int), not (", size.height,
        ", ", size.width, ")");
  }
  return std::make_unique<Resize>(size, r);
}

SampleOp MakeCenterCrop(const BoundArgs& a, const OpContext&) {
  FUSEDNORM_ASSIGN_OR_RETURN(const Size2 size, a.Size("size"));
  return std::make_unique<CenterCrop>(size.height, size.width);
}

// RandomCrop's padding: None, an int, or a sequence of 1, 2 (left and
// right, top and bottom) or 4 (left, top, right, bottom) ints.
absl::StatusOr<Borders> ReadPadding(const BoundArgs& a) {
  const ArgValue& v = a.Get("padding");
  if (v.kind == ArgValue::Kind::kNone) return Borders();
  std::vector<int64_t> n;
  if (v.kind == ArgValue::Kind::kInt) n = {v.integer};
  if (v.kind == ArgValue::Kind::kTuple) {
    for (const ArgValue& item : v.items) {
      if (item.kind != ArgValue::Kind::kInt) n.clear();
      if (item.kind != ArgValue::Kind::kInt) break;
      n.push_back(item.integer);
    }
  }
  if (n.empty() || n.size() == 3 || n.size() > 4)
    return a.WrongType("padding", "None, an int or 1, 2 or 4 ints");
  if (n.size() == 1) return Borders{n[0], n[0], n[0], n[0]};
  if (n.size() == 2) return Borders{n[0], n[1], n[0], n[1]};
  return Borders{n[0], n[1], n[2], n[3]};
}

SampleOp MakeRandomCrop(const BoundArgs& a, const OpContext&) {
  FUSEDNORM_ASSIGN_OR_RETURN(const Size2 size, a.Size("size"));
  FUSEDNORM_ASSIGN_OR_RETURN(const Borders borders, ReadPadding(a));
  FUSEDNORM_ASSIGN_OR_RETURN(const bool pad_if_needed, a.Bool("pad_if_needed"));
  FUSEDNORM_ASSIGN_OR_RETURN(FillArg fill, ReadFill(a));
  // A string, exactly as torchvision compares it (a bare name in a list's
  // text).
  const ArgValue& given = a.Get("padding_mode");
  if (given.kind != ArgValue::Kind::kText &&
      given.kind != ArgValue::Kind::kName) {
    return a.WrongType("padding_mode", "a str");
  }
  const std::string& mode = given.text;
  const std::pair<const char*, PadMode> modes[] = {
      {"constant", PadMode::kConstant},
      {"edge", PadMode::kEdge},
      {"reflect", PadMode::kReflect},
      {"symmetric", PadMode::kSymmetric}};
  for (const auto& [text, m] : modes) {
    if (mode == text) {
      return std::make_unique<RandomCrop>(size, a.Get("padding"), borders,
                                          pad_if_needed, std::move(fill), m);
    }
  }
  return InvalidArgumentCat(
      "RandomCrop padding_mode = ", FormatArg(a.Get("padding_mode")),
      ": must be constant, edge, reflect or symmetric");
}

SampleOp MakeHorizontalFlip(const BoundArgs& a, const OpContext&) {
  FUSEDNORM_ASSIGN_OR_RETURN(const double p, a.Number("p"));
  return std::make_unique<RandomHorizontalFlip>(p);
}

SampleOp MakeVerticalFlip(const BoundArgs& a, const OpContext&) {
  FUSEDNORM_ASSIGN_OR_RETURN(const double p, a.Number("p"));
  return std::make_unique<RandomVerticalFlip>(p);
}

// A ColorJitter argument: a number (ColorJitter's own rule for it), a
// (min, max) range, or None.
absl::StatusOr<std::optional<FactorRange>> JitterArg(const BoundArgs& a,
                                                     const char* name) {
  const ArgValue& v = a.Get(name);
  if (v.kind == ArgValue::Kind::kNone) return std::optional<FactorRange>();
  if (v.is_number()) {
    return std::string(name) == "hue"
               ? ColorJitter::HueFromNumber(v.number)
               : ColorJitter::FactorFromNumber(name, v.number);
  }
  if (v.kind == ArgValue::Kind::kTuple && v.items.size() == 2 &&
      v.items[0].is_number() && v.items[1].is_number()) {
    return ColorJitter::FromRange(name, v.items[0].number, v.items[1].number);
  }
  return a.WrongType(name, "a number or a (min, max) pair of numbers");
}

SampleOp MakeColorJitter(const BoundArgs& a, const OpContext&) {
  std::optional<FactorRange> r[4];
  const char* names[4] = {"brightness", "contrast", "saturation", "hue"};
  for (int k = 0; k < 4; ++k) {
    FUSEDNORM_ASSIGN_OR_RETURN(r[k], JitterArg(a, names[k]));
  }
  return std::make_unique<ColorJitter>(r[0], r[1], r[2], r[3]);
}

SampleOp MakeGrayscale(const BoundArgs& a, const OpContext&) {
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t n, a.Int("num_output_channels"));
  if (n != 1 && n != 3) {
    return InvalidArgumentCat("Grayscale num_output_channels = ", n,
                              ": must be 1 or 3");
  }
  return std::make_unique<Grayscale>(static_cast<int>(n));
}

SampleOp MakeRandomGrayscale(const BoundArgs& a, const OpContext&) {
  FUSEDNORM_ASSIGN_OR_RETURN(const double p, a.Number("p"));
  return std::make_unique<RandomGrayscale>(p);
}

SampleOp MakeRandomErasing(const BoundArgs& a, const OpContext&) {
  FUSEDNORM_ASSIGN_OR_RETURN(const double p, a.Number("p"));
  FUSEDNORM_ASSIGN_OR_RETURN(const auto scale, a.Range("scale"));
  FUSEDNORM_ASSIGN_OR_RETURN(const auto ratio, a.Range("ratio"));
  FUSEDNORM_ASSIGN_OR_RETURN(const bool inplace, a.Bool("inplace"));
  const ArgValue& v = a.Get("value");
  if (v.kind == ArgValue::Kind::kText) {
    return InvalidArgumentCat(
        "RandomErasing value = ", FormatArg(v),
        ": fusednorm erases to 0 or to constants (a number, or one per "
        "channel), not to random noise");
  }
  FUSEDNORM_ASSIGN_OR_RETURN(std::vector<double> value, a.Numbers("value"));
  if (value.size() == 1 && value[0] == 0 && !std::signbit(value[0]))
    value.clear();  // the normalized zero, written in the kernel's pass
  auto op =
      std::make_unique<RandomErasing>(p, scale.first, scale.second, ratio.first,
                                      ratio.second, std::move(value));
  op->set_inplace(inplace);
  return op;
}

SampleOp MakeNormalize(const BoundArgs& a, const OpContext&) {
  FUSEDNORM_ASSIGN_OR_RETURN(std::vector<double> mean, a.Numbers("mean"));
  FUSEDNORM_ASSIGN_OR_RETURN(std::vector<double> std, a.Numbers("std"));
  FUSEDNORM_ASSIGN_OR_RETURN(const bool inplace, a.Bool("inplace"));
  auto op = std::make_unique<Normalize>(std::move(mean), std::move(std));
  op->set_inplace(inplace);
  return op;
}

// ToTensor and its look-alikes, named as the list wrote them.
SampleOp MakeToTensor(const BoundArgs& a, const OpContext&) {
  return std::make_unique<ToTensor>(a.op());
}

// ToDtype(dtype, scale) and ConvertImageDtype(dtype): float32, with values
// scaled to [0, 1] (which ConvertImageDtype always does). A 16-bit float is
// refused, not dropped: torch would normalize in that type, where the fused
// op normalizes in float32 and rounds once (the dtype setting).
SampleOp MakeToDtype(const BoundArgs& a, const OpContext&) {
  const ArgValue& dtype = a.Get("dtype");
  static const char* kFloat32[] = {"torch.float32", "torch.float", "float32"};
  bool is_float32 = false;
  for (const char* f : kFloat32) {
    is_float32 = is_float32 || ((dtype.kind == ArgValue::Kind::kName ||
                                 dtype.kind == ArgValue::Kind::kText) &&
                                dtype.text == f);
  }
  if (!is_float32) {
    return InvalidArgumentCat(
        a.op(), " dtype = ", FormatArg(dtype),
        ": the list's tensor is torch.float32; for float16 or bfloat16 "
        "output set the dtype setting (normalized in float32, then rounded)");
  }
  if (a.op() == "ToDtype") {
    FUSEDNORM_ASSIGN_OR_RETURN(const bool scale, a.Bool("scale"));
    if (!scale) {
      return InvalidArgumentCat(
          "ToDtype scale = False: the fused op's values are the pixels "
          "scaled to [0, 1] and normalized: ToDtype(..., scale=True)");
    }
  }
  return std::make_unique<ToTensor>(a.op());
}

// A list op's transforms: per-sample ones, each named by its place in
// errors ("RandomApply transforms[1] (MixUp): ...").
absl::StatusOr<std::vector<std::unique_ptr<PreprocessOp>>> ReadTransforms(
    const BoundArgs& a, const OpContext& c) {
  const ArgValue& t = a.Get("transforms");
  const char* expected = "a list of per-sample transforms";
  if (t.kind != ArgValue::Kind::kTuple)
    return a.WrongType("transforms", expected);
  std::vector<std::unique_ptr<PreprocessOp>> ops;
  for (size_t k = 0; k < t.items.size(); ++k) {
    const ArgValue& item = t.items[k];
    if (item.kind != ArgValue::Kind::kCall)
      return a.WrongType("transforms", expected);
    SampleOp op = MakeTransform(*item.call, c);
    if (!op.ok()) {
      return PrefixStatus(op.status(),
                          absl::StrCat(a.op(), " transforms[", k, "] (",
                                       item.call->name, "): "));
    }
    ops.push_back(*std::move(op));
  }
  return ops;
}

// RandomChoice's p: None or a list of numbers.
absl::StatusOr<std::optional<std::vector<double>>> ReadChoiceP(
    const BoundArgs& a) {
  std::optional<std::vector<double>> p;
  const ArgValue& pv = a.Get("p");
  if (pv.kind == ArgValue::Kind::kNone) return p;
  if (pv.kind != ArgValue::Kind::kTuple)
    return a.WrongType("p", "None or a list of numbers");
  p.emplace();
  for (const ArgValue& x : pv.items) {
    if (!x.is_number()) return a.WrongType("p", "None or a list of numbers");
    p->push_back(x.number);
  }
  return p;
}

SampleOp MakeRandomApply(const BoundArgs& a, const OpContext& c) {
  FUSEDNORM_ASSIGN_OR_RETURN(auto ops, ReadTransforms(a, c));
  FUSEDNORM_ASSIGN_OR_RETURN(const double p, a.Number("p"));
  return std::make_unique<RandomApply>(std::move(ops), p);
}

SampleOp MakeSampleRandomChoice(const BoundArgs& a, const OpContext& c) {
  FUSEDNORM_ASSIGN_OR_RETURN(auto ops, ReadTransforms(a, c));
  FUSEDNORM_ASSIGN_OR_RETURN(auto p, ReadChoiceP(a));
  return std::make_unique<SampleRandomChoice>(std::move(ops), std::move(p));
}

SampleOp MakeRandomOrder(const BoundArgs& a, const OpContext& c) {
  FUSEDNORM_ASSIGN_OR_RETURN(auto ops, ReadTransforms(a, c));
  return std::make_unique<RandomOrder>(std::move(ops));
}

BatchOpOr MakeMix(const BoundArgs& a, bool cutmix) {
  FUSEDNORM_ASSIGN_OR_RETURN(const double alpha, a.Number("alpha"));
  FUSEDNORM_ASSIGN_OR_RETURN(const std::optional<int64_t> n,
                             a.OptionalInt("num_classes"));
  const ArgValue& getter = a.Get("labels_getter");
  if (!(getter.kind == ArgValue::Kind::kText && getter.text == "default")) {
    return InvalidArgumentCat(a.op(), " labels_getter = ", FormatArg(getter),
                              ": the loader's labels are the only ones "
                              "('default')");
  }
  if (cutmix) return std::make_unique<CutMix>(alpha, n);
  return std::make_unique<MixUp>(alpha, n);
}

BatchOpOr MakeMixUp(const BoundArgs& a, const OpContext&) {
  return MakeMix(a, false);
}
BatchOpOr MakeCutMix(const BoundArgs& a, const OpContext&) {
  return MakeMix(a, true);
}

BatchOpOr MakeRandomChoice(const BoundArgs& a, const OpContext& c) {
  const ArgValue& t = a.Get("transforms");
  if (t.kind != ArgValue::Kind::kTuple)
    return a.WrongType("transforms", "a list of batch transforms");
  std::vector<std::unique_ptr<BatchOp>> ops;
  for (const ArgValue& item : t.items) {
    if (item.kind != ArgValue::Kind::kCall)
      return a.WrongType("transforms", "a list of batch transforms");
    FUSEDNORM_ASSIGN_OR_RETURN(std::unique_ptr<BatchOp> op,
                               MakeBatchTransform(*item.call, c));
    ops.push_back(std::move(op));
  }
  FUSEDNORM_ASSIGN_OR_RETURN(auto p, ReadChoiceP(a));
  return std::make_unique<RandomChoice>(std::move(ops), std::move(p));
}

constexpr char kInterpolationHelp[] =
    "nearest, bilinear or bicubic (InterpolationMode)";
constexpr char kAntialiasHelp[] =
    "True or None: PIL images are always antialiased";

std::vector<OpRow> GeometryRows() {
  return {
      {"RandomResizedCrop",
       OpKind::kSample,
       "a random crop of random area and aspect ratio, resized",
       {{"size", nullptr, "output size: an int (square) or (h, w)"},
        {"scale", "(0.08, 1.0)", "area range, as a fraction of the image"},
        {"ratio", "(0.75, 1.3333333333333333)", "aspect ratio range (w / h)"},
        {"interpolation", "bilinear", kInterpolationHelp},
        {"antialias", "True", kAntialiasHelp}},
       &MakeRandomResizedCrop,
       nullptr},
      {"Resize",
       OpKind::kSample,
       "resize: an int sets the shorter side (aspect kept), (h, w) the size",
       {{"size", nullptr, "an int (the shorter side) or (h, w)"},
        {"interpolation", "bilinear", kInterpolationHelp},
        {"max_size", "None",
         "the longer side's largest size (with an int size)"},
        {"antialias", "True", kAntialiasHelp}},
       &MakeResize,
       nullptr},
      {"CenterCrop",
       OpKind::kSample,
       "the central crop, padded with 0 where the image is smaller",
       {{"size", nullptr, "an int (square) or (h, w)"}},
       &MakeCenterCrop,
       nullptr},
      {"RandomCrop",
       OpKind::kSample,
       "a crop of the given size at a random place, after optional padding",
       {{"size", nullptr, "an int (square) or (h, w)"},
        {"padding", "None",
         "None, an int, (left/right, top/bottom) or (left, top, right, "
         "bottom)"},
        {"pad_if_needed", "False",
         "pad a side smaller than the crop by the difference, on both "
         "borders (torchvision's rule)"},
        {"fill", "0", "constant padding's value: a number or one per channel"},
        {"padding_mode", "'constant'", "constant, edge, reflect or symmetric"}},
       &MakeRandomCrop,
       nullptr},
      {"RandomHorizontalFlip",
       OpKind::kSample,
       "mirror left-right with probability p (done by the fused op where it "
       "can be)",
       {{"p", "0.5", "probability"}},
       &MakeHorizontalFlip,
       nullptr},
      {"RandomVerticalFlip",
       OpKind::kSample,
       "mirror top-bottom with probability p",
       {{"p", "0.5", "probability"}},
       &MakeVerticalFlip,
       nullptr},
  };
}

std::vector<OpRow> ColourRows() {
  return {
      {"ColorJitter",
       OpKind::kSample,
       "brightness, contrast, saturation, hue in a random order (Pillow's "
       "ImageEnhance and HSV)",
       {{"brightness", "0",
         "v: factor in [max(0, 1 - v), 1 + v]; or (min, max)"},
        {"contrast", "0", "v: factor in [max(0, 1 - v), 1 + v]; or (min, max)"},
        {"saturation", "0",
         "v: factor in [max(0, 1 - v), 1 + v]; or (min, max)"},
        {"hue", "0", "v in [0, 0.5]: factor in [-v, v]; or (min, max)"}},
       &MakeColorJitter,
       nullptr},
      {"Grayscale",
       OpKind::kSample,
       "Pillow's L, in 1 or 3 channels",
       {{"num_output_channels", "1", "1 or 3"}},
       &MakeGrayscale,
       nullptr},
      {"RandomGrayscale",
       OpKind::kSample,
       "Grayscale with the input's channel count, with probability p",
       {{"p", "0.1", "probability"}},
       &MakeRandomGrayscale,
       nullptr},
  };
}

// The per-sample ops made of a list (ops/composites.h).
std::vector<OpRow> ListRows() {
  return {
      {"RandomApply",
       OpKind::kSample,
       "its transforms in turn with probability p, else none of them",
       {{"transforms", nullptr,
         "per-sample transforms that keep the channel count"},
        {"p", "0.5", "probability"}},
       &MakeRandomApply,
       nullptr},
      {"RandomChoice",
       OpKind::kSample,
       "one of its transforms per sample (a list of batch transforms makes "
       "the batch one)",
       {{"transforms", nullptr,
         "per-sample transforms that keep the channel count"},
        {"p", "None", "their probabilities (default: equal)"}},
       &MakeSampleRandomChoice,
       nullptr},
      {"RandomOrder",
       OpKind::kSample,
       "all of its transforms, in a random order",
       {{"transforms", nullptr,
         "per-sample transforms that keep the channel count"}},
       &MakeRandomOrder,
       nullptr},
  };
}

// The ops the fused op does, and the tensor conversions that end a list.
std::vector<OpRow> FusedRows() {
  return {
      {"RandomErasing",
       OpKind::kSample,
       "erase a random rectangle of the normalized tensor (fused)",
       {{"p", "0.5", "probability"},
        {"scale", "(0.02, 0.33)", "area range, as a fraction of the image"},
        {"ratio", "(0.3, 3.3)", "aspect ratio range (h / w)"},
        {"value", "0", "0, a number, or one number per channel"},
        {"inplace", "False",
         "apply() erases its array itself; no effect in a list (the fused op "
         "writes its own output)"}},
       &MakeRandomErasing,
       nullptr},
      {"Normalize",
       OpKind::kSample,
       "(x - mean) / std per channel: sets the normalization",
       {{"mean", nullptr, "one number per channel, or one for all"},
        {"std", nullptr, "one number per channel, or one for all"},
        {"inplace", "False", "no effect"}},
       &MakeNormalize,
       nullptr},
      {"ToTensor",
       OpKind::kSample,
       "pixels to a float tensor in [0, 1] (fused)",
       {},
       &MakeToTensor,
       nullptr},
      {"PILToTensor",
       OpKind::kSample,
       "with a float conversion after it, as ToTensor",
       {},
       &MakeToTensor,
       nullptr},
      {"ToImage",
       OpKind::kSample,
       "with ToDtype(torch.float32, scale=True) after it, as ToTensor",
       {},
       &MakeToTensor,
       nullptr},
      {"ToImageTensor",
       OpKind::kSample,
       "as ToImage",
       {},
       &MakeToTensor,
       nullptr},
      {"ToPureTensor",
       OpKind::kSample,
       "v2's last step (a plain tensor): nothing to do",
       {},
       &MakeToTensor,
       nullptr},
      {"ToDtype",
       OpKind::kSample,
       "the float conversion after PILToTensor or ToImage",
       {{"dtype", nullptr, "torch.float32 (the dtype setting picks others)"},
        {"scale", "False", "must be True"}},
       &MakeToDtype,
       nullptr},
      {"ConvertImageDtype",
       OpKind::kSample,
       "the float conversion after PILToTensor",
       {{"dtype", nullptr, "torch.float32 (the dtype setting picks others)"}},
       &MakeToDtype,
       nullptr},
  };
}

std::vector<OpRow> BatchRows() {
  return {
      {"MixUp",
       OpKind::kBatch,
       "each image mixed with the previous one, lam ~ Beta(alpha, alpha) "
       "(torchvision takes the arguments by keyword only; fusednorm also in "
       "order)",
       {{"alpha", "1.0", "Beta's parameter, > 0"},
        {"num_classes", "None",
         "classes of the soft targets (or the "
         "num_classes setting)"},
        {"labels_getter", "'default'", "only 'default'"}},
       nullptr,
       &MakeMixUp},
      {"CutMix",
       OpKind::kBatch,
       "a box of the previous image pasted into each, lam ~ Beta(alpha, "
       "alpha) (by keyword in torchvision, as MixUp's)",
       {{"alpha", "1.0", "Beta's parameter, > 0"},
        {"num_classes", "None",
         "classes of the soft targets (or the "
         "num_classes setting)"},
        {"labels_getter", "'default'", "only 'default'"}},
       nullptr,
       &MakeCutMix},
      {"RandomChoice",
       OpKind::kBatch,
       "one of the transforms per batch",
       {{"transforms", nullptr, "a list of batch transforms"},
        {"p", "None", "their probabilities (default: equal)"}},
       nullptr,
       &MakeRandomChoice},
  };
}

// The rows in --help's order: geometry and colour, then the auto-augment
// rows (ops/augment_table.h), then the fused and batch ops.
const std::vector<OpRow>& Rows() {
  static const auto* rows = [] {
    auto* all = new std::vector<OpRow>(GeometryRows());
    for (std::vector<OpRow> part :
         {ColourRows(), ListRows(), AugmentRows(), FusedRows(), BatchRows()}) {
      all->insert(all->end(), part.begin(), part.end());
    }
    return all;
  }();
  return *rows;
}

std::string KnownNames(OpKind kind) {
  std::vector<std::string> names;
  for (const OpRow& r : Rows()) {
    if (r.kind == kind) names.push_back(r.name);
  }
  return absl::StrJoin(names, ", ");
}

// The row for `call` of `kind`, or InvalidArgument naming the known ones.
absl::StatusOr<const OpRow*> RowFor(const OpCall& call, OpKind kind) {
  if (const OpRow* row = FindOpRow(call.name, kind)) return row;
  const OpRow* row = FindOpRow(call.name);
  const char* what =
      kind == OpKind::kSample ? "a per-sample transform" : "a batch transform";
  if (row != nullptr && kind == OpKind::kSample) {
    return TypeError(absl::StrCat(call.name, " is not ", what,
                                  " (batch transforms have a list of their "
                                  "own); those are: ",
                                  KnownNames(kind)));
  }
  if (row != nullptr) {
    return TypeError(absl::StrCat(
        call.name, " is a per-sample transform, not ", what,
        " (a RandomChoice of per-sample transforms belongs in the per-sample "
        "list); the batch transforms are: ",
        KnownNames(kind)));
  }
  return TypeError(
      absl::StrCat(call.name, " is not ", what,
                   " fusednorm has; those are: ", KnownNames(kind)));
}

template <typename Op, typename Make>
absl::StatusOr<std::vector<std::unique_ptr<Op>>> MakeAll(absl::string_view text,
                                                         absl::string_view list,
                                                         Make make) {
  FUSEDNORM_ASSIGN_OR_RETURN(const std::vector<OpCall> calls,
                             ParseTransformList(text, list));
  std::vector<std::unique_ptr<Op>> ops;
  for (size_t i = 0; i < calls.size(); ++i) {
    absl::StatusOr<std::unique_ptr<Op>> op = make(calls[i]);
    if (!op.ok()) {
      return PrefixStatus(op.status(), absl::StrCat(list, " position ", i, " (",
                                                    calls[i].name, "): "));
    }
    ops.push_back(*std::move(op));
  }
  return ops;
}

}  // namespace

absl::Span<const OpRow> OpRows() { return Rows(); }

const OpRow* FindOpRow(absl::string_view name) {
  for (const OpRow& r : Rows()) {
    if (name == r.name) return &r;
  }
  return nullptr;
}

const OpRow* FindOpRow(absl::string_view name, OpKind kind) {
  for (const OpRow& r : Rows()) {
    if (name == r.name && r.kind == kind) return &r;
  }
  return nullptr;
}

absl::StatusOr<std::unique_ptr<PreprocessOp>> MakeTransform(
    const OpCall& call, const OpContext& context) {
  FUSEDNORM_ASSIGN_OR_RETURN(const OpRow* row, RowFor(call, OpKind::kSample));
  FUSEDNORM_ASSIGN_OR_RETURN(const BoundArgs args,
                             BoundArgs::Bind(row->name, row->params, call));
  FUSEDNORM_ASSIGN_OR_RETURN(std::unique_ptr<PreprocessOp> op,
                             row->make(args, context));
  FUSEDNORM_RETURN_IF_ERROR(op->Validate());
  return op;
}

absl::StatusOr<std::unique_ptr<BatchOp>> MakeBatchTransform(
    const OpCall& call, const OpContext& context) {
  FUSEDNORM_ASSIGN_OR_RETURN(const OpRow* row, RowFor(call, OpKind::kBatch));
  FUSEDNORM_ASSIGN_OR_RETURN(const BoundArgs args,
                             BoundArgs::Bind(row->name, row->params, call));
  FUSEDNORM_ASSIGN_OR_RETURN(std::unique_ptr<BatchOp> op,
                             row->make_batch(args, context));
  FUSEDNORM_RETURN_IF_ERROR(op->Validate());
  return op;
}

absl::StatusOr<std::vector<std::unique_ptr<PreprocessOp>>> MakeTransforms(
    absl::string_view text, absl::string_view list, const OpContext& context) {
  return MakeAll<PreprocessOp>(text, list, [&](const OpCall& call) {
    return MakeTransform(call, context);
  });
}

absl::StatusOr<std::vector<std::unique_ptr<BatchOp>>> MakeBatchTransforms(
    absl::string_view text, absl::string_view list, const OpContext& context) {
  return MakeAll<BatchOp>(text, list, [&](const OpCall& call) {
    return MakeBatchTransform(call, context);
  });
}

std::string TransformsHelp(OpKind kind) {
  std::string out;
  for (const OpRow& r : Rows()) {
    if (r.kind != kind) continue;
    std::vector<std::string> params;
    for (const OpParam& p : r.params) {
      params.push_back(p.default_text == nullptr
                           ? p.name
                           : absl::StrCat(p.name, "=", p.default_text));
    }
    absl::StrAppend(&out, "      ", r.name, "(", absl::StrJoin(params, ", "),
                    ")\n          ", r.help, "\n");
  }
  return out;
}

}  // namespace fusednorm
