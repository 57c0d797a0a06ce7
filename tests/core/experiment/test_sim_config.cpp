// The one experiment -> simulator mapping and precision policy (core/experiment/sim_config.h),
// and the preset check built on it (core/experiment/comparison.h): a row that neither agrees
// nor carries an explanation fails it.
#include <gtest/gtest.h>

#include <string>

#include "core/experiment/comparison.h"
#include "core/experiment/sim_config.h"
#include "core/hw/device_catalog.h"
#include "core/hw/stack_catalog.h"
#include "core/sim/simulator.h"
#include "core/util/error.h"

using core::experiment::DeviceChoice;
using core::experiment::TrainConfig;
using core::util::Precision;

namespace {

const core::hw::DeviceCatalog& catalog() {
  static const core::hw::DeviceCatalog cat =
      core::hw::DeviceCatalog::loadDirs({std::string(ACCELLAB_SOURCE_RESOURCES) + "/devices"});
  return cat;
}

const core::sim::Simulator& simulator() {
  static const core::hw::StackCatalog stacks =
      core::hw::StackCatalog::loadDirs({std::string(ACCELLAB_SOURCE_RESOURCES) + "/stacks"});
  static const core::sim::Simulator sim(catalog(), stacks);
  return sim;
}

DeviceChoice on(const std::string& id) {
  DeviceChoice d;
  d.deviceId = id;
  return d;
}

const std::string kFailing = std::string(ACCELLAB_TEST_DATA) + "/presets-failing/wrong-figure.json";

}  // namespace

TEST(PrecisionPolicy, ADeviceWithoutThePeakRunsTheFirstItHas) {
  // A TPU has no fp32 peak: an fp32 run runs bf16 there (2-byte activations), in the app and
  // the CLI alike.
  const core::hw::DeviceSpec* tpu = catalog().find("tpu-v3-8");
  ASSERT_TRUE(tpu);
  EXPECT_EQ(core::experiment::resolvePrecision(tpu, on("tpu-v3-8"), Precision::FP32), Precision::BF16);
  // V100 has no bf16 units: a bf16 run runs fp16 there.
  EXPECT_EQ(core::experiment::resolvePrecision(catalog().find("v100"), on("v100"), Precision::BF16), Precision::FP16);
  // A device with the run's precision keeps it.
  EXPECT_EQ(core::experiment::resolvePrecision(catalog().find("v100"), on("v100"), Precision::FP32), Precision::FP32);
  // The user's choice is kept, peak or not (the simulator says what it runs instead).
  DeviceChoice chosen = on("tpu-v3-8");
  chosen.precision = Precision::FP32;
  EXPECT_EQ(core::experiment::resolvePrecision(tpu, chosen, Precision::FP32), Precision::FP32);
  // An unknown device keeps the run's.
  EXPECT_EQ(core::experiment::resolvePrecision(nullptr, on("nope"), Precision::FP32), Precision::FP32);
}

TEST(SimConfigFor, ASubsetMakesShorterEpochsAndACpuIsOneVm) {
  TrainConfig t;
  t.datasetId = "fashion-mnist";
  t.modelId = "colab-cnn";
  t.batch = 1024;
  t.limit = 10000;
  core::sim::SimConfig c = core::experiment::simConfigFor(t, on("k80"), catalog().find("k80"));
  EXPECT_EQ(c.stepsPerEpoch, 10);
  EXPECT_EQ(core::experiment::imagesPerEpoch(t), 10000);
  t.limit = 0;
  c = core::experiment::simConfigFor(t, on("k80"), catalog().find("k80"));
  EXPECT_EQ(c.stepsPerEpoch, 0);  // the whole dataset: the simulator's own count
  DeviceChoice cpu = on("cpu-skylake");
  cpu.vcpus = 16;
  cpu.count = 4;
  c = core::experiment::simConfigFor(t, cpu, catalog().find("cpu-skylake"));
  EXPECT_EQ(c.count, 1);
  EXPECT_EQ(c.vcpus, 16);
}

TEST(PresetCheck, ARowThatNeitherAgreesNorExplainsFails) {
  core::experiment::Preset p = core::experiment::loadPresetFile(kFailing);
  ASSERT_EQ(p.comparisons.size(), 1u);
  std::vector<core::experiment::ComparisonOutcome> o = core::experiment::evaluatePreset(simulator(), p);
  ASSERT_EQ(o.size(), 1u);
  ASSERT_TRUE(o[0].ok()) << core::experiment::outcomeText(o[0], p.comparisons[0]);
  EXPECT_FALSE(o[0].agrees);
  EXPECT_FALSE(core::experiment::comparisonPasses(p.comparisons[0], o[0]));
  // Its known cause makes it pass ...
  p.comparisons[0].explanation = "a test's figure";
  EXPECT_TRUE(core::experiment::comparisonPasses(p.comparisons[0], o[0]));
  // ... and so does a published figure AccelLab agrees with.
  p.comparisons[0].explanation.clear();
  p.comparisons[0].published = o[0].value;
  o = core::experiment::evaluatePreset(simulator(), p);
  EXPECT_TRUE(o[0].agrees);
  EXPECT_TRUE(core::experiment::comparisonPasses(p.comparisons[0], o[0]));
}

TEST(PresetCheck, ARowTheSimulatorRefusesFailsEvenExplained) {
  core::experiment::Preset p = core::experiment::loadPresetFile(kFailing);
  p.comparisons[0].device.deviceId = "no-such-device";
  const auto o = core::experiment::evaluatePreset(simulator(), p);
  EXPECT_EQ(o[0].status, core::experiment::ComparisonOutcome::Status::NotSimulated);
  EXPECT_NE(o[0].why.find("no-such-device"), std::string::npos) << o[0].why;
  EXPECT_FALSE(core::experiment::comparisonPasses(p.comparisons[0], o[0]));
  // An explanation covers a figure that disagrees, not a row that was never simulated.
  p.comparisons[0].explanation = "a known cause";
  EXPECT_FALSE(core::experiment::comparisonPasses(p.comparisons[0], o[0]));
}

TEST(PresetFile, AnErrorNamesTheFileAndTheKey) {
  try {
    core::experiment::parsePreset(R"({"id": "Bad Id", "title": "t", "mode": "simulate"})", "mine.json");
    FAIL() << "accepted a bad id";
  } catch (const core::util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("mine.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("id"), std::string::npos) << e.what();
  }
}
