// ShortestDouble and the doubles of InvalidArgumentCat's messages: every
// digit a value needs, no more, with a point whatever the locale.
#include "core/status.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace fusednorm {
namespace {

TEST(Status, ShortestDouble) {
  EXPECT_EQ(ShortestDouble(1.0000001), "1.0000001");
  EXPECT_EQ(ShortestDouble(0.5), "0.5");
  EXPECT_EQ(ShortestDouble(0.1), "0.1");
  EXPECT_EQ(ShortestDouble(2.0), "2");
  EXPECT_EQ(ShortestDouble(0.0), "0");
  EXPECT_EQ(ShortestDouble(-0.0), "-0");
  EXPECT_EQ(ShortestDouble(200.0), "200");
  EXPECT_EQ(ShortestDouble(-90.0), "-90");
  EXPECT_EQ(ShortestDouble(2.5e3), "2500");
  EXPECT_EQ(ShortestDouble(1e15), "1000000000000000");
  EXPECT_EQ(ShortestDouble(1e16), "1e+16");
  EXPECT_EQ(ShortestDouble(-9223372036854775808.0), "-9.223372036854776e+18");
  EXPECT_EQ(ShortestDouble(1e39), "1e+39");
  EXPECT_EQ(ShortestDouble(1e-7), "1e-07");
  EXPECT_EQ(ShortestDouble(16777216.0), "16777216");
  EXPECT_EQ(ShortestDouble(std::numeric_limits<float>::max()),
            "3.4028234663852886e+38");
  EXPECT_EQ(ShortestDouble(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(ShortestDouble(std::nan("")), "nan");
  EXPECT_EQ(ShortestDouble(-INFINITY), "-inf");
}

TEST(Status, ShortestDigits) {
  int exponent = 99;
  EXPECT_EQ(ShortestDigits(1.0000001, &exponent), 8);
  EXPECT_EQ(exponent, 0);
  EXPECT_EQ(ShortestDigits(300.0, &exponent), 1);
  EXPECT_EQ(exponent, 2);
  EXPECT_EQ(ShortestDigits(-3.3, &exponent), 2);
  EXPECT_EQ(exponent, 0);
  EXPECT_EQ(ShortestDigits(1.5e-7, &exponent), 2);
  EXPECT_EQ(exponent, -7);
  EXPECT_EQ(ShortestDigits(1.0 / 3, &exponent), 16);
  EXPECT_EQ(exponent, -1);
}

TEST(Status, InvalidArgumentCatShowsDoublesInFull) {
  EXPECT_EQ(InvalidArgumentCat("p = ", 1.0000001, ", q = ", 0.5f, ", n = ", 7,
                               ", ", 1.0 / 3)
                .message(),
            "p = 1.0000001, q = 0.5, n = 7, 0.3333333333333333");
}

}  // namespace
}  // namespace fusednorm
