// What a device editor reads and writes: the key table as it shows it (names, units, the
// loader's own ranges) and the one writer of device files, whose text loads back unchanged.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/hw/catalog_files.h"
#include "core/hw/device_catalog.h"
#include "core/util/error.h"
#include "core/util/files.h"
#include "core/util/json.h"

namespace fs = std::filesystem;
using core::hw::deviceKeyInfo;
using core::hw::findDeviceKeyInfo;
using core::util::Json;

namespace {

const std::string kShipped = std::string(ACCELLAB_SOURCE_RESOURCES) + "/devices";

// A shipped file's object without its sources: what an editor holds.
Json valuesOf(const Json& file) {
  Json values = Json::object();
  for (const auto& [key, value] : file.asObject())
    if (key != "sources") values.set(key, value);
  return values;
}

}  // namespace

TEST(DeviceKeyInfo, ListsEveryFileKeyButSourcesWithItsUnit) {
  std::vector<std::string> names;
  for (const auto& k : deviceKeyInfo()) names.push_back(k.name);
  std::vector<std::string> expected = core::hw::deviceFileKeys();
  std::erase(expected, "sources");
  EXPECT_EQ(names, expected);

  const auto* bandwidth = findDeviceKeyInfo("mem_bandwidth_gbps");
  ASSERT_NE(bandwidth, nullptr);
  EXPECT_TRUE(bandwidth->required);
  EXPECT_FALSE(bandwidth->text);
  EXPECT_EQ(bandwidth->unit, "GB/s");
  EXPECT_LT(bandwidth->lo, bandwidth->hi);
  EXPECT_EQ(findDeviceKeyInfo("mem_gib")->unit, "GiB");
  EXPECT_EQ(findDeviceKeyInfo("peak_tflops_bf16")->unit, "TFLOP/s");
  EXPECT_EQ(findDeviceKeyInfo("vector_tflops_fp32")->unit, "TFLOP/s");
  EXPECT_EQ(findDeviceKeyInfo("board_power_watts")->unit, "W");
  EXPECT_EQ(findDeviceKeyInfo("usd_per_hour_on_demand")->unit, "$/h");
  EXPECT_EQ(findDeviceKeyInfo("allreduce_latency_seconds")->unit, "s");
  EXPECT_EQ(findDeviceKeyInfo("release_year")->unit, "year");
  EXPECT_TRUE(findDeviceKeyInfo("compute_units")->whole);
  EXPECT_EQ(findDeviceKeyInfo("compute_units")->unit, "");
  EXPECT_TRUE(findDeviceKeyInfo("name")->text);
  EXPECT_EQ(findDeviceKeyInfo("kind")->choices, (std::vector<std::string>{"cpu", "gpu", "tpu"}));
  EXPECT_EQ(findDeviceKeyInfo("generation")->choices, core::hw::hardwareGenerations());
  EXPECT_EQ(findDeviceKeyInfo("price_seller")->choices, core::hw::priceSellers());
  EXPECT_EQ(findDeviceKeyInfo("sources"), nullptr);
  EXPECT_EQ(findDeviceKeyInfo("mem_bandwith_gbps"), nullptr);
}

// The range an editor shows is the one the loader refuses outside of.
TEST(DeviceKeyInfo, RangesAreTheLoadersOwn) {
  const std::string path = kShipped + "/v100.json";
  const Json file = Json::parse(core::util::readFile(path), path);
  const auto spec = core::hw::parseDeviceFile(path);
  for (const auto& key : deviceKeyInfo()) {
    if (key.text || !file.contains(key.name)) continue;
    Json values = valuesOf(file);
    values.set(key.name, key.hi * 2);
    try {
      core::hw::parseDeviceJson(core::hw::deviceFileText(values, spec.sources), path);
      ADD_FAILURE() << key.name << " = " << key.hi * 2 << " was accepted";
    } catch (const core::util::Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(key.name), std::string::npos) << what;
      EXPECT_NE(what.find("[" + core::util::formatNumber(key.lo) + ", " + core::util::formatNumber(key.hi) + "]"),
                std::string::npos)
          << what;
    }
  }
}

// Every shipped file, taken apart into values and sources and written again, loads back with
// the same keys and values.
TEST(DeviceFileText, EveryShippedDeviceLoadsBackAsWritten) {
  const auto listing = core::hw::jsonFilesIn(kShipped);
  ASSERT_FALSE(listing.files.empty());
  for (const auto& path : listing.files) {
    SCOPED_TRACE(path);
    const Json file = Json::parse(core::util::readFile(path), path);
    const auto spec = core::hw::parseDeviceFile(path);
    const std::string text = core::hw::deviceFileText(valuesOf(file), spec.sources);
    ASSERT_NO_THROW(core::hw::parseDeviceJson(text, path));
    const Json again = Json::parse(text, path);
    EXPECT_EQ(again.size(), file.size());
    for (const auto& [key, value] : file.asObject()) {
      ASSERT_TRUE(again.contains(key)) << key;
      EXPECT_EQ(again.at(key), value) << key;
    }
  }
}

// Keys in the file's order whatever order they were given in; sources last; whole numbers
// without a fraction; a key the table does not know (calibrated_software) is carried.
TEST(DeviceFileText, WritesInFileOrderAndCarriesCalibratedSoftware) {
  Json values = Json::object();
  values.set("mem_bandwidth_gbps", 900.0);
  values.set(core::hw::kCalibratedSoftware, Json::object());
  values.set("id", "lab");
  values.set("compute_units", 80.0);
  const std::string text = core::hw::deviceFileText(values, {{"mem_bandwidth_gbps", "datasheet", "2020"}});
  EXPECT_LT(text.find("\"id\""), text.find("\"mem_bandwidth_gbps\""));
  EXPECT_LT(text.find("\"mem_bandwidth_gbps\""), text.find("\"compute_units\""));
  EXPECT_LT(text.find("\"compute_units\""), text.find(core::hw::kCalibratedSoftware));
  EXPECT_LT(text.find(core::hw::kCalibratedSoftware), text.find("\"sources\""));
  EXPECT_NE(text.find("\"compute_units\": 80,"), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\n');
}
