// The one UTF-8 rule (core/util/utf8.h) the JSON codec and the printable-text sanitiser share.
#include <gtest/gtest.h>

#include <string>

#include "core/util/utf8.h"

using core::util::appendUtf8;
using core::util::decodeUtf8;
using core::util::isC1Control;

TEST(Utf8, EveryBoundaryCodePointRoundTrips) {
  for (char32_t cp : {U'\u0080', U'\u07FF', U'\u0800', U'\uD7FF', U'\uE000', U'\uFFFD', U'\U00010000', U'\U0010FFFF'}) {
    std::string s;
    appendUtf8(s, cp);
    char32_t back = 0;
    EXPECT_EQ(decodeUtf8(s, 0, back), s.size()) << static_cast<unsigned>(cp);
    EXPECT_EQ(back, cp);
  }
}

TEST(Utf8, OverlongSurrogatesBeyondTheRangeAndTruncationAreRefused) {
  char32_t cp = 0;
  for (const char* bad : {"\xC0\x80", "\xC1\xBF", "\xE0\x80\x80", "\xED\xA0\x80", "\xF0\x80\x80\x80",
                          "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xE2\x82", "\x80", "\xC3("})
    EXPECT_EQ(decodeUtf8(bad, 0, cp), 0u) << bad;
  EXPECT_EQ(decodeUtf8("", 0, cp), 0u);
  EXPECT_EQ(decodeUtf8("a\xC3\xA9", 1, cp), 2u);  // from the middle of a string
  EXPECT_EQ(cp, U'\u00E9');
}

TEST(Utf8, C1ControlsAreExactlyU0080ToU009F) {
  EXPECT_FALSE(isC1Control(U'\u007F'));
  EXPECT_TRUE(isC1Control(U'\u0080'));
  EXPECT_TRUE(isC1Control(U'\u009B'));  // the 8-bit CSI
  EXPECT_TRUE(isC1Control(U'\u009F'));
  EXPECT_FALSE(isC1Control(U'\u00A0'));
}
