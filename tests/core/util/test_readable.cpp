// The one rule for figures a person reads (core/util/numbers.h): the GUI's charts, tables and
// Compare, the planner and the CLI's text all write numbers, money and durations with it.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/util/numbers.h"

using core::util::readableDuration;
using core::util::readableMoney;
using core::util::readableNumber;

namespace {

bool hasPowerOfTen(const std::string& s) { return s.find("e+") != std::string::npos || s.find("e-") != std::string::npos; }

}  // namespace

TEST(Readable, NumbersGroupThousandsAndNameMillions) {
  EXPECT_EQ(readableNumber(0), "0");
  EXPECT_EQ(readableNumber(0.00123), "0.00123");
  EXPECT_EQ(readableNumber(0.08), "0.08");      // no trailing zeros below 1, as %g
  EXPECT_EQ(readableNumber(0.1234), "0.123");
  EXPECT_EQ(readableNumber(1.234), "1.23");
  EXPECT_EQ(readableNumber(12.34), "12.3");
  EXPECT_EQ(readableNumber(123.4), "123");
  EXPECT_EQ(readableNumber(999.6), "1,000");   // rounds up into the next band, still grouped
  EXPECT_EQ(readableNumber(5930), "5,930");     // the planner once wrote 5.93e+03
  EXPECT_EQ(readableNumber(16834), "16,834");
  EXPECT_EQ(readableNumber(-3000), "-3,000");
  EXPECT_EQ(readableNumber(1.234e6), "1.23 M");
  EXPECT_EQ(readableNumber(4.56e9), "4.56 B");
  EXPECT_EQ(readableNumber(1.5e13), "15.0 T");   // once "1.5e+04 B"
  EXPECT_EQ(readableNumber(1.5e16), "15,000 T");
  EXPECT_EQ(readableNumber(std::numeric_limits<double>::quiet_NaN()), "\u2013");
  EXPECT_EQ(readableNumber(std::numeric_limits<double>::infinity()), "\u2013");
}

TEST(Readable, MoneyIsNeverAPowerOfTen) {
  EXPECT_EQ(readableMoney(2.29e-5), "$0.0000229");   // Compare once showed $2.29e-05
  EXPECT_EQ(readableMoney(0.0123), "$0.0123");
  EXPECT_EQ(readableMoney(0.7), "$0.70");      // a K80-hour: cents, not $0.700
  EXPECT_EQ(readableMoney(0.0398), "$0.0398");
  EXPECT_EQ(readableMoney(12.345), "$12.35");
  EXPECT_EQ(readableMoney(3.5), "$3.50");
  EXPECT_EQ(readableMoney(1234.4), "$1,234");
  EXPECT_EQ(readableMoney(1.234e6), "$1.23 M");
  EXPECT_EQ(readableMoney(-5), "-$5.00");
  EXPECT_EQ(readableMoney(0), "$0");
}

TEST(Readable, DurationsTakeTheUnitAPersonWould) {
  EXPECT_EQ(readableDuration(0.00085), "0.85 ms");
  EXPECT_EQ(readableDuration(0.85), "850 ms");
  EXPECT_EQ(readableDuration(4.2), "4.20 s");
  EXPECT_EQ(readableDuration(42), "42.0 s");
  EXPECT_EQ(readableDuration(210), "3.5 min");
  EXPECT_EQ(readableDuration(7200), "2.0 h");
  EXPECT_EQ(readableDuration(12.3 * 86400), "12.3 days");
  EXPECT_EQ(readableDuration(2224.1 * 86400), "2,224 days");
}

// The unit is chosen after rounding: no "1000 B", "1,000,000", "1,000 ms" or "$100.00".
TEST(Readable, BandEdgesRoundIntoTheNextBand) {
  EXPECT_EQ(readableNumber(999.6e9), "1.00 T");
  EXPECT_EQ(readableNumber(999999.6), "1.00 M");
  EXPECT_EQ(readableNumber(999.96), "1,000");
  EXPECT_EQ(readableNumber(9.996), "10.0");
  EXPECT_EQ(readableMoney(99.996), "$100");
  EXPECT_EQ(readableMoney(999.6e9), "$1.00 T");
  EXPECT_EQ(readableDuration(0.9996), "1.00 s");
  EXPECT_EQ(readableDuration(119.96), "2.0 min");
  EXPECT_EQ(readableDuration(7199), "2.0 h");
  EXPECT_EQ(readableDuration(999.96 * 86400), "1,000 days");
}

TEST(Readable, NoiseBelowZeroIsNotNegative) {
  EXPECT_EQ(readableNumber(-1e-20), "0");
  EXPECT_EQ(readableNumber(-0.0), "0");
  EXPECT_EQ(readableMoney(-1e-20), "$0");
  EXPECT_EQ(readableNumber(-0.5), "-0.5");
}

TEST(Readable, NoMagnitudeWritesAPowerOfTen) {
  for (double v = 1e-9; v < 1e20; v *= 3.7) {
    for (double x : {v, -v}) {
      EXPECT_FALSE(hasPowerOfTen(readableNumber(x))) << x << " -> " << readableNumber(x);
      EXPECT_FALSE(hasPowerOfTen(readableMoney(x))) << x << " -> " << readableMoney(x);
      EXPECT_FALSE(hasPowerOfTen(readableDuration(std::abs(x)))) << x << " -> " << readableDuration(std::abs(x));
    }
  }
}

// Axis ticks: evenly spaced ones carry the decimals their step needs, so neighbours never read
// the same (the old "g" format and readableNumber's three digits wrote 120.5 as "120"); a log
// axis' 1-2-5 progression reads as readableNumber without trailing zeros.
TEST(Readable, TicksShowTheirStep) {
  using core::util::readableTick;
  EXPECT_EQ(readableTick(120.0, 0.5), "120.0");
  EXPECT_EQ(readableTick(120.5, 0.5), "120.5");
  EXPECT_EQ(readableTick(12345.5, 0.5), "12,345.5");
  EXPECT_EQ(readableTick(200000, 50000), "200,000");
  EXPECT_EQ(readableTick(2.5e6, 2.5e5), "2.50 M");
  EXPECT_EQ(readableTick(3e6, 1e6), "3 M");
  EXPECT_EQ(readableTick(0.00025, 0.00025), "0.00025");
  EXPECT_EQ(readableTick(-1e-15, 0.5), "0.0");   // noise at zero is neither negative nor 1e-15
  EXPECT_EQ(readableTick(-2.5, 0.5), "-2.5");
  EXPECT_EQ(readableTick(0.05, 0), "0.05");
  EXPECT_EQ(readableTick(1000, 0), "1,000");
  EXPECT_EQ(readableTick(2e6, 0), "2 M");
  EXPECT_EQ(readableTick(10, 0), "10");
  for (double step : {0.1, 0.25, 2.0, 5e4, 2e8})
    for (int k = -3; k <= 3; ++k)
      EXPECT_NE(readableTick(k * step, step), readableTick((k + 1) * step, step)) << k << " x " << step;
}
