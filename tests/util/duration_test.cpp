// Durations as reports print them and as the --timeout flags become timeouts (util/duration.h),
// and the three significant digits both tables use (util/significant_digits.h).
#include <gtest/gtest.h>

#include "util/duration.h"
#include "util/significant_digits.h"

namespace opcert {
namespace {

TEST(Duration, KeepsThreeSignificantDigitsInAReadableUnit) {
  EXPECT_EQ(format_duration(812e-9), "812 ns");
  EXPECT_EQ(format_duration(12.4e-6), "12.4 us");
  EXPECT_EQ(format_duration(3.214e-3), "3.21 ms");
  EXPECT_EQ(format_duration(1.05), "1.05 s");
}

TEST(Duration, ATimeoutInSecondsBecomesWholeMillisecondsRoundedUp) {
  EXPECT_EQ(milliseconds_from_seconds(60.0).count(), 60000);
  EXPECT_EQ(milliseconds_from_seconds(0.0), std::chrono::milliseconds(0));
  EXPECT_EQ(milliseconds_from_seconds(0.0001).count(), 1);  // never shorter than asked
  EXPECT_EQ(milliseconds_from_seconds(1.2345).count(), 1235);
}

TEST(SignificantDigits, ThreeWithoutAnExponentDownToAThousandth) {
  EXPECT_EQ(three_digits(812.4), "812");
  EXPECT_EQ(three_digits(12.44), "12.4");
  EXPECT_EQ(three_digits(3.214), "3.21");
  EXPECT_EQ(three_digits(0), "0.00");
  EXPECT_EQ(three_digits(0.0054), "0.005");
  EXPECT_EQ(three_digits(0.00012), "1.20e-04");
}

}  // namespace
}  // namespace opcert
