// The op table: every row makes its op from its defaults, prints it as
// torchvision does and reads the print back as the same op; decisions go
// to fields and back; bad calls name the op, the argument and the value;
// wrong kinds of value are type errors.
#include "ops/op_table.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "ops/op_args.h"
#include "testing/expect_error.h"

namespace fusednorm {
namespace {

using absl::StatusCode;

// A call of `row` with its required arguments given.
std::string WithRequired(const OpRow& row) {
  std::vector<std::string> args;
  for (const OpParam& p : row.params) {
    if (p.default_text != nullptr) continue;
    const std::string name = p.name;
    if (name == "size") args.push_back("size=(20, 30)");
    if (name == "mean") args.push_back("mean=(0.5, 0.25, 0.125)");
    if (name == "std") args.push_back("std=(0.2, 0.3, 0.4)");
    if (name == "dtype") args.push_back("dtype=torch.float32");
    if (name == "transforms") {
      args.push_back(row.kind == OpKind::kBatch
                         ? "transforms=[MixUp(), CutMix()]"
                         : "transforms=[ColorJitter(0.4, hue=0.1), "
                           "RandomSolarize(128)]");
    }
    if (name == "degrees") args.push_back("degrees=15");
    if (name == "bits") args.push_back("bits=4");
    if (name == "threshold") args.push_back("threshold=128");
    if (name == "sharpness_factor") args.push_back("sharpness_factor=2");
  }
  std::string out = absl::StrCat(row.name, "(");
  for (size_t i = 0; i < args.size(); ++i)
    absl::StrAppend(&out, i ? ", " : "", args[i]);
  if (std::string(row.name) == "ToDtype") absl::StrAppend(&out, ", scale=True");
  return out + ")";
}

TEST(OpTable, EveryRowMakesItsOpAndReadsItsPrintBack) {
  const OpContext context;
  for (const OpRow& row : OpRows()) {
    SCOPED_TRACE(row.name);
    const std::string text = WithRequired(row);
    if (row.kind == OpKind::kSample) {
      absl::StatusOr<std::vector<std::unique_ptr<PreprocessOp>>> ops =
          MakeTransforms(text, "list", context);
      ASSERT_TRUE(ops.ok()) << ops.status();
      ASSERT_EQ(ops->size(), 1u);
      const std::string printed = (*ops)[0]->name();
      EXPECT_EQ(printed.rfind(absl::StrCat(row.name, "("), 0), 0u) << printed;
      // Every parameter of the row, in its order, is in the print.
      const std::vector<NamedArg> args = (*ops)[0]->args();
      ASSERT_EQ(args.size(), row.params.size()) << printed;
      for (size_t i = 0; i < args.size(); ++i)
        EXPECT_EQ(args[i].name, row.params[i].name);
      auto again = MakeTransforms(printed, "list", context);
      ASSERT_TRUE(again.ok()) << printed << ": " << again.status();
      EXPECT_EQ((*again)[0]->name(), printed);
    } else {
      auto ops = MakeBatchTransforms(text, "list", context);
      ASSERT_TRUE(ops.ok()) << ops.status();
      const std::string printed = (*ops)[0]->name();
      auto again = MakeBatchTransforms(printed, "list", context);
      ASSERT_TRUE(again.ok()) << printed << ": " << again.status();
      EXPECT_EQ((*again)[0]->name(), printed);
    }
  }
}

TEST(OpTable, DefaultsAreTorchvisions) {
  const OpContext context;
  const struct {
    const char* text;
    const char* printed;
  } cases[] = {
      {"RandomResizedCrop(224)",
       "RandomResizedCrop(size=(224, 224), scale=(0.08, 1.0), ratio=(0.75, "
       "1.3333333333333333), interpolation=bilinear, antialias=True)"},
      {"Resize(232, interpolation=InterpolationMode.BICUBIC)",
       "Resize(size=232, interpolation=bicubic, max_size=None, "
       "antialias=True)"},
      {"Resize([232])", "Resize(size=232, interpolation=bilinear"},
      // Pillow's numbers, as torchvision maps them.
      {"Resize(8, interpolation=3)", "Resize(size=8, interpolation=bicubic"},
      {"Resize(8, interpolation=0)", "Resize(size=8, interpolation=nearest"},
      {"RandomResizedCrop(8, interpolation=2)",
       "RandomResizedCrop(size=(8, 8), scale=(0.08, 1.0), ratio=(0.75, "
       "1.3333333333333333), interpolation=bilinear"},
      {"CenterCrop(224)", "CenterCrop(size=(224, 224))"},
      {"RandomCrop(32, padding=4)",
       "RandomCrop(size=(32, 32), padding=4, pad_if_needed=False, fill=0, "
       "padding_mode='constant')"},
      {"RandomCrop((8, 9), [1, 2], True, (1, 2, 3), padding_mode=reflect)",
       "RandomCrop(size=(8, 9), padding=(1, 2), pad_if_needed=True, "
       "fill=(1, 2, 3), padding_mode='reflect')"},
      {"RandomHorizontalFlip()", "RandomHorizontalFlip(p=0.5)"},
      {"ColorJitter(0.4, 0.4, 0.4)",
       "ColorJitter(brightness=(0.6, 1.4), contrast=(0.6, 1.4), "
       "saturation=(0.6, 1.4), hue=None)"},
      {"ColorJitter(brightness=1.5, hue=(-0.5, 0.25))",
       "ColorJitter(brightness=(0.0, 2.5), contrast=None, saturation=None, "
       "hue=(-0.5, 0.25))"},
      {"Grayscale()", "Grayscale(num_output_channels=1)"},
      {"RandomGrayscale()", "RandomGrayscale(p=0.1)"},
      {"RandomErasing()",
       "RandomErasing(p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, "
       "inplace=False)"},
      {"RandomErasing(value=(1, 2, 3))", "value=(1.0, 2.0, 3.0)"},
      {"RandomErasing(inplace=True)", "value=0, inplace=True)"},
      {"Normalize(0.5, 0.25, True)",
       "Normalize(mean=(0.5,), std=(0.25,), inplace=True)"},
  };
  for (const auto& c : cases) {
    auto ops = MakeTransforms(c.text, "list", context);
    ASSERT_TRUE(ops.ok()) << c.text << ": " << ops.status();
    EXPECT_NE((*ops)[0]->name().find(c.printed), std::string::npos)
        << (*ops)[0]->name();
  }
  auto mix = MakeBatchTransforms("MixUp()", "list", context);
  ASSERT_TRUE(mix.ok());
  EXPECT_EQ((*mix)[0]->name(), "MixUp(alpha=1.0, num_classes=None)");
}

TEST(OpTable, BadCallsNameTheOpTheArgumentAndTheValue) {
  const OpContext context;
  const struct {
    const char* text;
    const char* needle;
    bool type_error;
  } cases[] = {
      {"Crop(3)", "Crop is not a per-sample transform fusednorm has", true},
      {"MixUp()", "MixUp is not a per-sample transform", true},
      {"RandomResizedCrop()", "missing required argument 'size'", true},
      {"RandomResizedCrop(1, 2, 3, 4, 5, 6)", "takes at most 5 arguments",
       true},
      {"RandomResizedCrop(8, foo=1)", "unexpected keyword argument 'foo'",
       true},
      {"RandomResizedCrop(8, size=9)", "multiple values for argument 'size'",
       true},
      {"RandomResizedCrop('8')", "RandomResizedCrop size = '8': must be an int",
       true},
      {"RandomResizedCrop(8, scale=0.5)", "scale = 0.5: must be a (min, max)",
       true},
      {"RandomResizedCrop(8, scale=(0.5, 0.25))",
       "RandomResizedCrop scale = (0.5, 0.25): must satisfy 0 <= min <= max",
       false},
      {"RandomResizedCrop(8, scale=(-0.5, 1))",
       "RandomResizedCrop scale = (-0.5, 1): must satisfy 0 <= min <= max",
       false},
      {"RandomResizedCrop(0)", "RandomResizedCrop size height = 0", false},
      {"CenterCrop((5, 0))", "CenterCrop size width = 0", false},
      {"Resize((1048577, 5))", "Resize size height = 1048577", false},
      {"Resize(8, interpolation=1)",
       "Resize interpolation = 1: fusednorm implements nearest, bilinear and "
       "bicubic",
       false},
      {"Resize(8, interpolation=6)",
       "interpolation = 6: must be an InterpolationMode, or Pillow's number",
       true},
      {"RandomResizedCrop(8, interpolation=lanczos)",
       "interpolation = lanczos: fusednorm implements nearest, bilinear and "
       "bicubic",
       false},
      {"RandomResizedCrop(8, antialias=False)", "antialias = False", false},
      {"Resize(8, max_size=8)",
       "Resize max_size = 8: must be greater than size", false},
      {"Resize((8, 9), max_size=20)", "only with a size for the shorter side",
       false},
      // An int is the shorter side's size, whatever its value.
      {"Resize(0)", "Resize size = 0: must be in 1..", false},
      {"Resize(-5)", "Resize size = -5: must be in 1..", false},
      {"Resize((8, 9, 10))", "must be an int or a (height, width)", true},
      {"RandomCrop(0)", "RandomCrop size height = 0: must be in 1..", false},
      {"RandomCrop(8, padding=(1, 2, 3))",
       "RandomCrop padding = (1, 2, 3): must be None, an int or 1, 2 or 4 ints",
       true},
      {"RandomCrop(8, padding=1.5)", "RandomCrop padding = 1.5: must be", true},
      {"RandomCrop(8, padding=(1, -2))",
       "RandomCrop padding = (1, -2): each value must be in 0..1048576 (a "
       "negative one",
       false},
      {"RandomCrop(8, padding_mode='Reflect')",
       "RandomCrop padding_mode = 'Reflect': must be constant, edge, reflect "
       "or symmetric",
       false},
      {"RandomCrop(8, padding_mode=Padding.REFLECT)",
       "RandomCrop padding_mode = Padding.REFLECT: must be constant", false},
      {"RandomCrop(8, padding_mode=2)",
       "RandomCrop padding_mode = 2: must be a str", true},
      {"RandomCrop((1048576, 1048576))",
       "RandomCrop size: output size 1048576x1048576", false},
      {"RandomCrop(8, padding_mode='wrap')",
       "RandomCrop padding_mode = 'wrap': must be constant, edge, reflect or "
       "symmetric",
       false},
      {"RandomCrop(8, fill=300)",
       "RandomCrop fill = 300: each value's int() must be in 0..255", false},
      {"RandomCrop(8, pad_if_needed=1)",
       "RandomCrop pad_if_needed = 1: must be True or False", true},
      {"RandomHorizontalFlip(1.5)", "RandomHorizontalFlip p = 1.5", false},
      // Every digit: past 1 by 1e-7 is not shown as 1.
      {"RandomHorizontalFlip(1.0000001)",
       "RandomHorizontalFlip p = 1.0000001: must be", false},
      {"RandomVerticalFlip(p=-0.1)", "RandomVerticalFlip p = -0.1", false},
      {"ColorJitter(-0.1)", "ColorJitter brightness = -0.1", false},
      {"ColorJitter(hue=0.7)", "ColorJitter hue = 0.7", false},
      {"ColorJitter(hue=-0.1)", "ColorJitter hue = -0.1", false},
      {"ColorJitter(contrast=(1.5, 0.5))", "ColorJitter contrast = (1.5, 0.5)",
       false},
      {"ColorJitter(saturation=(-1, 2))", "ColorJitter saturation = (-1",
       false},
      {"ColorJitter(hue=(-0.6, 0.1))", "ColorJitter hue = (-0.6, 0.1)", false},
      // Pillow's blend takes a float: factors past float's range are refused.
      {"ColorJitter(1e39)",
       "ColorJitter brightness = (0, 1e+39): must satisfy "
       "0 <= min <= max <= 3.4028234663852886e+38",
       false},
      {"ColorJitter(saturation=(1, 1e39))",
       "ColorJitter saturation = (1, 1e+39)", false},
      {"ColorJitter(brightness='x')", "must be a number or a (min, max)", true},
      {"Grayscale(2)", "Grayscale num_output_channels = 2", false},
      {"RandomGrayscale(2)", "RandomGrayscale p = 2", false},
      {"RandomErasing(value='random')", "value = 'random'", false},
      {"RandomErasing(scale=(0.5, 1.5))", "RandomErasing scale = (0.5, 1.5)",
       false},
      {"RandomErasing(ratio=(0, 1))", "RandomErasing ratio = (0", false},
      {"RandomErasing(value=1e39)", "RandomErasing value 1e+39", false},
      {"Normalize((0.5,), (0,))",
       "Normalize std[0] = 0: must not be 0 as a float32", false},
      {"Normalize((0.5,), (inf,))",
       "Normalize std[0] = inf: must be a finite float32", false},
      {"Normalize((0.5, 0.5), (1, 1, 1))", "Normalize has 2 means and 3 stds",
       false},
      {"Normalize((0.5,), (1, 0))", "Normalize std[1] = 0", false},
      // torchvision checks the std as a float32, where 1e-50 is 0.
      {"Normalize((0.5,), (1e-50,))", "Normalize std[0] = 1e-50", false},
      {"Normalize((0.5, inf), (1,))", "Normalize mean[1] = inf", false},
      {"ToDtype(torch.uint8)", "ToDtype dtype = torch.uint8", false},
      {"ToDtype(torch.float32)", "ToDtype scale = False", false},
      // A 16-bit float would be normalized in 16 bits: refused, not dropped.
      {"ToDtype(torch.float16, scale=True)",
       "ToDtype dtype = torch.float16: the list's tensor is torch.float32; "
       "for float16 or bfloat16 output set the dtype setting",
       false},
      {"ConvertImageDtype(torch.bfloat16)",
       "ConvertImageDtype dtype = torch.bfloat16", false},
      {"RandomApply()", "missing required argument 'transforms'", true},
      {"RandomApply(ColorJitter(0.4))",
       "RandomApply transforms = ColorJitter(0.4): must be a list of "
       "per-sample transforms",
       true},
      {"RandomApply([0.4])", "must be a list of per-sample transforms", true},
      {"RandomApply([ColorJitter(0.4)], p=1.5)", "RandomApply p = 1.5", false},
      {"RandomApply([ColorJitter(0.4)], p=-0.1)", "RandomApply p = -0.1",
       false},
      {"RandomApply([ColorJitter(-1)])",
       "RandomApply transforms[0] (ColorJitter): ColorJitter brightness = -1",
       false},
      {"RandomApply([MixUp()])",
       "RandomApply transforms[0] (MixUp): MixUp is not a per-sample "
       "transform",
       true},
      {"RandomApply([ColorJitter(0.1), RandomErasing()])",
       "RandomApply transforms[1] (RandomErasing(p=0.5, scale=(0.02, 0.33), "
       "ratio=(0.3, 3.3), value=0, inplace=False)): the fused op does it",
       false},
      {"RandomApply([Normalize(0.5, 0.5)])", "the fused op does it", false},
      {"RandomApply([ToTensor()])", "the fused op does it", false},
      {"RandomOrder([ColorJitter(0.1), RandomErasing()])",
       "RandomOrder transforms[1] (RandomErasing(", false},
      {"RandomOrder(ColorJitter(0.1))",
       "RandomOrder transforms = ColorJitter(0.1): must be a list", true},
      {"RandomApply([RandomApply([RandomErasing()])])",
       "RandomApply transforms[0] (RandomApply): RandomApply transforms[0] "
       "(RandomErasing(",
       false},
  };
  for (const auto& c : cases) {
    absl::StatusOr<std::vector<std::unique_ptr<PreprocessOp>>> ops =
        MakeTransforms(c.text, "--train-transforms", context);
    ExpectError(ops.status(), StatusCode::kInvalidArgument, c.needle);
    EXPECT_NE(ops.status().message().find("--train-transforms position 0"),
              std::string::npos)
        << ops.status();
    EXPECT_EQ(IsTypeError(ops.status()), c.type_error) << c.text;
  }
  const struct {
    const char* text;
    const char* needle;
  } batch_cases[] = {
      {"MixUp(0)", "MixUp alpha = 0"},
      // torchvision keeps alpha as a float32: 0 there (or infinite) is
      // refused, as are targets past kMaxClasses (a batch's would not fit).
      {"MixUp(1e-300)", "MixUp alpha = 1e-300: must be > 0 and finite"},
      {"CutMix(1e39)", "CutMix alpha = 1e+39: must be > 0 and finite"},
      {"MixUp(num_classes=16777217)",
       "MixUp num_classes = 16777217: must be in 1..16777216"},
      {"CutMix(num_classes=4611686018427387905)",
       "CutMix num_classes = 4611686018427387905: must be in 1..16777216"},
      {"CutMix(num_classes=0)", "CutMix num_classes = 0"},
      {"RandomChoice([])", "the list is empty"},
      {"RandomChoice([MixUp()], p=[1, 2])", "RandomChoice p has 2"},
      {"RandomChoice([MixUp(), CutMix()], p=[0, 0])", "sum to 0;"},
      // torchvision refuses an empty list as any other length mismatch,
      // and a total that cannot normalize them.
      {"RandomChoice([MixUp(), CutMix()], p=[])",
       "RandomChoice p has 0 probabilities for 2 transforms"},
      {"RandomChoice([MixUp(), CutMix()], p=[1e308, 1e308])",
       "the probabilities sum to inf"},
      {"RandomChoice([MixUp(num_classes=3), CutMix(num_classes=4)])",
       "num_classes 3 and 4"},
      {"RandomChoice([RandomResizedCrop(8)])",
       "RandomResizedCrop is a per-sample transform, not a batch transform "
       "(a RandomChoice of per-sample transforms belongs in the per-sample "
       "list); the batch transforms are: MixUp, CutMix, RandomChoice"},
      {"RandomChoice([MixUp(), RandomChoice([CutMix()])])",
       "RandomChoice transforms: RandomChoice(transforms=(CutMix("},
      {"MixUp(labels_getter='x')", "labels_getter = 'x'"},
  };
  for (const auto& c : batch_cases) {
    ExpectError(MakeBatchTransforms(c.text, "list", context).status(),
                StatusCode::kInvalidArgument, c.needle);
  }
}

// Every op's decisions, drawn, written as fields and read back, are the
// same decisions; fields out of range are refused.
TEST(OpTable, DecisionsGoToFieldsAndBack) {
  const OpContext context;
  for (const OpRow& row : OpRows()) {
    if (row.kind != OpKind::kSample) continue;
    SCOPED_TRACE(row.name);
    auto ops = MakeTransforms(WithRequired(row), "list", context);
    ASSERT_TRUE(ops.ok()) << ops.status();
    const PreprocessOp& op = *(*ops)[0];
    for (uint64_t i = 0; i < 20; ++i) {
      SampleStream stream(3, 1, i);
      const OpDecision d = op.Decide({37, 51}, stream);
      const std::vector<NamedArg> fields = op.DecisionFields(d);
      absl::StatusOr<OpDecision> back = op.DecisionFromFields(fields, {37, 51});
      ASSERT_TRUE(back.ok()) << back.status();
      const std::vector<NamedArg> again = op.DecisionFields(*back);
      ASSERT_EQ(again.size(), fields.size());
      for (size_t k = 0; k < fields.size(); ++k) {
        EXPECT_EQ(again[k].name, fields[k].name);
        EXPECT_EQ(FormatArg(again[k].value), FormatArg(fields[k].value));
      }
    }
  }
  auto rrc = MakeTransforms("RandomResizedCrop(8)", "list", context);
  ExpectError((*rrc)[0]
                  ->DecisionFromFields({{"top", ArgValue::Int(30)},
                                        {"left", ArgValue::Int(0)},
                                        {"height", ArgValue::Int(10)},
                                        {"width", ArgValue::Int(5)}},
                                       {37, 51})
                  .status(),
              StatusCode::kInvalidArgument, "RandomResizedCrop: ");
  ExpectError((*rrc)[0]
                  ->DecisionFromFields({{"top", ArgValue::Int(0)}}, {9, 9})
                  .status(),
              StatusCode::kInvalidArgument, "decision left: missing");
  auto cj = MakeTransforms("ColorJitter(0.4)", "list", context);
  ExpectError(
      (*cj)[0]
          ->DecisionFromFields(
              {{"order", ArgValue::Tuple({ArgValue::Int(0), ArgValue::Int(0),
                                          ArgValue::Int(1), ArgValue::Int(2)})},
               {"brightness", ArgValue::Float(1.0)},
               {"contrast", ArgValue::None()},
               {"saturation", ArgValue::None()},
               {"hue", ArgValue::None()}},
              {9, 9})
          .status(),
      StatusCode::kInvalidArgument, "is not a permutation");
  ExpectError((*cj)[0]
                  ->DecisionFromFields({{"extra", ArgValue::Int(1)}}, {9, 9})
                  .status(),
              StatusCode::kInvalidArgument, "order");
}

// torchvision's _check_input: a range that is only the centre (1, or 0 for
// hue) is None, so the adjustment is neither drawn nor applied.
TEST(OpTable, ColorJitterCentreRangesAreNone) {
  absl::StatusOr<std::vector<std::unique_ptr<PreprocessOp>>> ops =
      MakeTransforms(
          "ColorJitter(brightness=(1, 1), contrast=(1.0, 1.0), saturation=(1, "
          "1.5), hue=(0, 0))",
          "list", OpContext());
  ASSERT_TRUE(ops.ok()) << ops.status();
  EXPECT_EQ((*ops)[0]->name(),
            "ColorJitter(brightness=None, contrast=None, saturation=(1.0, "
            "1.5), hue=None)");
  SampleStream stream(1, 2, 3);
  const OpDecision d = (*ops)[0]->Decide({8, 8}, stream);
  EXPECT_TRUE(std::isnan(d.factors[0]) && std::isnan(d.factors[1]) &&
              std::isnan(d.factors[3]));
  EXPECT_FALSE(std::isnan(d.factors[2]));
}

}  // namespace
}  // namespace fusednorm
