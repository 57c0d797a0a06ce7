// The one JSON codec of an experiment: every field survives the round trip, and a bad file
// is refused naming the key.
#include <gtest/gtest.h>

#include "core/experiment/experiment_json.h"
#include "core/experiment/limits.h"
#include "core/experiment/names.h"
#include "core/util/error.h"

using namespace core::experiment;
using core::util::Json;
using core::util::JsonReader;

namespace {

// Every field set away from its default, so a field the codec forgets shows up.
Experiment everyFieldSet() {
  Experiment e;
  TrainConfig& t = e.train;
  t.datasetId = "cifar10";
  t.dataDir = "/data/cifar";
  t.modelId = "resnet20";
  t.batch = 96;
  t.epochs = 7;
  t.limit = 5000;
  t.testLimit = 1000;
  t.optimizer = OptimizerKind::SGD;
  t.learningRate = 0.0375;
  t.momentum = 0.85;
  t.nesterov = true;
  t.weightDecay = 5e-4;
  t.schedule = Schedule::Cosine;
  t.threads = 3;
  t.seed = kMaxSeed;  // 2^53: the largest seed, written exactly
  t.precision = core::util::Precision::BF16;
  t.bnStatsSamples = 10240;
  DeviceChoice v100;
  v100.deviceId = "v100";
  v100.count = 8;
  v100.preemptible = true;
  v100.precision = core::util::Precision::FP16;
  v100.stackId = "keras-2017";
  DeviceChoice cpu;
  cpu.deviceId = "cpu-skylake";
  cpu.vcpus = 16;
  cpu.memoryGib = 12.1;  // the VM's RAM
  e.devices = {v100, cpu};
  e.trainHere = false;
  e.stackId = "tuned";
  e.compareStackId = "pytorch-eager";
  e.presetId = "e2-riseml-imagenet";
  return e;
}

Experiment roundTrip(const Experiment& e) {
  return experimentFromJsonText(experimentToJson(e).dump(2), "round-trip.json");
}

std::string errorOf(const std::string& text) {
  try {
    experimentFromJsonText(text, "exp.json");
  } catch (const core::util::Error& e) {
    return e.what();
  }
  return "";
}

const std::string kMinimal =
    R"({"experiment": {"dataset": "mnist", "model": "mlp", "batch": 32}, "devices": [{"id": "k80"}]})";

}  // namespace

TEST(ExperimentJson, EveryFieldSurvivesTheRoundTrip) {
  const Experiment e = everyFieldSet();
  const Experiment back = roundTrip(e);
  // Field by field, so a failure names the field.
  const TrainConfig &a = e.train, &b = back.train;
  EXPECT_EQ(b.datasetId, a.datasetId);
  EXPECT_EQ(b.dataDir, a.dataDir);
  EXPECT_EQ(b.modelId, a.modelId);
  EXPECT_EQ(b.batch, a.batch);
  EXPECT_EQ(b.epochs, a.epochs);
  EXPECT_EQ(b.limit, a.limit);
  EXPECT_EQ(b.testLimit, a.testLimit);
  EXPECT_EQ(b.optimizer, a.optimizer);
  EXPECT_EQ(b.learningRate, a.learningRate);
  EXPECT_EQ(b.momentum, a.momentum);
  EXPECT_EQ(b.nesterov, a.nesterov);
  EXPECT_EQ(b.weightDecay, a.weightDecay);
  EXPECT_EQ(b.schedule, a.schedule);
  EXPECT_EQ(b.threads, a.threads);
  EXPECT_EQ(b.seed, a.seed);
  EXPECT_EQ(b.precision, a.precision);
  EXPECT_EQ(b.bnStatsSamples, a.bnStatsSamples);
  ASSERT_EQ(back.devices.size(), 2u);
  EXPECT_EQ(back.devices[0], e.devices[0]);
  EXPECT_EQ(back.devices[1], e.devices[1]);
  EXPECT_EQ(back.trainHere, e.trainHere);
  EXPECT_EQ(back.stackId, e.stackId);
  EXPECT_EQ(back.compareStackId, e.compareStackId);
  EXPECT_EQ(back.presetId, e.presetId);
  // And as a whole (catches a field added to the struct but not to the list above).
  EXPECT_TRUE(back == e);
  EXPECT_EQ(experimentToJson(back).dump(), experimentToJson(e).dump());
}

TEST(ExperimentJson, SettingsOfTheOtherOptimizerAreKept) {
  // Adam does not use momentum, but a user who switches to SGD and back expects it kept.
  Experiment e = everyFieldSet();
  e.train.optimizer = OptimizerKind::Adam;
  EXPECT_EQ(roundTrip(e).train.momentum, 0.85);
  EXPECT_TRUE(roundTrip(e).train.nesterov);
}

TEST(ExperimentJson, AbsentKeysTakeTheDefaults) {
  const Experiment e = experimentFromJsonText(kMinimal, "exp.json");
  EXPECT_EQ(e.train.epochs, TrainConfig{}.epochs);
  EXPECT_EQ(e.train.schedule, Schedule::Constant);
  EXPECT_TRUE(e.trainHere);
  EXPECT_EQ(e.devices.at(0).count, 1);
  EXPECT_FALSE(e.devices.at(0).precision.has_value());
}

TEST(ExperimentJson, BadFilesNameTheKey) {
  const auto with = [](const std::string& from, const std::string& to) {
    std::string s = kMinimal;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  EXPECT_NE(errorOf(with("\"batch\": 32", "\"batch\": 0")).find("exp.json: experiment.batch"), std::string::npos);
  EXPECT_NE(errorOf(with("\"batch\": 32", "\"batch\": 32, \"epohcs\": 2")).find("experiment.epohcs: unknown key"), std::string::npos)
      << errorOf(with("\"batch\": 32", "\"batch\": 32, \"epohcs\": 2"));
  EXPECT_NE(errorOf(with("\"batch\": 32", "\"batch\": 32, \"schedule\": \"linear\"")).find("experiment.schedule"),
            std::string::npos);
  EXPECT_NE(errorOf(with("{\"id\": \"k80\"}", "{\"id\": \"k80\", \"price\": \"spot\"}")).find("devices[0].price"),
            std::string::npos);
  EXPECT_NE(errorOf(with("{\"id\": \"k80\"}", "{\"id\": \"k80\"}, {\"id\": \"k80\"}")).find("listed twice"),
            std::string::npos);
  // Momentum 1 is refused, not quietly run as 0.9.
  EXPECT_NE(errorOf(with("\"batch\": 32", "\"batch\": 32, \"momentum\": 1")).find("experiment.momentum"),
            std::string::npos);
  // A seed JSON cannot keep exactly is refused, not rounded.
  EXPECT_NE(errorOf(with("\"batch\": 32", "\"batch\": 32, \"seed\": 9007199254740993")).find("cannot be held exactly"),
            std::string::npos);
  EXPECT_NE(errorOf(with("\"batch\": 32", "\"batch\": 1048577")).find("experiment.batch"), std::string::npos);
  // Found by fuzzing: a device with both a count and vCPUs lost its count on the way back.
  EXPECT_NE(errorOf(with("{\"id\": \"k80\"}", "{\"id\": \"k80\", \"count\": 8, \"vcpus\": 16}")).find("not both"),
            std::string::npos);
  // A VM's RAM belongs to a scalable CPU.
  EXPECT_NE(errorOf(with("{\"id\": \"k80\"}", "{\"id\": \"k80\", \"memory_gib\": 13}")).find("devices[0].memory_gib"),
            std::string::npos);
}

TEST(ExperimentNames, OneNamePerValueBothWays) {
  for (const auto& [value, name] : kRunStatusNames.entries) EXPECT_EQ(kRunStatusNames.parse(name), value) << name;
  for (const auto& [value, name] : kOptimizerNames.entries) EXPECT_EQ(kOptimizerNames.parse(name), value) << name;
  for (const auto& [value, name] : kScheduleNames.entries) EXPECT_EQ(kScheduleNames.parse(name), value) << name;
  EXPECT_FALSE(kScheduleNames.parse("linear").has_value());
  EXPECT_EQ(kScheduleNames.list(), "constant, step, cosine");
  EXPECT_STREQ(runStatusName(RunStatus::Diverged), "diverged");
}

TEST(ExperimentLimits, TheTestSubsetFollowsTheTrainingSubset) {
  EXPECT_EQ(proportionalTestLimit("fashion-mnist", 6000), 1000);  // 60,000 / 10,000
  EXPECT_EQ(proportionalTestLimit("fashion-mnist", 0), 0);
  EXPECT_EQ(proportionalTestLimit("fashion-mnist", 60000), 0);    // the whole set
  EXPECT_EQ(proportionalTestLimit("fashion-mnist", 1), 1);        // never zero test images
  EXPECT_EQ(proportionalTestLimit("no-such-dataset", 100), 0);
}
