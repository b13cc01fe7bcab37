// The op table's rows for the auto-augment policies and the standalone
// transforms made of their kernels (augment_table.h), with their
// factories: torchvision's parameters, defaults and argument forms.
#include "ops/augment_table.h"

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/status.h"
#include "ops/augment_transforms.h"
#include "ops/auto_augment.h"

namespace fusednorm {

absl::StatusOr<FillArg> ReadFill(const BoundArgs& a) {
  const ArgValue& v = a.Get("fill");
  FillArg fill;
  fill.given = v;
  if (v.kind == ArgValue::Kind::kNone) return fill;
  FUSEDNORM_ASSIGN_OR_RETURN(fill.values, a.Numbers("fill"));
  fill.sequence = v.kind == ArgValue::Kind::kTuple;
  return fill;
}

namespace {

using SampleOp = absl::StatusOr<std::unique_ptr<PreprocessOp>>;

// torchvision's _setup_angle: a number d >= 0 is (-d, d); else a sequence
// of one of `sizes` lengths.
absl::StatusOr<std::vector<double>> ReadAngles(const BoundArgs& a,
                                               const char* name,
                                               std::vector<size_t> sizes) {
  const ArgValue& v = a.Get(name);
  if (v.is_number()) {
    if (!(v.number >= 0)) {
      return InvalidArgumentCat(a.op(), " ", name, " = ", FormatArg(v),
                                ": a single number must be non-negative");
    }
    return std::vector<double>{-v.number, v.number};
  }
  FUSEDNORM_ASSIGN_OR_RETURN(std::vector<double> values, a.Numbers(name));
  for (const size_t n : sizes) {
    if (values.size() == n) return values;
  }
  return InvalidArgumentCat(a.op(), " ", name, " = ", FormatArg(v),
                            ": must be a number or a sequence of ",
                            sizes.size() == 1 ? "2" : "2 or 4", " numbers");
}

// None or a pair of numbers.
absl::StatusOr<std::optional<std::pair<double, double>>> ReadOptionalPair(
    const BoundArgs& a, const char* name) {
  if (a.Get(name).kind == ArgValue::Kind::kNone) {
    return std::optional<std::pair<double, double>>();
  }
  FUSEDNORM_ASSIGN_OR_RETURN(const auto r, a.Range(name));
  return std::optional<std::pair<double, double>>(r);
}

SampleOp MakeAutoAugment(const BoundArgs& a, const OpContext&) {
  FUSEDNORM_ASSIGN_OR_RETURN(
      const std::string name,
      a.EnumMember("policy",
                   "an AutoAugmentPolicy: imagenet, cifar10 or "
                   "svhn"));
  FUSEDNORM_ASSIGN_OR_RETURN(const AutoAugmentPolicy policy,
                             AutoAugment::PolicyNamed(name));
  FUSEDNORM_ASSIGN_OR_RETURN(const Interpolation i,
                             a.InterpolationMode("interpolation"));
  FUSEDNORM_ASSIGN_OR_RETURN(FillArg fill, ReadFill(a));
  return std::make_unique<AutoAugment>(policy, i, std::move(fill));
}

SampleOp MakeRandAugment(const BoundArgs& a, const OpContext&) {
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t num_ops, a.Int("num_ops"));
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t magnitude, a.Int("magnitude"));
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t bins, a.Int("num_magnitude_bins"));
  FUSEDNORM_ASSIGN_OR_RETURN(const Interpolation i,
                             a.InterpolationMode("interpolation"));
  FUSEDNORM_ASSIGN_OR_RETURN(FillArg fill, ReadFill(a));
  return std::make_unique<RandAugment>(num_ops, magnitude, bins, i,
                                       std::move(fill));
}

SampleOp MakeTrivialAugmentWide(const BoundArgs& a, const OpContext&) {
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t bins, a.Int("num_magnitude_bins"));
  FUSEDNORM_ASSIGN_OR_RETURN(const Interpolation i,
                             a.InterpolationMode("interpolation"));
  FUSEDNORM_ASSIGN_OR_RETURN(FillArg fill, ReadFill(a));
  return std::make_unique<TrivialAugmentWide>(bins, i, std::move(fill));
}

absl::StatusOr<std::optional<Point2>> ReadCenter(const BoundArgs& a) {
  FUSEDNORM_ASSIGN_OR_RETURN(const auto c, ReadOptionalPair(a, "center"));
  if (!c) return std::optional<Point2>();
  return std::optional<Point2>(Point2{c->first, c->second});
}

SampleOp MakeRandomRotation(const BoundArgs& a, const OpContext&) {
  FUSEDNORM_ASSIGN_OR_RETURN(const std::vector<double> d,
                             ReadAngles(a, "degrees", {2}));
  FUSEDNORM_ASSIGN_OR_RETURN(const Interpolation i,
                             a.InterpolationMode("interpolation"));
  FUSEDNORM_ASSIGN_OR_RETURN(const bool expand, a.Bool("expand"));
  FUSEDNORM_ASSIGN_OR_RETURN(const std::optional<Point2> center, ReadCenter(a));
  FUSEDNORM_ASSIGN_OR_RETURN(FillArg fill, ReadFill(a));
  return std::make_unique<RandomRotation>(std::make_pair(d[0], d[1]), i, expand,
                                          center, std::move(fill));
}

SampleOp MakeRandomAffine(const BoundArgs& a, const OpContext&) {
  RandomAffine::Ranges r;
  FUSEDNORM_ASSIGN_OR_RETURN(const std::vector<double> d,
                             ReadAngles(a, "degrees", {2}));
  r.degrees = {d[0], d[1]};
  FUSEDNORM_ASSIGN_OR_RETURN(r.translate, ReadOptionalPair(a, "translate"));
  FUSEDNORM_ASSIGN_OR_RETURN(r.scale, ReadOptionalPair(a, "scale"));
  if (a.Get("shear").kind != ArgValue::Kind::kNone) {
    FUSEDNORM_ASSIGN_OR_RETURN(r.shear, ReadAngles(a, "shear", {2, 4}));
  }
  FUSEDNORM_ASSIGN_OR_RETURN(const Interpolation i,
                             a.InterpolationMode("interpolation"));
  FUSEDNORM_ASSIGN_OR_RETURN(FillArg fill, ReadFill(a));
  FUSEDNORM_ASSIGN_OR_RETURN(const std::optional<Point2> center, ReadCenter(a));
  return std::make_unique<RandomAffine>(std::move(r), i, std::move(fill),
                                        center);
}

SampleOp MakeRandomPosterize(const BoundArgs& a, const OpContext&) {
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t bits, a.Int("bits"));
  FUSEDNORM_ASSIGN_OR_RETURN(const double p, a.Number("p"));
  return std::make_unique<RandomPosterize>(bits, p);
}

SampleOp MakeRandomSolarize(const BoundArgs& a, const OpContext&) {
  FUSEDNORM_ASSIGN_OR_RETURN(const double threshold, a.Number("threshold"));
  FUSEDNORM_ASSIGN_OR_RETURN(const double p, a.Number("p"));
  return std::make_unique<RandomSolarize>(threshold, p);
}

SampleOp MakeRandomAdjustSharpness(const BoundArgs& a, const OpContext&) {
  FUSEDNORM_ASSIGN_OR_RETURN(const double f, a.Number("sharpness_factor"));
  FUSEDNORM_ASSIGN_OR_RETURN(const double p, a.Number("p"));
  return std::make_unique<RandomAdjustSharpness>(f, p);
}

template <RandomTableOp::Kind kKind>
SampleOp MakeRandomTableOp(const BoundArgs& a, const OpContext&) {
  FUSEDNORM_ASSIGN_OR_RETURN(const double p, a.Number("p"));
  return std::make_unique<RandomTableOp>(kKind, p);
}

constexpr char kInterpolationHelp[] =
    "nearest, bilinear or bicubic (Pillow's affine filters)";
constexpr char kFillHelp[] =
    "the colour outside the image: a number or one per channel, 0..255";

OpRow Sample(const char* name, const char* help, std::vector<OpParam> params,
             SampleOp (*make)(const BoundArgs&, const OpContext&)) {
  return {name, OpKind::kSample, help, std::move(params), make, nullptr};
}

}  // namespace

std::vector<OpRow> AugmentRows() {
  using K = RandomTableOp::Kind;
  return {
      Sample("AutoAugment",
             "one of the policy's 25 sub-policies of two ops (Pillow's)",
             {{"policy", "AutoAugmentPolicy.IMAGENET",
               "imagenet, cifar10 or svhn"},
              {"interpolation", "nearest", kInterpolationHelp},
              {"fill", "None", kFillHelp}},
             &MakeAutoAugment),
      Sample("RandAugment", "num_ops random ops at one magnitude (Pillow's)",
             {{"num_ops", "2", "ops per image, 0..16"},
              {"magnitude", "9", "the bin, 0..num_magnitude_bins - 1"},
              {"num_magnitude_bins", "31", "bins of each op's range, >= 2"},
              {"interpolation", "nearest", kInterpolationHelp},
              {"fill", "None", kFillHelp}},
             &MakeRandAugment),
      Sample("TrivialAugmentWide",
             "one random op at a random magnitude (Pillow's)",
             {{"num_magnitude_bins", "31", "bins of each op's range, >= 2"},
              {"interpolation", "nearest", kInterpolationHelp},
              {"fill", "None", kFillHelp}},
             &MakeTrivialAugmentWide),
      Sample("RandomRotation", "rotate by a random angle (Pillow's rotate)",
             {{"degrees", nullptr, "d (-d..d) or (min, max)"},
              {"interpolation", "nearest", kInterpolationHelp},
              {"expand", "False", "grow the output to hold the whole image"},
              {"center", "None", "(x, y); default the image's middle"},
              {"fill", "0", kFillHelp}},
             &MakeRandomRotation),
      Sample("RandomAffine",
             "a random rotation, translation, scale and shear (Pillow's)",
             {{"degrees", nullptr, "d (-d..d) or (min, max)"},
              {"translate", "None", "(fx, fy): at most fx * width, ..."},
              {"scale", "None", "(min, max) factor"},
              {"shear", "None", "s, (min, max) on x, or 4 values for x, y"},
              {"interpolation", "nearest", kInterpolationHelp},
              {"fill", "0", kFillHelp},
              {"center", "None", "(x, y); default the image's middle"}},
             &MakeRandomAffine),
      Sample("RandomPosterize",
             "keep `bits` bits of each value, with "
             "probability p",
             {{"bits", nullptr, "0..8"}, {"p", "0.5", "probability"}},
             &MakeRandomPosterize),
      Sample("RandomSolarize",
             "invert the values at or above threshold, with probability p",
             {{"threshold", nullptr, "a number"}, {"p", "0.5", "probability"}},
             &MakeRandomSolarize),
      Sample("RandomAdjustSharpness",
             "ImageEnhance.Sharpness, with probability p",
             {{"sharpness_factor", nullptr, ">= 0; 1 keeps the image"},
              {"p", "0.5", "probability"}},
             &MakeRandomAdjustSharpness),
      Sample("RandomAutocontrast",
             "stretch each channel to 0..255, with probability p",
             {{"p", "0.5", "probability"}},
             &MakeRandomTableOp<K::kAutocontrast>),
      Sample("RandomEqualize",
             "equalize each channel's histogram, with probability p",
             {{"p", "0.5", "probability"}}, &MakeRandomTableOp<K::kEqualize>),
      Sample("RandomInvert", "255 - value, with probability p",
             {{"p", "0.5", "probability"}}, &MakeRandomTableOp<K::kInvert>),
  };
}

}  // namespace fusednorm
