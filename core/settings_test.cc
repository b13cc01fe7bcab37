// Settings: every type parses its text, every bad value is an error naming
// the setting as the user wrote it and the value; defaults and interface
// overrides; flag and keyword styles.
#include "core/settings.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace fusednorm {
namespace {

const Setting kFlag{"decode_scale", SettingType::kBool, "false", "b"};
const Setting kCount{"batch_size", SettingType::kInt, "64", "n", {}, 1, 100};
const Setting kSeed{"seed", SettingType::kUint64, "0", "s"};
const Setting kP{"erase_p", SettingType::kFloat, "0.5", "p", {}, 0, 1};
const Setting kMean{
    "mean", SettingType::kFloats, "", "m", {}, -kNoLimit, kNoLimit, 1, 4};
const Setting kMode{
    "mode", SettingType::kChoice, "fast", "c", {"fast", "exact"}};
const Setting kSize{"size", SettingType::kSize, "224", "z", {}, 1, 4096};
const Setting kBytes{"cache_bytes", SettingType::kText, "0", "y"};

SettingValues Values(SettingStyle style = SettingStyle::kKeyword) {
  return SettingValues(
      {&kFlag, &kCount, &kSeed, &kP, &kMean, &kMode, &kSize, &kBytes}, style);
}

void ExpectError(const absl::Status& s, const std::string& needle) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(std::string(s.message()).find(needle), std::string::npos)
      << s.message() << "\nshould contain: " << needle;
}

TEST(Settings, DefaultsAndGivenValues) {
  SettingValues v = Values();
  EXPECT_FALSE(*v.Bool(kFlag));
  EXPECT_EQ(*v.Int(kCount), 64);
  EXPECT_EQ(*v.Float(kP), 0.5);
  EXPECT_EQ(*v.Choice(kMode), "fast");
  EXPECT_EQ(v.Size(kSize)->height, 224);
  EXPECT_FALSE(v.Given(kMean));
  v.Set(kFlag, "true");
  v.Set(kCount, "7");
  v.Set(kSeed, "18446744073709551615");
  v.Set(kP, "0.25");
  v.Set(kMean, "0.5,0.25,1");
  v.Set(kMode, "exact");
  v.Set(kSize, "32,48");
  EXPECT_TRUE(*v.Bool(kFlag));
  EXPECT_EQ(*v.Int(kCount), 7);
  EXPECT_EQ(*v.Uint64(kSeed), ~uint64_t{0});
  EXPECT_EQ(*v.Float(kP), 0.25);
  EXPECT_EQ(*v.Floats(kMean), (std::vector<double>{0.5, 0.25, 1}));
  EXPECT_EQ(*v.Choice(kMode), "exact");
  EXPECT_EQ(v.Size(kSize)->height, 32);
  EXPECT_EQ(v.Size(kSize)->width, 48);
}

TEST(Settings, BadValuesNameTheSettingAndValue) {
  SettingValues v = Values();
  v.Set(kCount, "0");
  // Values as the Python user wrote them; integer ranges as integers.
  ExpectError(v.Int(kCount).status(), "batch_size = 0: must be in 1..100");
  {
    const Setting big{"batch_size", SettingType::kInt, "64", "n", {}, 1,
                      16777216};
    SettingValues b({&big}, SettingStyle::kKeyword);
    b.Set(big, "0");
    ExpectError(b.Int(big).status(), "batch_size = 0: must be in 1..16777216");
  }
  v.Set(kCount, "1e3");
  ExpectError(v.Int(kCount).status(), "is not an integer");
  v.Set(kSeed, "-1");
  ExpectError(v.Uint64(kSeed).status(), "seed = -1");
  v.Set(kSeed, "18446744073709551616");  // 2^64
  ExpectError(v.Uint64(kSeed).status(), "0..2^64-1");
  for (const char* bad : {"nan", "-0.1", "1.5", "inf", ""}) {
    v.Set(kP, bad);
    ExpectError(v.Float(kP).status(), "erase_p");
  }
  for (const auto& [bad, said] :
       std::vector<std::pair<const char*, const char*>>{
           {"", "mean = (): needs 1 to 4 values"},  // Python's mean=[]
           {"1,2,3,4,5", "mean = (1, 2, 3, 4, 5): needs 1 to 4 values"},
           {"1,,2", "mean = (1, , 2): \"\" is not a finite number"},
           {"1,x", "\"x\" is not a finite number"}}) {
    v.Set(kMean, bad);
    ExpectError(v.Floats(kMean).status(), said);
  }
  v.Set(kMode, "Exact");
  ExpectError(v.Choice(kMode).status(), "is not one of fast, exact");
  v.Set(kSize, "0");
  ExpectError(v.Size(kSize).status(), "sides must be in 1..4096");
  v.Set(kSize, "1,2,3");
  ExpectError(v.Size(kSize).status(), "is not N or H,W");
  // Digits past int64 are a side out of range, not "not N or H,W".
  for (const char* big : {"99999999999999999999", "3,99999999999999999999"}) {
    v.Set(kSize, big);
    ExpectError(v.Size(kSize).status(), "sides must be in 1..4096");
  }
  // A byte count too large is said so, apart from text that is none.
  for (const auto& [bad, said] :
       std::vector<std::pair<const char*, const char*>>{
           {"1048577G", "must be at most 1048576G (2^50 bytes)"},
           {"9223372036854775807", "must be at most 1048576G"},
           {"18446744073709551616", "must be at most 1048576G"},
           {"-5", "is not a size like 1G, 500M or 4096"},
           {"8E", "is not a size like 1G, 500M or 4096"},
           {"", "is not a size like 1G, 500M or 4096"}}) {
    v.Set(kBytes, bad);
    ExpectError(v.Bytes(kBytes).status(), said);
  }
  for (const auto& [good, bytes] :
       std::vector<std::pair<const char*, uint64_t>>{
           {"1048576G", uint64_t{1} << 50}, {" 7M", 7 << 20}, {"4096", 4096}}) {
    v.Set(kBytes, good);
    EXPECT_EQ(v.Bytes(kBytes).value_or(0), bytes) << good;
  }
  v.Set(kFlag, "yes");
  ExpectError(v.Bool(kFlag).status(), "is not true or false");
}

TEST(Settings, FlagStyleAndOverriddenDefaults) {
  SettingValues flags = Values(SettingStyle::kFlag);
  flags.Set(kCount, "101");
  ExpectError(flags.Int(kCount).status(),
              "--batch-size=101: must be in 1..100");
  Setting other = kP;
  other.default_value = "0";
  const SettingValues v({&other}, SettingStyle::kKeyword);
  EXPECT_EQ(*v.Float(kP), 0.0) << "the accepted row's default wins";
  EXPECT_EQ(v.Find("erase_p"), &other);
  EXPECT_EQ(v.Find("batch_size"), nullptr);
}

// A choice that was a bool: true and false stay accepted, as aliases.
Setting PinRow() {
  Setting s{
      "pinned", SettingType::kChoice, "none", "p", {"none", "mlock", "cuda"}};
  s.aliases = {{"false", "none"}, {"true", "mlock"}};
  return s;
}

enum class Pin { kNone, kMlock, kCuda };
constexpr Named<Pin> kPinNames[] = {
    {Pin::kNone, "none"}, {Pin::kMlock, "mlock"}, {Pin::kCuda, "cuda"}};

TEST(Settings, ChoiceAliases) {
  const Setting pin = PinRow();
  SettingValues v({&pin}, SettingStyle::kKeyword);
  EXPECT_EQ(*v.Choice(pin), "none");
  const std::pair<const char*, Pin> cases[] = {{"true", Pin::kMlock},
                                               {"false", Pin::kNone},
                                               {"mlock", Pin::kMlock},
                                               {"cuda", Pin::kCuda}};
  for (const auto& [text, value] : cases) {
    v.Set(pin, text);
    EXPECT_EQ(*v.Enum(pin, absl::MakeConstSpan(kPinNames)), value) << text;
    EXPECT_EQ(*v.Choice(pin), NameOf(absl::MakeConstSpan(kPinNames), value));
  }
  v.Set(pin, "TRUE");
  ExpectError(v.Choice(pin).status(),
              "pinned = \"TRUE\": is not one of none, mlock, cuda");
  EXPECT_FALSE(v.Enum(pin, absl::MakeConstSpan(kPinNames)).ok());
  EXPECT_TRUE(TakesBool(pin));
  EXPECT_TRUE(TakesBool(kFlag));
  EXPECT_FALSE(TakesBool(kMode));
  Setting half = pin;
  half.aliases = {{"true", "mlock"}};
  EXPECT_FALSE(TakesBool(half)) << "a bool needs both spellings";
  EXPECT_NE(SettingHelp(pin, SettingStyle::kFlag)
                .find("--pinned none|mlock|cuda (default none) (also false "
                      "= none, true = mlock)"),
            std::string::npos)
      << SettingHelp(pin, SettingStyle::kFlag);
}

}  // namespace
}  // namespace fusednorm
