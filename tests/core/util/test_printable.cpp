// The one sanitiser for text from files on its way to a terminal (core/util/printable.h).
#include <gtest/gtest.h>

#include "core/util/error.h"
#include "core/util/json.h"
#include "core/util/printable.h"

using core::util::isPrintable;
using core::util::printable;

TEST(Printable, OrdinaryTextAndUtf8AreKeptAsTheyAre) {
  for (const char* s : {"H100 SXM5 80GB", "torch 2.11.0+cu128", "Zürich – 東京 – 🚀", ""}) {
    EXPECT_EQ(printable(s), s);
    EXPECT_TRUE(isPrintable(s));
  }
  EXPECT_EQ(printable("two\nlines\tand a tab"), "two\nlines\tand a tab");
  EXPECT_EQ(printable("two\nlines\tand a tab", false), "two\\nlines\\tand a tab");
}

TEST(Printable, TerminalSequencesAreShownNotObeyed) {
  EXPECT_EQ(printable("\x1b[2J\x1b]8;;http://x\x07link\x1b]8;;\x07"), "\\x1b[2J\\x1b]8;;http://x\\x07link\\x1b]8;;\\x07");
  EXPECT_EQ(printable("a\rb\x7f"), "a\\x0db\\x7f");
  EXPECT_EQ(printable("\xC2\x9B" "31m"), "\\u009b31m");                  // the 8-bit CSI
  EXPECT_EQ(printable("abc\xE2\x80\xAE" "txt.exe"), "abc\\u202etxt.exe");  // right-to-left override
  EXPECT_FALSE(isPrintable("\x1b[0m"));
}

TEST(Printable, InvalidUtf8IsShownByteByByte) {
  EXPECT_EQ(printable("ok\xff\xfe"), "ok\\xff\\xfe");
  EXPECT_EQ(printable("\xC0\xAF"), "\\xc0\\xaf");          // overlong '/'
  EXPECT_EQ(printable("\xED\xA0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(printable("cut \xE6\x9D"), "cut \\xe6\\x9d");   // a sequence cut short
}

TEST(Printable, JsonOutputEscapesDelAndC1ControlsToo) {
  const std::string out = core::util::Json(std::string("a\x7f" "b\xC2\x9B" "c\x1b")).dump();
  EXPECT_EQ(out, "\"a\\u007fb\\u009bc\\u001b\"");
  EXPECT_EQ(core::util::Json::parse(out).asString(), "a\x7f" "b\xC2\x9B" "c\x1b");
}

TEST(Printable, EveryCoreErrorIsPrintableWhateverTheFileHeld) {
  EXPECT_STREQ(core::util::Error("dev\x1b[2J.json: bad").what(), "dev\\x1b[2J.json: bad");
  // A parse error quoting the raw byte it stopped at, and a duplicate key spelled with escapes.
  for (const std::string& text : {std::string("{\"a\": \x1b[31m}"), std::string("{\"\\u001b[2J\": 1, \"\\u001b[2J\": 2}"),
                                 std::string("{\"a\": \xC2\x9B}")}) {
    try {
      core::util::Json::parse(text, "evil.json");
      ADD_FAILURE() << "parsed";
    } catch (const core::util::Error& e) {
      EXPECT_TRUE(isPrintable(e.what())) << e.what();
      EXPECT_NE(std::string(e.what()).find("evil.json"), std::string::npos) << e.what();
    }
  }
}
