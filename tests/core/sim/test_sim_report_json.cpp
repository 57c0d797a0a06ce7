// The one JSON form of a SimReport (core/sim/sim_report_json): what the CLI prints and the run
// history keeps. A report written and read back is the report, field by field; the history's
// first form (configuration nested under "config") still reads; bad input names its key.
#include <gtest/gtest.h>

#include <string>

#include "core/sim/llm_simulator.h"
#include "core/sim/sim_report_json.h"
#include "core/util/error.h"
#include "sim_test_support.h"

namespace {

using core::sim::SimReport;
using core::util::Json;
using core::util::JsonReader;

SimReport roundTrip(const SimReport& r) {
  // Through text, as the history file and the CLI's output are.
  const Json parsed = Json::parse(core::sim::simReportToJson(r).dump(2), "report.json");
  return core::sim::simReportFromJson(JsonReader(parsed, "report.json"));
}

void expectSameReport(const SimReport& a, const SimReport& b) {
  EXPECT_EQ(a.config.modelId, b.config.modelId);
  EXPECT_EQ(a.config.datasetId, b.config.datasetId);
  EXPECT_EQ(a.config.deviceId, b.config.deviceId);
  EXPECT_EQ(a.config.stackId, b.config.stackId);
  EXPECT_EQ(a.config.count, b.config.count);
  EXPECT_EQ(a.vcpus > 0 ? a.vcpus : a.config.vcpus, b.config.vcpus);  // 0 = default reads back resolved
  EXPECT_EQ(a.config.memoryGib, b.config.memoryGib);
  EXPECT_EQ(a.config.batch, b.config.batch);
  EXPECT_EQ(a.config.precision, b.config.precision);
  EXPECT_EQ(a.config.epochs, b.config.epochs);
  EXPECT_EQ(a.config.preemptible, b.config.preemptible);
  EXPECT_EQ(a.config.cpuBuild, b.config.cpuBuild);
  EXPECT_EQ(a.config.evalEachEpoch, b.config.evalEachEpoch);
  EXPECT_EQ(a.config.stepsPerEpoch, b.config.stepsPerEpoch);
  EXPECT_EQ(a.stepSeconds, b.stepSeconds);
  EXPECT_EQ(a.breakdown.computeSeconds, b.breakdown.computeSeconds);
  EXPECT_EQ(a.breakdown.memorySeconds, b.breakdown.memorySeconds);
  EXPECT_EQ(a.breakdown.overheadSeconds, b.breakdown.overheadSeconds);
  EXPECT_EQ(a.breakdown.inputSeconds, b.breakdown.inputSeconds);
  EXPECT_EQ(a.breakdown.communicationSeconds, b.breakdown.communicationSeconds);
  EXPECT_EQ(a.bound, b.bound);
  EXPECT_EQ(a.explanation, b.explanation);
  EXPECT_EQ(a.imagesPerSecond, b.imagesPerSecond);
  EXPECT_EQ(a.stepsPerEpoch, b.stepsPerEpoch);
  EXPECT_EQ(a.epochSeconds, b.epochSeconds);
  EXPECT_EQ(a.firstEpochSeconds, b.firstEpochSeconds);
  EXPECT_EQ(a.runSeconds, b.runSeconds);
  EXPECT_EQ(a.usdPerHour, b.usdPerHour);
  EXPECT_EQ(a.priceKnown, b.priceKnown);
  EXPECT_EQ(a.usdPerMillionImages, b.usdPerMillionImages);
  EXPECT_EQ(a.tokensPerSample, b.tokensPerSample);
  EXPECT_EQ(a.usdPerRun, b.usdPerRun);
  EXPECT_EQ(a.memoryBytesPerDevice, b.memoryBytesPerDevice);
  EXPECT_EQ(a.memoryCapacityBytes, b.memoryCapacityBytes);
  EXPECT_EQ(a.fitsInMemory, b.fitsInMemory);
  EXPECT_EQ(a.achievedTflops, b.achievedTflops);
  EXPECT_EQ(a.utilization, b.utilization);
  EXPECT_EQ(a.deviceName, b.deviceName);
  EXPECT_EQ(a.stackName, b.stackName);
  EXPECT_EQ(a.contrastStackId, b.contrastStackId);
  EXPECT_EQ(a.contrastStepSeconds, b.contrastStepSeconds);
  EXPECT_EQ(a.vcpus, b.vcpus);
  EXPECT_EQ(a.perDeviceBatch, b.perDeviceBatch);
  EXPECT_EQ(a.evalSecondsPerEpoch, b.evalSecondsPerEpoch);
  EXPECT_EQ(a.compileSeconds, b.compileSeconds);
  EXPECT_EQ(a.peakTflops, b.peakTflops);
  EXPECT_EQ(a.precisionNote, b.precisionNote);
  EXPECT_EQ(a.priceKind, b.priceKind);
  EXPECT_EQ(a.priceSeller, b.priceSeller);
  EXPECT_EQ(a.priceDate, b.priceDate);
  EXPECT_EQ(a.config.userUsdPerHour, b.config.userUsdPerHour);
  EXPECT_EQ(a.energy.known, b.energy.known);
  EXPECT_EQ(a.energy.kwh, b.energy.kwh);
  EXPECT_EQ(a.energy.co2eKg, b.energy.co2eKg);
  EXPECT_EQ(a.energy.watts, b.energy.watts);
  EXPECT_EQ(a.config.energy.pue, b.config.energy.pue);
  EXPECT_EQ(a.config.energy.gridKgCo2ePerKwh, b.config.energy.gridKgCo2ePerKwh);
  EXPECT_EQ(a.config.energy.regionId, b.config.energy.regionId);
  // A transformer's plan part and its settings.
  EXPECT_EQ(a.config.llm.seqLen, b.config.llm.seqLen);
  EXPECT_EQ(a.config.llm.finetune, b.config.llm.finetune);
  EXPECT_EQ(a.config.llm.loraRank, b.config.llm.loraRank);
  EXPECT_EQ(a.config.llm.plan, b.config.llm.plan);
  EXPECT_EQ(a.config.llm.trainTokens, b.config.llm.trainTokens);
  ASSERT_EQ(a.llm.has_value(), b.llm.has_value());
  if (!a.llm) return;
  const core::sim::LlmPart &x = *a.llm, &y = *b.llm;
  EXPECT_EQ(x.modelName, y.modelName);
  EXPECT_EQ(x.chips, y.chips);
  EXPECT_EQ(x.seqLen, y.seqLen);
  EXPECT_EQ(x.plan, y.plan);
  EXPECT_EQ(x.planSearched, y.planSearched);
  EXPECT_EQ(x.plansConsidered, y.plansConsidered);
  EXPECT_EQ(x.plansFitting, y.plansFitting);
  EXPECT_EQ(x.evalStepSeconds, y.evalStepSeconds);
  EXPECT_EQ(x.bubbleSeconds, y.bubbleSeconds);
  EXPECT_EQ(x.tpCommSeconds, y.tpCommSeconds);
  EXPECT_EQ(x.ppCommSeconds, y.ppCommSeconds);
  EXPECT_EQ(x.epCommSeconds, y.epCommSeconds);
  EXPECT_EQ(x.dpCommSeconds, y.dpCommSeconds);
  EXPECT_EQ(x.optimizerSeconds, y.optimizerSeconds);
  EXPECT_EQ(x.stepOverheadSeconds, y.stepOverheadSeconds);
  EXPECT_EQ(x.hostSeconds, y.hostSeconds);
  EXPECT_EQ(x.exposedHostSeconds, y.exposedHostSeconds);
  EXPECT_EQ(x.kernelsPerStep, y.kernelsPerStep);
  EXPECT_EQ(x.tokensPerSecond, y.tokensPerSecond);
  EXPECT_EQ(x.modelFlopsPerToken, y.modelFlopsPerToken);
  EXPECT_EQ(x.memory.weightBytes, y.memory.weightBytes);
  EXPECT_EQ(x.memory.gradientBytes, y.memory.gradientBytes);
  EXPECT_EQ(x.memory.optimizerBytes, y.memory.optimizerBytes);
  EXPECT_EQ(x.memory.activationBytes, y.memory.activationBytes);
  EXPECT_EQ(x.memory.reserveBytes, y.memory.reserveBytes);
  EXPECT_EQ(x.usdPerMillionTokens, y.usdPerMillionTokens);
  EXPECT_EQ(x.timeToTokensSeconds, y.timeToTokensSeconds);
  EXPECT_EQ(x.usdToTokens, y.usdToTokens);
  EXPECT_EQ(x.energyBasis, y.energyBasis);
}

// A transformer at LLM scale, asked as the planner and `simulate --seq-len` ask: no run.
SimReport llamaPlan() {
  core::sim::SimConfig c = simtest::llmConfig();
  c.modelId = "llama3-8b";
  c.deviceId = "h100";
  c.count = 8;
  c.batch = 64;
  c.precision = core::util::Precision::FP8;
  c.llm.seqLen = 4096;
  c.llm.finetune = core::sim::Finetune::Lora;
  c.llm.loraRank = 32;
  c.llm.plan = core::sim::parseParallelPlan("dp=4,tp=2,zero=1,recompute=selective,microbatch=2");
  c.llm.trainTokens = 1e10;
  const auto& d = simtest::catalog().at("h100");
  return core::sim::simulateLlm(c, d, simtest::stacks().at("tuned"));
}

}  // namespace

TEST(SimReportJson, ACloudCpuReportRoundTripsFieldByField) {
  auto c = simtest::config("cifar-cnn", "cifar10", "cpu-skylake", 32, core::util::Precision::FP32, 1, 2, "keras-2020");
  c.memoryGib = 12.1;
  c.preemptible = true;
  c.cpuBuild = core::sim::CpuBuild::Pip;
  c.evalEachEpoch = true;
  c.stepsPerEpoch = 100;
  c.epochs = 3;
  const SimReport r = simtest::simulator().simulate(c);
  ASSERT_EQ(r.config.stackId, "keras-2020");
  expectSameReport(r, roundTrip(r));
}

TEST(SimReportJson, AnAcceleratorReportKeepsItsStackContrastAndPrecisionNote) {
  const SimReport r = simtest::simulator().simulate(
      simtest::config("resnet50", "imagenet", "k80", 256, core::util::Precision::FP16, 4, 0, "tf-tuned-2018"));
  ASSERT_FALSE(r.contrastStackId.empty());
  ASSERT_FALSE(r.precisionNote.empty());  // a K80 has no fp16 units
  const SimReport back = roundTrip(r);
  expectSameReport(r, back);
  EXPECT_EQ(back.config.vcpus, 0);
}

// An unknown price is null, never 0 (which reads as free); the user's own price and the
// energy estimate come back as they were.
TEST(SimReportJson, AnUnknownPriceIsNullAndTheUsersPriceAndEnergyRoundTrip) {
  core::hw::DeviceCatalog cat = simtest::catalog();
  core::hw::DeviceSpec bare = cat.at("v100");
  bare.id = "v100-unpriced";
  bare.usdPerHourOnDemand.reset();
  bare.priceSeller.clear();
  cat.add(bare);
  const core::sim::Simulator sim(cat, simtest::stacks());
  auto c = simtest::config("resnet50", "imagenet", "v100-unpriced", 256, core::util::Precision::FP16, 1, 0, "");
  const SimReport unpriced = sim.simulate(c);
  ASSERT_FALSE(unpriced.priceKnown);
  const Json j = core::sim::simReportToJson(unpriced);
  EXPECT_TRUE(j.at("usd_per_hour").isNull());
  EXPECT_TRUE(j.at("usd_per_million_images").isNull());
  EXPECT_TRUE(j.at("usd_per_run").isNull());
  expectSameReport(unpriced, roundTrip(unpriced));

  c = simtest::config("resnet50", "imagenet", "v100", 256, core::util::Precision::FP16, 4, 0, "");
  c.userUsdPerHour = 1.25;
  c.energy = {1.5, 0.4, "custom", "somewhere"};
  const SimReport mine = simtest::simulator().simulate(c);
  EXPECT_EQ(mine.priceKind, core::sim::PriceKind::User);
  EXPECT_DOUBLE_EQ(mine.usdPerHour, 4 * 1.25);
  ASSERT_TRUE(mine.energy.known);  // the V100 file has its board power
  EXPECT_DOUBLE_EQ(mine.energy.kwh, mine.energy.watts * mine.runSeconds / 3.6e6 * 1.5);
  EXPECT_DOUBLE_EQ(mine.energy.co2eKg, mine.energy.kwh * 0.4);
  const Json m = core::sim::simReportToJson(mine);
  EXPECT_EQ(m.at("price_kind").asString(), "user");
  EXPECT_TRUE(m.at("energy").at("estimate").asBool());
  expectSameReport(mine, roundTrip(mine));
}

TEST(SimReportJson, ALanguageModelKeepsItsTokensPerSample) {
  const SimReport r =
      simtest::simulator().simulate(simtest::config("char-gpt", "fortunes", "a100", 32, core::util::Precision::BF16));
  ASSERT_GT(r.tokensPerSample, 0);
  expectSameReport(r, roundTrip(r));
}

TEST(SimReportJson, TheCliFormRoundsToSixDigits) {
  const SimReport r = simtest::simulator().simulate(simtest::config("mlp", "mnist", "v100", 128));
  const Json j = core::sim::simReportToJson(r, core::sim::JsonDigits::Six);
  const double step = j.at("step_seconds").asNumber();
  EXPECT_NEAR(step, r.stepSeconds, 1e-5 * r.stepSeconds);
  EXPECT_EQ(std::stod(Json(step).dump()), step);
  EXPECT_EQ(j.at("stack").asString(), r.config.stackId);
  EXPECT_EQ(j.at("price_kind").asString(), "on-demand");
  EXPECT_TRUE(j.at("simulated").asBool());  // a simulated figure says so
}

// Run files written before the shared form nested the configuration under "config" and kept
// no stack: they still open.
TEST(SimReportJson, TheHistorysFirstFormStillReads) {
  const Json old = Json::parse(R"({"config": {"model": "colab-cnn", "dataset": "fashion-mnist", "device": "k80",
      "count": 1, "vcpus": 0, "batch": 1024, "precision": "fp32", "epochs": 2, "preemptible": false,
      "cpu_build": "compiled", "eval_each_epoch": false, "steps_per_epoch": 2},
      "step_seconds": 0.236, "breakdown": {"compute_seconds": 0.2, "memory_seconds": 0.01,
      "overhead_seconds": 0.02, "input_seconds": 0.001, "communication_seconds": 0},
      "bound": "compute", "explanation": "Compute binds.", "images_per_second": 4339.3,
      "steps_per_epoch": 2, "epoch_seconds": 0.47, "first_epoch_seconds": 1.47, "run_seconds": 1.94,
      "usd_per_hour": 0.7, "price_known": true, "usd_per_million_images": 0.0448, "usd_per_run": 0.00038,
      "memory_bytes_per_device": 1415489633.6, "memory_capacity_bytes": 12884901888, "fits_in_memory": true,
      "achieved_tflops": 2.14, "utilization": 0.49, "device_name": "NVIDIA Tesla K80", "vcpus": 0,
      "per_device_batch": 1024, "eval_seconds_per_epoch": 0, "compile_seconds": 1, "peak_tflops": 4.37,
      "precision_note": ""})",
                               "old.json");
  const SimReport r = core::sim::simReportFromJson(JsonReader(old, "old.json"));
  EXPECT_EQ(r.config.modelId, "colab-cnn");
  EXPECT_EQ(r.config.stepsPerEpoch, 2);
  EXPECT_EQ(r.stepSeconds, 0.236);
  EXPECT_EQ(r.deviceName, "NVIDIA Tesla K80");
  EXPECT_TRUE(r.config.stackId.empty());
}

TEST(SimReportJson, BadInputNamesTheKey) {
  SimReport r = simtest::simulator().simulate(simtest::config("mlp", "mnist", "v100", 128));
  Json j = core::sim::simReportToJson(r);
  j.set("bound", "warp-drive");
  try {
    core::sim::simReportFromJson(JsonReader(j, "runs/x.json", "devices[0].report"));
    FAIL() << "an unknown bound was accepted";
  } catch (const core::util::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("runs/x.json"), std::string::npos) << what;
    EXPECT_NE(what.find("bound"), std::string::npos) << what;
  }
  Json extra = core::sim::simReportToJson(r);
  extra.set("typo_key", 1);
  EXPECT_THROW(core::sim::simReportFromJson(JsonReader(extra, "x.json")), core::util::Error);
}

// One report for every model: a transformer's run (the app trains char-gpt) and a plan asked
// without a run both carry the plan part, and read back whole.
TEST(SimReportJson, ATransformerRunKeepsItsPlanPart) {
  const SimReport r =
      simtest::simulator().simulate(simtest::config("char-gpt", "fortunes", "a100", 32, core::util::Precision::BF16));
  ASSERT_TRUE(r.llm.has_value());
  EXPECT_EQ(r.llm->energyBasis, core::sim::EnergyBasis::Run);
  const Json j = core::sim::simReportToJson(r);
  EXPECT_TRUE(j.contains("plan") && j.contains("tokens_per_second") && j.contains("memory_breakdown") && j.contains("dataset"));
  expectSameReport(r, roundTrip(r));
}

TEST(SimReportJson, APlanWithoutARunRoundTripsWithItsSettingsAndLayers) {
  const SimReport r = llamaPlan();
  ASSERT_TRUE(r.llm.has_value());
  ASSERT_FALSE(r.layers.empty());
  const Json j = core::sim::simReportToJson(r, core::sim::JsonDigits::Exact, core::sim::JsonLayers::Write);
  // A plan has no dataset, epochs or run to state; the CLI's keys for it are there.
  for (const char* key : {"dataset", "epochs", "epoch_seconds", "run_seconds", "usd_per_run"}) EXPECT_FALSE(j.contains(key)) << key;
  for (const char* key : {"mfu", "samples_per_second", "time_to_tokens_seconds", "usd_to_tokens", "lora_rank"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j.at("plan").at("text").asString(), r.llm->plan.text());
  EXPECT_EQ(j.at("energy_basis").asString(), "train_tokens");
  const Json parsed = Json::parse(j.dump(), "plan.json");
  const SimReport back = core::sim::simReportFromJson(JsonReader(parsed, "plan.json"));
  expectSameReport(r, back);
  ASSERT_EQ(back.layers.size(), r.layers.size());
  EXPECT_EQ(back.layers.front().name, r.layers.front().name);
  EXPECT_EQ(back.layers.back().kernels, r.layers.back().kernels);
  EXPECT_EQ(back.layers.back().bound, r.layers.back().bound);
  // Without layers asked, none are written (the history recomputes them).
  EXPECT_FALSE(core::sim::simReportToJson(r).contains("layers"));
  // The CLI's form: the keys a script reads, every memory figure in whole bytes that add up.
  const Json cli = core::sim::simReportToJson(r, core::sim::JsonDigits::Six, core::sim::JsonLayers::Write);
  for (const char* key : {"step_seconds", "images_per_second", "samples_per_second", "tokens_per_second", "mfu",
                          "utilization", "peak_tflops", "plan", "memory_breakdown", "memory_bytes_per_device",
                          "usd_per_million_tokens", "layers", "bound", "explanation", "simulated"})
    EXPECT_TRUE(cli.contains(key)) << key;
  EXPECT_EQ(cli.at("memory_breakdown").at("total_bytes").asNumber(), cli.at("memory_bytes_per_device").asNumber());
  EXPECT_EQ(cli.at("memory_breakdown").at("capacity_bytes").asNumber(), cli.at("memory_capacity_bytes").asNumber());
}

TEST(SimReportJson, APlanWhoseTextDisagreesWithItsKeysIsRefused) {
  Json j = core::sim::simReportToJson(llamaPlan());
  Json plan = j.at("plan");
  plan.set("tp", 4);
  j.set("plan", plan);
  try {
    core::sim::simReportFromJson(JsonReader(j, "runs/x.json", "devices[0].report"));
    FAIL() << "read a plan whose keys disagree";
  } catch (const core::util::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("runs/x.json"), std::string::npos) << what;
    EXPECT_NE(what.find("plan.text"), std::string::npos) << what;
  }
}
