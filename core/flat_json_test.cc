#include "core/flat_json.h"

#include <string>

#include "gtest/gtest.h"

namespace fusednorm {
namespace {

TEST(FlatJsonTest, RoundTripsAndReadsWhatPythonWrites) {
  const std::string text = WriteFlatJson(
      {{"epoch", uint64_t{3}}, {"seed", ~uint64_t{0}}, {"split", "train"}});
  EXPECT_EQ(text,
            "{\"epoch\": 3, \"seed\": 18446744073709551615, \"split\": "
            "\"train\"}");
  auto read = ReadFlatJson(text, "state");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(std::get<uint64_t>(read->at("epoch")), 3u);
  EXPECT_EQ(std::get<uint64_t>(read->at("seed")), ~uint64_t{0});
  EXPECT_EQ(std::get<std::string>(read->at("split")), "train");
  // json.dumps(..., indent=2, sort_keys=True) and the empty object.
  auto pretty = ReadFlatJson("{\n  \"a\": 0,\n  \"b\": \"\"\n}\n", "s");
  ASSERT_TRUE(pretty.ok()) << pretty.status();
  EXPECT_EQ(pretty->size(), 2u);
  EXPECT_TRUE(ReadFlatJson(" {} ", "s").ok());
}

// The strings the object holds, as IsFlatJsonText tells them.
TEST(FlatJsonTest, TextIsPlainAscii) {
  EXPECT_TRUE(IsFlatJsonText(""));
  EXPECT_TRUE(IsFlatJsonText("Resize(size=(8, 8)) -> padding_mode='edge' ~"));
  for (const char* bad : {"a\"b", "a\\b", "tab\there", "n\xc3\xa4me", "\x7f"})
    EXPECT_FALSE(IsFlatJsonText(bad)) << bad;
}

TEST(FlatJsonTest, ValueErrorsNameTheKey) {
  for (const char* bad : {"{\"batches\": 3.0}", "{\"batches\": 1e3}",
                          "{\"batches\": -1}", "{\"batches\": true}"}) {
    const auto read = ReadFlatJson(bad, "state");
    EXPECT_NE(read.status().message().find(
                  "a string or a non-negative integer (no sign, fraction, "
                  "exponent or leading zero) for \"batches\""),
              std::string::npos)
        << read.status();
  }
  EXPECT_FALSE(ReadFlatJson("{\"a\":\v1}", "state").ok());
  EXPECT_NE(ReadFlatJson("{\"split\": \"tr\xc3\xa9\"}", "state")
                .status()
                .message()
                .find("in the string for \"split\""),
            std::string::npos);
}

TEST(FlatJsonTest, RefusesEverythingElseNamingTheByte) {
  for (const char* bad : {"",
                          "{",
                          "{\"a\": 1",
                          "{\"a\": 1,}",
                          "{\"a\" 1}",
                          "{\"a\": -1}",
                          "{\"a\": 1.5}",
                          "{\"a\": 1e3}",
                          "{\"a\": 01}",
                          "{\"a\": true}",
                          "{\"a\": null}",
                          "{\"a\": [1]}",
                          "{\"a\": {}}",
                          "{\"a\": \"x\\\"\"}",
                          "{\"a\": \"\xc3\xa9\"}",
                          "{\"a\": 1} x",
                          "{\"a\": 1, \"a\": 2}",
                          "{\"a\": 18446744073709551616}",
                          "[1]",
                          "{a: 1}"}) {
    const auto read = ReadFlatJson(bad, "state.json");
    EXPECT_FALSE(read.ok()) << bad;
    EXPECT_NE(read.status().message().find("state.json: not a flat JSON "
                                           "object of numbers and strings: at "
                                           "byte "),
              std::string::npos)
        << read.status();
  }
  EXPECT_NE(ReadFlatJson("{\"a\": 1, \"a\": 2}", "s")
                .status()
                .message()
                .find("each key once, not \"a\" twice"),
            std::string::npos);
}

}  // namespace
}  // namespace fusednorm
