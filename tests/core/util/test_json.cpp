#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/util/error.h"
#include "core/util/files.h"
#include "core/util/json.h"
#include "core/util/numbers.h"

using core::util::Error;
using core::util::Json;

TEST(Json, RoundTripsNestedValuesInKeyOrder) {
  Json j;
  j["name"] = "v100";
  j["peak_tflops_fp32"] = 15.7;
  j["count"] = 4;
  j["ok"] = true;
  j["list"].push(1);
  j["list"].push("two");
  j["nothing"] = nullptr;
  const std::string text = j.dump();
  EXPECT_EQ(text, R"({"name":"v100","peak_tflops_fp32":15.7,"count":4,"ok":true,"list":[1,"two"],"nothing":null})");
  EXPECT_EQ(Json::parse(text), j);
  EXPECT_EQ(Json::parse(j.dump(2)), j);
}

TEST(Json, ParsesEscapesAndUnicode) {
  const Json j = Json::parse(R"({"s":"a\"b\\c\n\u00e9\ud83d\ude00"})");
  EXPECT_EQ(j.at("s").asString(), "a\"b\\c\n\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(Json::parse(j.dump()), j);
  // Surrogates come in pairs: a lone low or high one is refused, not turned into invalid UTF-8.
  EXPECT_THROW(Json::parse(R"("mn\udddaist")"), Error);
  EXPECT_THROW(Json::parse(R"("\ud83d")"), Error);
}

TEST(Json, ErrorsNameTheSourceLineAndColumn) {
  try {
    Json::parse("{\n  \"a\": 1,\n  \"b\": tru\n}", "devices/x.json");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("devices/x.json:3:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Json::parse("{\"a\":1,\"a\":2}"), Error);  // duplicate key
  EXPECT_THROW(Json::parse("[1,]"), Error);
  EXPECT_THROW(Json::parse("01"), Error);
  EXPECT_THROW(Json::parse("{} x"), Error);
  EXPECT_THROW(Json::parse("\"abc"), Error);
}

TEST(Json, TypedAccessNamesTheMismatch) {
  const Json j = Json::parse(R"({"a":"text"})");
  try {
    (void)j.at("a").asNumber();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected a JSON number"), std::string::npos);
  }
  EXPECT_THROW((void)j.at("missing"), Error);
}

TEST(Json, NumbersFormatShortestAndNonFiniteAsNull) {
  EXPECT_EQ(core::util::formatNumber(3.0), "3");
  EXPECT_EQ(core::util::formatNumber(0.1), "0.1");
  EXPECT_EQ(core::util::formatNumber(1e20), "1e+20");
  EXPECT_EQ(core::util::formatNumber(std::numeric_limits<double>::infinity()), "null");
}

TEST(Json, WholeNumbersBeyondTwoToThe53AreRefusedNotRounded) {
  EXPECT_EQ(Json::parse("9007199254740992").asNumber(), 9007199254740992.0);  // 2^53: exact
  EXPECT_EQ(Json::parse("-9007199254740992").asNumber(), -9007199254740992.0);
  EXPECT_EQ(Json::parse("1e300").asNumber(), 1e300);  // written as a real number: a real number
  for (const char* text : {"9007199254740993", "9223372036854775807", "123456789012345678901234567890"}) {
    try {
      Json::parse(text, "seed.json");
      ADD_FAILURE() << text << " accepted";
    } catch (const core::util::Error& e) {
      EXPECT_NE(std::string(e.what()).find("cannot be held exactly"), std::string::npos) << e.what();
    }
  }
  // What the writer writes, the reader reads back.
  EXPECT_EQ(Json::parse(Json(9007199254740992.0).dump()).asNumber(), 9007199254740992.0);
  EXPECT_EQ(Json::parse(Json(1e20).dump()).asNumber(), 1e20);
}

TEST(Files, AtomicWriteReplacesWholeFileAndLeavesNoTemporaries) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("accellab_files_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "out.json").string();
  core::util::writeFileAtomic(path, "first");
  core::util::writeFileAtomic(path, "second, longer");
  EXPECT_EQ(core::util::readFile(path), "second, longer");
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1);
  EXPECT_THROW(core::util::writeFileAtomic((dir / "no/such/dir/x").string(), "x"), Error);
  EXPECT_THROW(core::util::readFile((dir / "missing").string()), Error);
  fs::remove_all(dir);
}

TEST(Json, ManyKeysParseInLinearTimeAndDuplicatesAreStillFound) {
  // 80,000 keys (1 MB) took 10 s with a quadratic duplicate check.
  std::string text = "{";
  for (int i = 0; i < 80'000; ++i) text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":1";
  // The fastest of three parses: what the parser costs, not what a busy machine leaves it
  // (20 s once beside a sanitizer run at the lowest priority); quadratic stays far above.
  auto fastest = std::chrono::steady_clock::duration::max();
  for (int round = 0; round < 3; ++round) {
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(Json::parse(text + "}").size(), 80'000u);
    fastest = std::min(fastest, std::chrono::steady_clock::now() - t0);
  }
  EXPECT_LT(fastest, std::chrono::seconds(1));
  try {
    Json::parse(text + ",\"k79999\":2}", "dup.json");
    ADD_FAILURE() << "a duplicate key among many was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("duplicate key \"k79999\""), std::string::npos) << e.what();
  }
  // Past the cap of keys in one object: a clear error, not minutes of work.
  std::string huge = "{";
  for (int i = 0; i < 100'001; ++i) huge += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":1";
  try {
    Json::parse(huge + "}", "huge.json");
    ADD_FAILURE() << "100,001 keys accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("more than 100000 keys"), std::string::npos) << e.what();
  }
}

TEST(Json, AFileLargerThanTheCapIsRefusedBeforeItIsRead) {
  const auto path = std::filesystem::temp_directory_path() / "accellab-json-sparse.json";
  { std::ofstream(path) << "{}"; }
  std::filesystem::resize_file(path, std::uintmax_t{3} << 30);  // 3 GB, sparse
  try {
    Json::parseFile(path.string(), core::util::kMaxTextFileBytes);
    ADD_FAILURE() << "a 3 GB file was parsed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("larger than"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

TEST(Json, InvalidUtf8IsRefusedAndControlCharactersAreEscapedOnOutput) {
  EXPECT_EQ(Json::parse("\"K80 \xc3\xa9\xe2\x82\xac\xf0\x9f\x9a\x80\"").asString(), "K80 \xc3\xa9\xe2\x82\xac\xf0\x9f\x9a\x80");
  for (const char* bad : {"\"\xff\"", "\"\xc3\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"a\x80\""}) {
    try {
      Json::parse(bad, "name.json");
      ADD_FAILURE() << "accepted invalid UTF-8";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("invalid UTF-8"), std::string::npos) << e.what();
    }
  }
  // A NUL or ESC that arrived escaped goes out escaped: output is always valid JSON text.
  const Json j = Json::parse(R"("a\u0000b\u001b[31m")");
  EXPECT_EQ(j.dump(), R"("a\u0000b\u001b[31m")");
}

TEST(Json, AValueBudgetBoundsWhatAFileCanCostInMemory) {
  // 200,000 empty arrays in 600 KB: under the 1 MiB cap of a device file, but past its budget of
  // values; the error says so instead of building it.
  std::string many = "[";
  for (int i = 0; i < 200'000; ++i) many += i ? ",[]" : "[]";
  many += "]";
  try {
    Json::parse(many, "devices/evil.json", core::util::kDataFileJsonLimits);
    ADD_FAILURE() << "the value budget was not applied";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("devices/evil.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("more than 100000 values"), std::string::npos) << e.what();
  }
  // Without an explicit budget, a quarter of the bytes: "[0,0,...]" (two bytes a value) fails.
  std::string zeros = "[";
  for (int i = 0; i < 100'000; ++i) zeros += i ? ",0" : "0";
  EXPECT_THROW(Json::parse(zeros + "]"), Error);
  std::string deep(40, '[');
  deep += std::string(40, ']');
  EXPECT_THROW(Json::parse(deep, "deep.json", core::util::kDataFileJsonLimits), Error);
  EXPECT_NO_THROW(Json::parse(deep));
}

// Money and counts a person reads: thousands grouped, never "1.05e+05".
TEST(Numbers, GroupedWholeWritesThousandsOut) {
  EXPECT_EQ(core::util::groupedWhole(105220.4), "105,220");
  EXPECT_EQ(core::util::groupedWhole(999), "999");
  EXPECT_EQ(core::util::groupedWhole(1000), "1,000");
  EXPECT_EQ(core::util::groupedWhole(-3000), "-3,000");
  EXPECT_EQ(core::util::groupedWhole(0.4), "0");
  EXPECT_EQ(core::util::groupedWhole(1234567890123.0), "1,234,567,890,123");
  EXPECT_EQ(core::util::groupedWhole(2e16), "2e+16");
}
