// The list ops. RandomApply: how often it applies, that its transforms'
// decisions are theirs drawn after its own, that applied it is its
// transforms in turn (a list op among them keeping its own buffers) and not
// applied the input, and the refusals that keep a batch's samples one size
// and channel count. RandomChoice: its picks' frequencies, the chosen
// transform's pixels, its size rule. RandomOrder: every order as often,
// the transforms in that order, its size rule. Decisions of all three go
// to fields and back, and bad ones are named.
#include "ops/composites.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "ops/op_table.h"
#include "testing/expect_error.h"
#include "testing/make_op.h"

namespace fusednorm {
namespace {

Image Noise(int64_t h, int64_t w, int c, uint32_t seed) {
  Image im{h, w, c, std::vector<uint8_t>(h * w * c)};
  std::mt19937 rng(seed);
  for (uint8_t& p : im.pixels) p = static_cast<uint8_t>(rng() >> 24);
  return im;
}

// The output is poisoned first: a stale size and bytes must not survive.
Image ApplyTo(const PreprocessOp& op, const Image& in, const OpDecision& d,
              OpWorkspace* ws) {
  Image out = Noise(3, 5, 2, 99);
  const absl::Status s = op.Apply(in.view(), d, ws, &out);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

std::string Fields(const PreprocessOp& op, const OpDecision& d) {
  std::string out;
  for (const NamedArg& f : op.DecisionFields(d))
    out += f.name + "=" + FormatArg(f.value) + ";";
  return out;
}

TEST(RandomApply, AppliesWithProbabilityP) {
  for (const double p : {0.0, 0.3, 0.8, 1.0}) {
    auto op =
        MakeOp("RandomApply([ColorJitter(0.4)], p=" + std::to_string(p) + ")");
    int applied = 0;
    const int n = 20000;
    for (int i = 0; i < n; ++i) {
      SampleStream stream(5, 1, i);
      applied += op->Decide({16, 16}, stream).apply;
    }
    // Four standard deviations of a binomial count.
    const double sd = std::sqrt(n * p * (1 - p));
    EXPECT_NEAR(applied, n * p, 4 * sd + 0.5) << "p = " << p;
  }
}

TEST(RandomApply, TransformsDrawTheirOwnAfterTheCoin) {
  auto op = MakeOp(
      "RandomApply([ColorJitter(0.4, 0.3, 0.2, 0.1), "
      "RandomSolarize(100)], p=0.6)");
  auto jitter = MakeOp("ColorJitter(0.4, 0.3, 0.2, 0.1)");
  auto solarize = MakeOp("RandomSolarize(100)");
  int applied = 0;
  for (uint64_t i = 0; i < 200; ++i) {
    SampleStream stream(9, 2, i), mine(9, 2, i);
    const OpDecision d = op->Decide({20, 30}, stream);
    EXPECT_EQ(d.apply, !(0.6f < mine.Uniform()));
    if (!d.apply) {
      EXPECT_TRUE(d.runs.empty());
      // Nothing else drawn: the next op's draws start right after.
      EXPECT_EQ(stream.Uniform(), mine.Uniform());
      continue;
    }
    ++applied;
    ASSERT_EQ(d.inner.size(), 2u);
    EXPECT_EQ(Fields(*jitter, d.inner[0]),
              Fields(*jitter, jitter->Decide({20, 30}, mine)));
    EXPECT_EQ(Fields(*solarize, d.inner[1]),
              Fields(*solarize, solarize->Decide({20, 30}, mine)));
  }
  EXPECT_GT(applied, 80);
  EXPECT_LT(applied, 160);
}

// Applied, the output is the transforms run one after another with their
// decisions, each on an image and a workspace of its own; not applied, the
// input.
Image OneByOne(const std::string& items, const Image& in, const OpDecision& d) {
  auto ops = MakeTransforms(items, "list", OpContext());
  EXPECT_TRUE(ops.ok()) << ops.status();
  Image now = in;
  for (size_t k = 0; k < ops->size(); ++k) {
    OpWorkspace ws;
    Image next;
    EXPECT_TRUE((*ops)[k]->Apply(now.view(), d.inner[k], &ws, &next).ok());
    now = std::move(next);
  }
  return now;
}

TEST(RandomApply, IsItsTransformsInTurnOrNothing) {
  const char* lists[] = {
      "ColorJitter(0.4, 0.4, 0.4, 0.1)",
      "TrivialAugmentWide(), ColorJitter(0.5, 0.5), RandomInvert(0.5)",
      // The inner RandomApply's flip reads its input while it writes: the
      // two must not share the outer one's images between transforms.
      "RandAugment(num_ops=3), RandomApply([RandomVerticalFlip(1.0), "
      "AutoAugment(), RandomGrayscale(0.5)], p=0.7), RandomVerticalFlip()",
  };
  for (const char* list : lists) {
    SCOPED_TRACE(list);
    auto op = MakeOp(std::string("RandomApply([") + list + "], p=0.5)");
    OpWorkspace ws;
    int applied = 0;
    for (const int c : {1, 3}) {
      for (uint64_t i = 0; i < 16; ++i) {
        const Image in = Noise(23 + i, 31, c, i);
        SampleStream stream(1, 0, i);
        const OpDecision d = op->Decide({in.height, in.width}, stream);
        const Image out = ApplyTo(*op, in, d, &ws);
        if (!d.apply) {
          EXPECT_TRUE(op->Skips(d));
          EXPECT_EQ(out.pixels, in.pixels);
          continue;
        }
        ++applied;
        EXPECT_EQ(OneByOne(list, in, d).pixels, out.pixels);
        ASSERT_FALSE(::testing::Test::HasFailure());
      }
    }
    EXPECT_GT(applied, 8);
  }
}

TEST(RandomApply, OneTransformIsThatTransform) {
  auto op = MakeOp("RandomApply([ColorJitter(0.4, 0.4, 0.4, 0.1)], p=1.0)");
  auto jitter = MakeOp("ColorJitter(0.4, 0.4, 0.4, 0.1)");
  OpWorkspace ws;
  for (uint64_t i = 0; i < 10; ++i) {
    const Image in = Noise(17, 13, 3, 40 + i);
    SampleStream stream(3, 3, i);
    const OpDecision d = op->Decide({17, 13}, stream);
    ASSERT_TRUE(d.apply);
    EXPECT_EQ(ApplyTo(*op, in, d, &ws).pixels,
              ApplyTo(*jitter, in, d.inner[0], &ws).pixels);
  }
}

TEST(RandomApply, KeepsChannelsOrRefusesThem) {
  auto gray1 = MakeOp("RandomApply([Grayscale()])");
  ExpectError(gray1->OutputChannels(3).status(),
              absl::StatusCode::kInvalidArgument,
              "RandomApply transforms[0] (Grayscale(num_output_channels=1)): "
              "makes 1-channel images of 3-channel ones");
  EXPECT_EQ(*gray1->OutputChannels(1), 1);
  OpDecision d;
  d.runs = {0, 1};
  d.inner.push_back({});
  OpWorkspace ws;
  Image out;
  const Image rgb = Noise(4, 4, 3, 1);
  ExpectError(gray1->Apply(rgb.view(), d, &ws, &out),
              absl::StatusCode::kInvalidArgument, "makes 1-channel images");
  // A decision with the wrong count of transforms' decisions.
  auto two = MakeOp("RandomApply([ColorJitter(0.1), RandomInvert()])");
  ExpectError(two->Apply(rgb.view(), d, &ws, &out),
              absl::StatusCode::kInvalidArgument,
              "holds 1 transforms' decisions for 2 transforms");
}

// Each sample's size is its draw's; where every draw makes one size of
// the input (CIFAR's RandomCrop(32, padding=4) on 32x32 images) the op
// tells it, else OutputSize says it depends on the draw.
TEST(RandomApply, ItsSizeIsItsDraws) {
  auto op = MakeOp("RandomApply([RandomCrop(32, padding=4)], p=0.5)");
  auto crop = MakeOp("RandomCrop(32, padding=4)");
  EXPECT_FALSE(op->KeepsSize());
  EXPECT_TRUE(op->SizeDependsOnDecision());
  EXPECT_EQ((*op->SizeOfEveryDraw({32, 32}))->width, 32);
  EXPECT_FALSE(op->SizeOfEveryDraw({40, 32})->has_value());
  ExpectError(op->OutputSize({40, 32}).status(),
              absl::StatusCode::kInvalidArgument,
              "RandomApply: the size it makes of 40x32 images depends on its "
              "draw");
  auto resize = MakeOp("RandomApply([Resize(64), CenterCrop(32)])");
  EXPECT_TRUE(resize->OutputSize({32, 32}).ok());
  EXPECT_FALSE(resize->SizeOfEveryDraw({40, 30})->has_value());
  OpWorkspace ws;
  int applied = 0;
  for (uint64_t i = 0; i < 20; ++i) {
    const Image in = Noise(40, 40, 3, i);
    SampleStream stream(2, 0, i);
    const OpDecision d = op->Decide({40, 40}, stream);
    const Image out = ApplyTo(*op, in, d, &ws);
    const Size2 size = *op->DecidedOutputSize({40, 40}, d);
    EXPECT_EQ(out.height, size.height);
    EXPECT_EQ(out.width, size.width);
    if (!d.apply) {
      EXPECT_EQ(out.pixels, in.pixels);
      continue;
    }
    ++applied;
    EXPECT_EQ(size.height, 32);
    EXPECT_EQ(out.pixels, ApplyTo(*crop, in, d.inner[0], &ws).pixels);
    auto back = op->DecisionFromFields(op->DecisionFields(d), {40, 40});
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(Fields(*op, *back), Fields(*op, d));
  }
  EXPECT_GT(applied, 4);
}

TEST(RandomApply, CommutesWithAFlipOnlyIfAllItsTransformsDo) {
  EXPECT_TRUE(MakeOp("RandomApply([ColorJitter(0.1), RandomInvert()])")
                  ->CommutesWithHorizontalFlip());
  EXPECT_FALSE(MakeOp("RandomApply([ColorJitter(0.1), RandomRotation(10)])")
                   ->CommutesWithHorizontalFlip());
}

TEST(RandomApply, DecisionFieldsNestAndAreChecked) {
  auto op = MakeOp("RandomApply([ColorJitter(0.4), RandomInvert()], p=1.0)");
  SampleStream stream(1, 1, 1);
  const OpDecision d = op->Decide({9, 9}, stream);
  const std::vector<NamedArg> fields = op->DecisionFields(d);
  ASSERT_EQ(fields.size(), 2u);
  EXPECT_EQ(FormatArg(fields[1].value).find("(ColorJitter(order=("), 0u)
      << FormatArg(fields[1].value);
  absl::StatusOr<OpDecision> back = op->DecisionFromFields(fields, {9, 9});
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(Fields(*op, *back), Fields(*op, d));
  // Applied without the transforms' decisions; a wrong count; a bad one
  // inside, named by its place; a bad one given for a sample not applied.
  std::vector<NamedArg> bad = {{"apply", ArgValue::Bool(true)}};
  ExpectError(op->DecisionFromFields(bad, {9, 9}).status(),
              absl::StatusCode::kInvalidArgument,
              "RandomApply decision transforms[0]: missing, but transform 0 "
              "runs");
  bad.push_back({"transforms", ArgValue::Tuple({fields[1].value.items[0]})});
  ExpectError(op->DecisionFromFields(bad, {9, 9}).status(),
              absl::StatusCode::kInvalidArgument, "is not a list of 2");
  std::vector<NamedArg> inner = fields;
  inner[1].value.items[1] = ArgValue::Int(3);
  ExpectError(op->DecisionFromFields(inner, {9, 9}).status(),
              absl::StatusCode::kInvalidArgument,
              "RandomApply decision transforms[1]: 3 is not a decisions dict");
  inner = fields;
  inner[0].value = ArgValue::Bool(false);
  auto call = std::make_shared<OpCall>(*inner[1].value.items[1].call);
  call->args[0].value = ArgValue::Int(1);  // invert: not True or False
  inner[1].value.items[1].call = call;
  ExpectError(op->DecisionFromFields(inner, {9, 9}).status(),
              absl::StatusCode::kInvalidArgument,
              "RandomApply decision transforms[1]: RandomInvert decision");
  // Not applied: the transforms may be None or absent.
  auto off = op->DecisionFromFields({{"apply", ArgValue::Bool(false)}}, {9, 9});
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_TRUE(op->Skips(*off));
}

TEST(RandomChoice, PicksWithItsProbabilities) {
  const struct {
    const char* p;
    double first;  // the first transform's share
  } cases[] = {
      {"None", 0.5}, {"[1, 3]", 0.25}, {"[0, 2]", 0.0}, {"[0.5, 0.5]", 0.5}};
  for (const auto& c : cases) {
    auto op = MakeOp(std::string("RandomChoice([ColorJitter(0.4), "
                                 "RandomInvert(1.0)], p=") +
                     c.p + ")");
    const int n = 20000;
    int first = 0;
    for (int i = 0; i < n; ++i) {
      SampleStream stream(4, 0, i);
      const OpDecision d = op->Decide({8, 8}, stream);
      ASSERT_EQ(d.runs.size(), 1u);
      first += d.runs[0] == 0;
    }
    const double sd = std::sqrt(n * c.first * (1 - c.first));
    EXPECT_NEAR(first, n * c.first, 4 * sd + 0.5) << c.p;
  }
}

TEST(RandomChoice, IsTheChosenTransform) {
  const char* items =
      "ColorJitter(0.4, 0.4, 0.4, 0.1), RandomSolarize(90, p=1.0), "
      "RandAugment()";
  auto op = MakeOp(std::string("RandomChoice([") + items + "])");
  auto ops = MakeTransforms(items, "list", OpContext());
  ASSERT_TRUE(ops.ok());
  OpWorkspace ws;
  int seen[3] = {0, 0, 0};
  for (uint64_t i = 0; i < 30; ++i) {
    const Image in = Noise(19, 26, 3, 70 + i);
    SampleStream stream(8, 1, i), mine(8, 1, i);
    const OpDecision d = op->Decide({19, 26}, stream);
    ASSERT_EQ(d.runs.size(), 1u);
    const int k = d.runs[0];
    ++seen[k];
    // The pick, then the chosen transform's own draws.
    EXPECT_EQ(k, mine.UniformInt(0, 2));
    const PreprocessOp& chosen = *(*ops)[k];
    EXPECT_EQ(Fields(chosen, d.inner[k]),
              Fields(chosen, chosen.Decide({19, 26}, mine)));
    OpWorkspace fresh;
    EXPECT_EQ(ApplyTo(*op, in, d, &ws).pixels,
              ApplyTo(chosen, in, d.inner[k], &fresh).pixels);
    auto back = op->DecisionFromFields(op->DecisionFields(d), {19, 26});
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(Fields(*op, *back), Fields(*op, d));
  }
  EXPECT_GT(seen[0] * seen[1] * seen[2], 0);
}

TEST(RandomChoice, ItsSizeIsTheChosenTransforms) {
  auto same = MakeOp("RandomChoice([RandomResizedCrop(32), Resize((32, 32))])");
  ASSERT_TRUE(same->FixedOutputSize().has_value());
  EXPECT_EQ(same->FixedOutputSize()->height, 32);
  EXPECT_EQ(same->OutputSize({50, 70})->width, 32);
  auto differ = MakeOp("RandomChoice([CenterCrop(32), Resize(40)])");
  EXPECT_FALSE(differ->FixedOutputSize().has_value());
  EXPECT_FALSE(differ->SizeOfEveryDraw({64, 64})->has_value());
  ExpectError(differ->OutputSize({64, 64}).status(),
              absl::StatusCode::kInvalidArgument,
              "RandomChoice: the size it makes of 64x64 images depends on its "
              "draw");
  for (uint64_t i = 0; i < 10; ++i) {
    SampleStream stream(1, 1, i);
    const OpDecision d = differ->Decide({64, 64}, stream);
    EXPECT_EQ(differ->DecidedOutputSize({64, 64}, d)->height,
              d.runs[0] == 0 ? 32 : 40);
  }
  // The same sizes of this input: one size.
  auto here = MakeOp("RandomChoice([CenterCrop(40), Resize(40)])");
  EXPECT_EQ(here->OutputSize({40, 40})->height, 40);
}

TEST(RandomChoice, RefusesBadListsAndDecisions) {
  for (const auto& [text, needle] :
       std::vector<std::pair<std::string, std::string>>{
           {"RandomChoice([])", "RandomChoice transforms: the list is empty"},
           {"RandomChoice([ColorJitter(0.1)], p=[1, 2])",
            "RandomChoice p has 2 probabilities for 1 transforms"},
           {"RandomChoice([ColorJitter(0.1)], p=[-1])",
            "RandomChoice p: -1 must be finite and >= 0"},
           {"RandomChoice([MixUp()])",
            "RandomChoice transforms[0] (MixUp): MixUp is not a per-sample "
            "transform"},
           {"RandomChoice([ColorJitter(0.1), RandomErasing()])",
            "RandomChoice transforms[1] (RandomErasing("}}) {
    ExpectError(MakeTransforms(text, "list", OpContext()).status(),
                absl::StatusCode::kInvalidArgument, needle);
  }
  auto op = MakeOp("RandomChoice([ColorJitter(0.1), RandomInvert()])");
  ExpectError(
      op->DecisionFromFields({{"choice", ArgValue::Int(2)}}, {8, 8}).status(),
      absl::StatusCode::kInvalidArgument,
      "RandomChoice decision choice: 2 is not an index in 0..1");
  ExpectError(
      op->DecisionFromFields({{"choice", ArgValue::Int(1)}}, {8, 8}).status(),
      absl::StatusCode::kInvalidArgument,
      "RandomChoice decision transforms[1]: missing, but transform 1 "
      "runs");
}

TEST(RandomOrder, EveryOrderAsOftenAndItsTransformsInIt) {
  const char* items =
      "ColorJitter(0.5, 0.5), RandomInvert(1.0), "
      "RandomSolarize(60, p=1.0)";
  auto op = MakeOp(std::string("RandomOrder([") + items + "])");
  std::map<std::vector<int32_t>, int> orders;
  const int n = 12000;
  for (int i = 0; i < n; ++i) {
    SampleStream stream(6, 2, i);
    ++orders[op->Decide({8, 8}, stream).runs];
  }
  ASSERT_EQ(orders.size(), 6u);
  const double sd = std::sqrt(n * (1.0 / 6) * (5.0 / 6));
  for (const auto& [order, count] : orders)
    EXPECT_NEAR(count, n / 6.0, 4 * sd) << order[0] << order[1] << order[2];
  auto ops = MakeTransforms(items, "list", OpContext());
  ASSERT_TRUE(ops.ok());
  OpWorkspace ws;
  for (uint64_t i = 0; i < 12; ++i) {
    const Image in = Noise(21, 17, 3, 90 + i);
    SampleStream stream(6, 2, i);
    const OpDecision d = op->Decide({21, 17}, stream);
    Image now = in;
    for (const int32_t k : d.runs) {
      OpWorkspace fresh;
      Image next;
      ASSERT_TRUE((*ops)[k]->Apply(now.view(), d.inner[k], &fresh, &next).ok());
      now = std::move(next);
    }
    EXPECT_EQ(ApplyTo(*op, in, d, &ws).pixels, now.pixels);
    auto back = op->DecisionFromFields(op->DecisionFields(d), {21, 17});
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(Fields(*op, *back), Fields(*op, d));
  }
}

TEST(RandomOrder, RefusesSizesAndBadOrders) {
  auto op =
      MakeOp("RandomOrder([ColorJitter(0.1), RandomCrop(32, padding=4)])");
  EXPECT_TRUE(op->OutputSize({32, 32}).ok());
  ExpectError(op->OutputSize({40, 40}).status(),
              absl::StatusCode::kInvalidArgument,
              "RandomOrder: the size it makes of 40x40 images depends on its "
              "draw");
  for (const auto& order :
       {ArgValue::Tuple({ArgValue::Int(0), ArgValue::Int(0)}),
        ArgValue::Tuple({ArgValue::Int(1)}), ArgValue::Int(1),
        ArgValue::Tuple({ArgValue::Int(1), ArgValue::Int(2)})}) {
    ExpectError(op->DecisionFromFields({{"order", order}}, {32, 32}).status(),
                absl::StatusCode::kInvalidArgument,
                "RandomOrder decision order: " + FormatArg(order) +
                    " is not a permutation of 0..1");
  }
}

// List ops hold list ops at most kMaxListDepth deep, so that every list's
// text reads back (a Loader's list, a pickle); messages name a list op
// inside by its name and show long values by their length.
TEST(ListOps, DepthIsBoundedAndMessagesStayShort) {
  auto nest = [](int depth) {
    std::string text = "RandomInvert()";
    for (int i = 0; i < depth; ++i)
      text = "RandomApply([ColorJitter((0.5, 1.5)), " + text + "], p=1.0)";
    return text;
  };
  auto deepest = MakeOp(nest(kMaxListDepth));
  ASSERT_NE(deepest, nullptr);
  auto again = MakeTransforms(deepest->name(), "list", OpContext());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)[0]->name(), deepest->name());
  ExpectError(
      MakeTransforms(nest(kMaxListDepth + 1), "list", OpContext()).status(),
      absl::StatusCode::kInvalidArgument,
      "RandomApply: list ops hold list ops 9 deep; at most 8");
  auto inner = MakeOp("RandomApply([RandomOrder([Grayscale()])])");
  ExpectError(inner->OutputChannels(3).status(),
              absl::StatusCode::kInvalidArgument,
              "RandomApply transforms[0] (RandomOrder): RandomOrder "
              "transforms[0] (Grayscale(num_output_channels=1)): makes "
              "1-channel images of 3-channel ones");
  std::vector<ArgValue> many(100000, ArgValue::None());
  const absl::Status long_list =
      MakeOp("RandomApply([RandomInvert()])")
          ->DecisionFromFields({{"apply", ArgValue::Bool(true)},
                                {"transforms", ArgValue::Tuple(many)}},
                               {8, 8})
          .status();
  ExpectError(long_list, absl::StatusCode::kInvalidArgument,
              "RandomApply decision transforms: a list of 100000 is not a "
              "list of 1 decisions dicts");
  EXPECT_LT(long_list.message().size(), 200u);
}

}  // namespace
}  // namespace fusednorm
