// Golden reports: the simulator's answers for fixed configurations, kept in
// tests/data/sim/golden_reports.json. A change in any cost model or device figure shows up as
// a diff here; when the change is intended, regenerate with ACCELLAB_UPDATE_GOLDEN=1.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "core/util/files.h"
#include "core/util/json.h"
#include "sim_test_support.h"

using namespace core::sim;
using core::util::Json;
using core::util::Precision;

namespace {

const std::string kGolden = std::string(ACCELLAB_TEST_DATA) + "/sim/golden_reports.json";

std::vector<SimConfig> goldenConfigs() {
  // At least one configuration per shipped stack, each on hardware its era ran.
  std::vector<SimConfig> out = {
      simtest::config("resnet50", "synthetic-imagenet", "v100", 1024, Precision::FP16, 4, 0, "tf-tuned-2018"),
      simtest::config("resnet50", "imagenet", "tpu-v2-8", 1024, Precision::BF16, 1, 0, "tf-tuned-2018"),
      simtest::config("cifar-cnn", "cifar10", "tpu-v3-8", 32, Precision::BF16, 1, 0, "keras-2020"),
      simtest::config("cifar-cnn", "cifar10", "p100", 1024, Precision::FP32, 1, 0, "keras-2020"),
      simtest::config("mnist-cnn", "mnist", "cpu-skylake", 128, Precision::FP32, 1, 64, "keras-2017"),
      simtest::config("imdb-bilstm", "imdb", "k80", 32, Precision::FP32, 1, 0, "keras-2017"),
      simtest::config("xception", "tf-flowers", "p100", 128, Precision::FP32, 1, 0, "keras-2020"),
      simtest::config("vgg16", "imagenet", "a100", 256, Precision::TF32, 8, 0, "tuned"),
      simtest::config("resnet50", "imagenet", "v100", 1664, Precision::FP16, 8, 0, "mlperf"),
      simtest::config("resnet50", "imagenet", "h100", 256, Precision::BF16, 1, 0, "pytorch-eager"),
      simtest::config("colab-cnn", "fashion-mnist", "t4", 128, Precision::FP16, 1, 0, "pytorch-eager"),
  };
  out[4].cpuBuild = CpuBuild::Pip;
  out[4].evalEachEpoch = true;
  return out;
}

Json summary(const SimReport& r) {
  Json j = Json::object();
  j.set("config", r.config.stackId + ": " + r.config.modelId + "/" + r.config.datasetId + "/" + r.config.deviceId + "x" +
                      std::to_string(r.config.count) + "/b" + std::to_string(r.config.batch) + "/" +
                      core::util::precisionName(r.config.precision));
  j.set("step_seconds", r.stepSeconds);
  j.set("compute_seconds", r.breakdown.computeSeconds);
  j.set("memory_seconds", r.breakdown.memorySeconds);
  j.set("overhead_seconds", r.breakdown.overheadSeconds);
  j.set("input_seconds", r.breakdown.inputSeconds);
  j.set("communication_seconds", r.breakdown.communicationSeconds);
  j.set("epoch_seconds", r.epochSeconds);
  j.set("first_epoch_seconds", r.firstEpochSeconds);
  j.set("memory_bytes_per_device", r.memoryBytesPerDevice);
  j.set("fits_in_memory", r.fitsInMemory);
  j.set("usd_per_hour", r.usdPerHour);
  j.set("bound", boundName(r.bound));
  return j;
}

}  // namespace

TEST(Golden, ReportsMatchTheStoredOnes) {
  Json now = Json::array();
  for (const auto& c : goldenConfigs()) now.push(summary(simtest::simulator().simulate(c)));
  if (const char* update = std::getenv("ACCELLAB_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    core::util::writeFileAtomic(kGolden, now.dump(2) + "\n");
    GTEST_SKIP() << "golden file rewritten: " << kGolden;
  }
  const Json stored = Json::parseFile(kGolden, core::util::kMaxTextFileBytes);
  ASSERT_EQ(stored.size(), now.size());
  for (std::size_t i = 0; i < now.size(); ++i) {
    const auto& a = stored.asArray()[i];
    const auto& b = now.asArray()[i];
    const std::string name = b.at("config").asString();
    EXPECT_EQ(a.at("config").asString(), name);
    for (const auto& [key, value] : b.asObject()) {
      const Json& old = a.at(key);
      if (value.isNumber()) {
        const double x = value.asNumber(), y = old.asNumber();
        EXPECT_NEAR(x, y, 1e-9 * std::max(1.0, std::abs(y))) << name << ": " << key;
      } else {
        EXPECT_EQ(value, old) << name << ": " << key;
      }
    }
  }
}
