// The transform list grammar: what it reads, how values print back, and
// its errors (the list, the character, the op and its position).
#include "ops/transform_list.h"

#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/arg_value.h"
#include "testing/expect_error.h"

namespace fusednorm {
namespace {

using absl::StatusCode;

std::vector<OpCall> Parse(const std::string& text) {
  absl::StatusOr<std::vector<OpCall>> calls = ParseTransformList(text, "list");
  EXPECT_TRUE(calls.ok()) << calls.status();
  return calls.ok() ? *calls : std::vector<OpCall>();
}

TEST(TransformList, ReadsOpsArgumentsAndKeywords) {
  const auto calls = Parse(
      " T.RandomResizedCrop(176, scale=(0.08, 1), interpolation="
      "InterpolationMode.BICUBIC),RandomHorizontalFlip ,  "
      "transforms.RandomErasing(p=0.1, value=[0.5, -1e-3, inf]), ");
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].name, "RandomResizedCrop");
  EXPECT_EQ(calls[0].offset, 1u);
  ASSERT_EQ(calls[0].args.size(), 3u);
  EXPECT_EQ(calls[0].args[0].keyword, "");
  EXPECT_EQ(calls[0].args[0].value.kind, ArgValue::Kind::kInt);
  EXPECT_EQ(calls[0].args[0].value.integer, 176);
  EXPECT_EQ(calls[0].args[1].keyword, "scale");
  EXPECT_EQ(FormatArg(calls[0].args[1].value), "(0.08, 1)");
  EXPECT_EQ(calls[0].args[2].value.kind, ArgValue::Kind::kName);
  EXPECT_EQ(calls[0].args[2].value.text, "InterpolationMode.BICUBIC");
  EXPECT_EQ(calls[1].name, "RandomHorizontalFlip");
  EXPECT_TRUE(calls[1].args.empty());
  EXPECT_EQ(calls[2].name, "RandomErasing");
  const ArgValue& value = calls[2].args[1].value;
  ASSERT_EQ(value.items.size(), 3u);
  EXPECT_EQ(value.items[1].number, -1e-3);
  EXPECT_TRUE(std::isinf(value.items[2].number));
}

TEST(TransformList, ComposeNestedOpsStringsAndConstants) {
  const auto calls = Parse(
      "Compose([RandomChoice([MixUp(alpha=0.2), CutMix(1.0)], p=[1, 2]), "
      "Fake('it\\'s', \"x\", None, True, False, -inf, 1_000, -7)])");
  ASSERT_EQ(calls.size(), 2u);
  const ArgValue& ops = calls[0].args[0].value;
  ASSERT_EQ(ops.items.size(), 2u);
  ASSERT_EQ(ops.items[0].kind, ArgValue::Kind::kCall);
  EXPECT_EQ(ops.items[0].call->name, "MixUp");
  EXPECT_EQ(ops.items[0].call->args[0].keyword, "alpha");
  EXPECT_EQ(FormatArg(ops.items[1]), "CutMix(1.0)");
  const std::vector<OpArgument>& a = calls[1].args;
  ASSERT_EQ(a.size(), 8u);
  EXPECT_EQ(a[0].value.text, "it's");
  EXPECT_EQ(FormatArg(a[0].value), "'it\\'s'");
  EXPECT_EQ(a[1].value.text, "x");
  EXPECT_EQ(a[2].value.kind, ArgValue::Kind::kNone);
  EXPECT_TRUE(a[3].value.boolean);
  EXPECT_FALSE(a[4].value.boolean);
  EXPECT_EQ(FormatArg(a[5].value), "-inf");
  EXPECT_EQ(a[6].value.integer, 1000);
  EXPECT_EQ(a[7].value.integer, -7);
  EXPECT_TRUE(Parse("").empty());
  EXPECT_TRUE(Parse("  \n ").empty());
}

// A list as Python writes one, [A(), B()], is the same list; so is an
// empty one.
TEST(TransformList, BracketsAroundTheList) {
  const auto calls = Parse(" [ CenterCrop(8), RandomHorizontalFlip(p=0.25) ] ");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].name, "CenterCrop");
  EXPECT_EQ(calls[1].args[0].keyword, "p");
  EXPECT_TRUE(Parse("[]").empty());
  EXPECT_FALSE(ParseTransformList("[CenterCrop(8)", "--x").ok());
  EXPECT_FALSE(ParseTransformList("[CenterCrop(8)] x", "--x").ok());
}

// Floats print as Python's repr does, and read back as the same double.
TEST(TransformList, FloatsPrintShortestAndReadBack) {
  EXPECT_EQ(FormatFloat(1.0), "1.0");
  EXPECT_EQ(FormatFloat(0.1), "0.1");
  EXPECT_EQ(FormatFloat(4.0 / 3.0), "1.3333333333333333");
  EXPECT_EQ(FormatFloat(1e-5), "1e-05");
  EXPECT_EQ(FormatFloat(-2.5e20), "-2.5e+20");
  EXPECT_EQ(FormatArg(ArgValue::Tuple({ArgValue::Int(3)})), "(3,)");
  for (const double v : {0.1, 1.0 / 3, 0.48500001430511475, 1e-300, 6.02e23,
                         -0.0, 123456789.125, 5e-324}) {
    const std::string text = FormatFloat(v);
    absl::StatusOr<ArgValue> back = ParseArgValue(text);
    ASSERT_TRUE(back.ok()) << text << ": " << back.status();
    EXPECT_EQ(back->number, v) << text;
    EXPECT_EQ(std::signbit(back->number), std::signbit(v)) << text;
  }
}

TEST(TransformList, ErrorsNameTheCharacterAndTheOp) {
  const struct {
    const char* text;
    const char* needle;
  } cases[] = {
      {"RandomResizedCrop(176",
       "list: character 22 (in RandomResizedCrop, "
       "position 0): expected ',' or ')' after an "
       "argument"},
      {"Resize(232) CenterCrop(224)",
       "list: character 13: expected ',' between ops after Resize "
       "(position 0)"},
      {"Resize(232), RandomCrop(9) CenterCrop(224)",
       "list: character 28: expected ',' between ops after RandomCrop "
       "(position 1)"},
      {"[Resize(232) CenterCrop(224)]",
       "list: character 14: expected ',' or ']' after Resize (position 0)"},
      // Characters, not bytes: each "\u00e9" is two bytes of UTF-8.
      {"RandomErasing(value='\u00e9\u00e9\u00e9'), Resize(2))",
       "list: character 38: expected ',' between ops after Resize"},
      // A letter outside ASCII in a name is named as such, where it is.
      {"RandomResizedCr\u00f6p(32)",
       "list: character 16: '\u00f6' is not ASCII: names are made of ASCII "
       "letters, digits and '_', and the list's punctuation is ASCII"},
      {"\u00d6Resize(3)", "list: character 1: '\u00d6' is not ASCII"},
      {"Resize\uff083\uff09", "list: character 7: '\uff08' is not ASCII"},
      {"Resize(3), CenterCrop\u00a0(2)",
       "list: character 22: '\u00a0' is not ASCII"},
      // After a list in brackets or a Compose, nothing more.
      {"[Resize(3)] CenterCrop(2)",
       "list: character 13: unexpected text after the list that ends at "
       "Resize (position 0)"},
      {"Compose([Resize(3), CenterCrop(2)]) x",
       "character 37: unexpected text after the list that ends at CenterCrop "
       "(position 1)"},
      {"[] x", "character 4: unexpected text after the empty list"},
      {"Resize(232), CenterCrop(224, size=(1, 2), 5)",
       "(in CenterCrop, position 1): a positional argument follows a keyword"},
      {"RandomErasing(value='0.5)", "a string is not closed"},
      {"ColorJitter(0.4,, 0.4)",
       "character 17 (in ColorJitter, position 0): "
       "unexpected ','"},
      {"Resize(12abc)", "\"12abc\" is not a number"},
      {"Resize(99999999999999999999)", "is too large for an integer"},
      {"(176)", "expected the name of an op"},
      {"Compose(RandomResizedCrop(1))", "Compose takes a list"},
      {"Resize(-foo)", "\"-foo\" is not a number"},
      {"Resize((1, 2)", "expected ',' or ')'"},
      // A character pasted from a word processor is named whole (a
      // typographic quote, a no-break space), not by its first byte.
      {"Resize(232, interpolation=\u201cbicubic\u201d)", "unexpected '\u201c'"},
      {"RandomResizedCrop(\u00a0176)", "unexpected '\u00a0'"},
      {"Resize(\xff)", "unexpected '\xff'"},
  };
  for (const auto& c : cases) {
    ExpectError(ParseTransformList(c.text, "list").status(),
                StatusCode::kInvalidArgument, c.needle);
  }
}

// A number of thousands of digits is shown by its first 40 and "...".
TEST(TransformList, HugeNumbersAreShownShortened) {
  const std::string huge = "Resize(" + std::string(5000, '9') + ")";
  const absl::Status s = ParseTransformList(huge, "list").status();
  ExpectError(s, StatusCode::kInvalidArgument,
              std::string(40, '9') + "... is too large for an integer");
  EXPECT_LT(s.message().size(), 200u) << s.message().size();
}

// Hostile nesting is refused, not recursed into without bound.
TEST(TransformList, DeepNestingIsRefused) {
  std::string deep = "Op(";
  for (int i = 0; i < 1000; ++i) deep += "(";
  ExpectError(ParseTransformList(deep, "list").status(),
              StatusCode::kInvalidArgument, "nested too deeply");
  std::string calls;
  for (int i = 0; i < 1000; ++i) calls += "A(";
  ExpectError(ParseTransformList(calls, "list").status(),
              StatusCode::kInvalidArgument, "nested too deeply");
}

}  // namespace
}  // namespace fusednorm
