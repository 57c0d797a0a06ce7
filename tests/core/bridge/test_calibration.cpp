// Device calibration on synthetic measurements, and what the bridge refuses to trust in a run
// that comes back (impossible figures, bimodal logs, another device's runs).
#include "bridge_test_support.h"

namespace {

using namespace bridge_test;

// --- calibration on synthetic measurements --------------------------------------------------------

TEST(Calibration, RecoversAKnownDevicesFiguresWithinFivePercent) {
  const auto cat = devices();
  core::hw::DeviceSpec truth = cat.at("v100");
  truth.measuredSoftware.gemmEfficiency = 0.31;
  truth.measuredSoftware.stepOverheadSeconds = 0.0065;
  const auto runs = syntheticRuns(truth, {{"mlp", 64}, {"mlp", 2048}, {"resnet20", 128}, {"resnet20", 512}, {"colab-cnn", 256}, {"lenet5", 1024}});
  core::bridge::CalibrationRequest req;
  req.base = cat.at("v100");
  req.figures = {"gemm_efficiency", "step_overhead_seconds"};
  req.id = "lab-gpu";
  req.name = "Lab GPU";
  req.date = "2026-11-24";
  const auto r = core::bridge::calibrateDevice(req, runs, cat, stacks());
  ASSERT_EQ(r.figures.size(), 2u);
  EXPECT_NEAR(r.figures[0].value / 0.31, 1.0, 0.05);
  EXPECT_NEAR(r.figures[1].value / 0.0065, 1.0, 0.05);
  EXPECT_LT(r.fitMedianAbsPct, 1.0);
  ASSERT_TRUE(r.leaveOneOutMedianAbsPct.has_value());  // six runs: leave-one-out works
  EXPECT_LT(*r.leaveOneOutMedianAbsPct, 5.0);

  // The device file loads as a device, its fitted figures sourced to the runs.
  const std::string text = core::bridge::calibratedDeviceJson(r).dump(2);
  const core::hw::DeviceSpec d = core::hw::parseDeviceJson(text, "lab-gpu.json");
  EXPECT_NEAR(*d.measuredSoftware.gemmEfficiency, r.figures[0].value, 1e-12);
  ASSERT_NE(d.sourceOf("calibrated_software"), nullptr);
  EXPECT_NE(d.sourceOf("calibrated_software")->ref.find("fitted on your runs 2026-11-24"), std::string::npos);
  EXPECT_EQ(d.peakTflopsFp16, cat.at("v100").peakTflopsFp16);  // the datasheet stays the base's
}

TEST(Calibration, RefusesToFitMoreFiguresThanTheRunsPin) {
  const auto cat = devices();
  core::hw::DeviceSpec truth = cat.at("v100");
  const auto one = syntheticRuns(truth, {{"colab-cnn", 512}});
  core::bridge::CalibrationRequest req;
  req.base = cat.at("v100");
  req.id = "x";
  req.figures = {"gemm_efficiency", "step_overhead_seconds"};
  const std::string overfit = errorOf([&] { core::bridge::calibrateDevice(req, one, cat, stacks()); });
  EXPECT_NE(overfit.find("pin at most 1 figure"), std::string::npos) << overfit;
  // Two runs of the same configuration are one configuration.
  const auto same = syntheticRuns(truth, {{"colab-cnn", 512}, {"colab-cnn", 512}});
  EXPECT_NE(errorOf([&] { core::bridge::calibrateDevice(req, same, cat, stacks()); }).find("1 distinct configuration"),
            std::string::npos);
  // Automatic: as many as pin, the rest named with the reason; no leave-one-out under 4 runs.
  req.figures.clear();
  const auto r = core::bridge::calibrateDevice(req, one, cat, stacks());
  EXPECT_EQ(r.figures.size(), 1u);
  EXPECT_FALSE(r.skipped.empty());
  EXPECT_FALSE(r.leaveOneOutMedianAbsPct.has_value());
  // A figure the runs do not depend on.
  req.figures = {"gemm_efficiency_fp32"};
  EXPECT_NE(errorOf([&] { core::bridge::calibrateDevice(req, one, cat, stacks()); }).find("moves no run's step time"),
            std::string::npos);
}

// Exported transformer jobs' runs "measured" on an H100 whose matmuls reach a known share of
// its peak: calibrate reads the plan and stack each log records and fits the transformer step's
// own figure (matmul_efficiency), not the layer model's GEMM one; leave-one-out from 4 runs.
TEST(Calibration, FitsTheTransformerStepsFiguresFromExportedJobsRuns) {
  const auto cat = devices();
  const auto st = stacks();
  const core::sim::Simulator sim(cat, st);
  core::hw::DeviceSpec truth = cat.at("h100");
  truth.measuredSoftware.matmulEfficiency = 0.42;
  std::vector<RunLog> runs;
  for (const auto& [batch, seq, plan] : std::vector<std::tuple<int, int, std::string>>{
           {4, 512, "dp=1,microbatch=1"}, {8, 1024, "dp=1,microbatch=1"}, {16, 1024, "dp=1,microbatch=2"},
           {2, 1024, "dp=1,microbatch=1,recompute=full"}, {32, 256, "dp=1,microbatch=1"}}) {
    RunLog log;
    log.path = "llm-b" + std::to_string(batch) + "-s" + std::to_string(seq) + ".jsonl";
    log.model = "gpt2-small";
    log.dataset = "synthetic-tokens";
    log.batch = batch;
    log.seqLen = seq;
    log.precision = "bf16";
    log.unit = "tokens";
    log.deviceType = "cuda";
    log.deviceName = "NVIDIA H100 80GB HBM3";
    log.deviceCount = 1;
    log.plan = core::sim::parseParallelPlan(plan);
    log.compiled = false;  // eager: simulated under pytorch-eager
    addSteadyTokenSteps(log, core::bridge::simulateLoggedRun(sim, core::bridge::simConfigOf(log, "h100", "pytorch-eager"),
                                                             truth, st.at("pytorch-eager")).stepSeconds);
    runs.push_back(log);
  }
  core::bridge::CalibrationRequest req;
  req.base = cat.at("h100");
  req.figures = {"matmul_efficiency"};
  req.id = "my-h100";
  req.name = "My H100";
  req.date = "2026-11-27";
  const auto r = core::bridge::calibrateDevice(req, runs, cat, st);
  EXPECT_EQ(r.stackId, "pytorch-eager");
  ASSERT_EQ(r.figures.size(), 1u);
  EXPECT_NEAR(r.figures[0].value / 0.42, 1.0, 0.02);
  EXPECT_LT(r.fitMaxAbsPct, 1.0);
  ASSERT_TRUE(r.leaveOneOutMedianAbsPct.has_value());
  EXPECT_LT(*r.leaveOneOutMedianAbsPct, 2.0);
  // The device file holds it where the transformer step reads it.
  const auto d = core::hw::parseDeviceJson(core::bridge::calibratedDeviceJson(r).dump(2), "my-h100.json");
  EXPECT_NEAR(*d.measuredSoftware.matmulEfficiency, r.figures[0].value, 1e-12);
  // Automatic: the figures the transformer step reads, never the layer model's GEMM ones.
  req.figures.clear();
  const auto a = core::bridge::calibrateDevice(req, runs, cat, st);
  ASSERT_FALSE(a.figures.empty());
  EXPECT_EQ(a.figures[0].key, "matmul_efficiency");
  for (const auto& f : a.figures) EXPECT_EQ(f.key.rfind("gemm_", 0), std::string::npos) << f.key;
  for (const auto& s : a.skipped) EXPECT_EQ(s.rfind("gemm_", 0), std::string::npos) << s;
  // Eager and compiled runs are not one software: refused, naming the run.
  runs[1].compiled = true;
  const std::string e = errorOf([&] { core::bridge::calibrateDevice(req, runs, cat, st); });
  EXPECT_NE(e.find("llm-b8-s1024.jsonl ran under pytorch-compile, llm-b4-s512.jsonl under pytorch-eager"), std::string::npos) << e;
  // ... unless the user names the stack.
  req.stackId = "pytorch-eager";
  EXPECT_NO_THROW(core::bridge::calibrateDevice(req, runs, cat, st));
}

}  // namespace

// PyTorch runs of a transformer on this machine (torchrun, two processes of one thread) calibrate
// the host: its measured rates are the datasheet, the fitted figures come back from the runs, and
// the device file it writes loads and reproduces them.
TEST(Calibration, TheHostIsTheBaseForPyTorchRunsOnThisCpu) {
  core::hw::HostMeasurement m;
  m.cpuModel = "Test CPU";
  m.vcpus = 2;
  m.cores = 2;
  m.vectorIsa = m.buildIsa = "avx512";
  m.gemmPath = "avx512";
  m.gemmGflopsPerThread = 150;
  m.gemmGflopsAll = 300;
  m.memBandwidthGBps = 40;
  m.memGib = 24;
  m.measuredAt = "2026-12-06";
  auto cat = devices();
  cat.add(core::hw::hostSpecFromMeasurement(m));
  const auto st = stacks();
  const core::sim::Simulator sim(cat, st);
  // The truth: PyTorch's matmuls at 0.2 of the measured rate, 20 us an op.
  core::hw::DeviceSpec truth = cat.at("host");
  truth.measuredSoftware = core::bridge::measuredRatesOnly(truth);
  truth.measuredSoftware.matmulEfficiency = 0.2;
  truth.measuredSoftware.kernelLaunchSeconds = 2e-5;
  std::vector<RunLog> runs;
  for (const auto& [model, batch, seq, plan] : std::vector<std::tuple<std::string, int, int, std::string>>{
           {"char-gpt", 4, 8, "dp=2,microbatch=1"}, {"char-gpt", 32, 128, "dp=2,microbatch=16"},
           {"gpt2-small", 2, 32, "dp=2,microbatch=1"}, {"char-gpt", 8, 16, "dp=2,microbatch=2"}}) {
    RunLog log;
    log.path = model + "-b" + std::to_string(batch) + ".jsonl";
    log.model = model;
    log.dataset = "synthetic-tokens";
    log.batch = batch;
    log.seqLen = seq;
    log.precision = "fp32";
    log.unit = "tokens";
    log.deviceType = "cpu";
    log.deviceName = "Test CPU";
    log.deviceCount = 2;
    log.threads = 1;
    log.plan = core::sim::parseParallelPlan(plan);
    const auto c = core::bridge::simConfigOf(log, "host", "pytorch-eager");
    EXPECT_EQ(c.vcpus, 2);  // the processes' threads
    addSteadyTokenSteps(log, core::bridge::simulateLoggedRun(sim, c, truth, st.at("pytorch-eager")).stepSeconds);
    runs.push_back(log);
  }
  // Out of the box, a prediction beside each run.
  const auto p = core::bridge::predictRun(cat, st, runs[0], "host");
  ASSERT_TRUE(p.known) << p.why;
  core::bridge::CalibrationRequest req;
  req.base = cat.at("host");
  req.figures = {"matmul_efficiency", "kernel_launch_seconds"};
  req.id = "my-box";
  req.name = "My box under PyTorch";
  req.date = "2026-12-06";
  const auto r = core::bridge::calibrateDevice(req, runs, cat, st);
  ASSERT_EQ(r.figures.size(), 2u);
  EXPECT_NEAR(r.figures[0].value / 0.2, 1.0, 0.03);
  EXPECT_NEAR(r.figures[1].value / 2e-5, 1.0, 0.05);
  EXPECT_LT(r.fitMaxAbsPct, 1.0);
  // The device file: the host's measured figures as its datasheet, the fit and the measured
  // rates' efficiencies in calibrated_software; it loads and reproduces a run.
  const std::string text = core::bridge::calibratedDeviceJson(r).dump(2);
  const auto d = core::hw::parseDeviceJson(text, "my-box.json");
  EXPECT_EQ(d.kind, core::hw::DeviceKind::Cpu);
  EXPECT_DOUBLE_EQ(*d.peakTflopsFp32, 0.15);  // 300 GFLOP/s over 2 vCPUs
  EXPECT_EQ(d.vcpusMax, 2);
  EXPECT_DOUBLE_EQ(*d.measuredSoftware.gemmEfficiency, 1.0);
  EXPECT_NEAR(*d.measuredSoftware.matmulEfficiency, r.figures[0].value, 1e-12);
  EXPECT_NE(text.find("fitted on your runs 2026-12-06"), std::string::npos);
  cat.add(d);
  const auto again = core::bridge::predictRun(cat, st, runs[1], "my-box");
  ASSERT_TRUE(again.known) << again.why;
  EXPECT_LT(std::abs(again.error), 0.01);
}

// --- trusting what comes back -------------------------------------------------------------------

TEST(RunTrust, ImpossibleFiguresAreRefusedNamingTheRecord) {
  auto refused = [](const std::string& step) {
    return errorOf([&] { core::bridge::parseRunLog(startLine() + "\n" + step + "\n", "run.jsonl"); });
  };
  // A step shorter than any kernel launch (a denormal's worth of seconds).
  std::string e = refused(R"({"record": "step", "step": 1, "epoch": 0, "seconds": 5e-324, "samples": 128, "per_second": 1e15, "warmup": false})");
  EXPECT_NE(e.find("run.jsonl:2: field 'seconds'"), std::string::npos) << e;
  EXPECT_NE(e.find("shorter than any device's kernel launch"), std::string::npos) << e;
  // More samples in a step than the global batch.
  e = refused(R"({"record": "step", "step": 1, "epoch": 0, "seconds": 0.1, "samples": 256, "per_second": 2560, "warmup": false})");
  EXPECT_NE(e.find("field 'samples'"), std::string::npos) << e;
  // A throughput that is not samples over seconds.
  e = refused(R"({"record": "step", "step": 1, "epoch": 0, "seconds": 0.1, "samples": 128, "per_second": 99999, "warmup": false})");
  EXPECT_NE(e.find("field 'per_second'"), std::string::npos) << e;
  // (tokens that are not sequences x sequence length: cli.bridge.export-llm-ddp, on a real log)
  // A good log still reads.
  EXPECT_NO_THROW(core::bridge::parseRunLog(goodLog(), "run.jsonl"));
}

TEST(RunTrust, ABimodalOrWideLogIsFlaggedWithItsWindow) {
  std::string t = startLine() + "\n";
  for (int i = 1; i <= 20; ++i) t += stepLine(i, i <= 2 ? 0.5 : (i % 3 == 0 ? 0.390 : 0.004), i <= 2) + "\n";
  const RunLog log = core::bridge::parseRunLog(t, "busy.jsonl");
  const auto ss = core::bridge::steadyState(log);
  EXPECT_EQ(ss.firstStep, 3);
  EXPECT_EQ(ss.lastStep, 20);
  EXPECT_TRUE(ss.bimodal);
  EXPECT_TRUE(ss.noisy);
  EXPECT_EQ(ss.fastSteps, 12);  // 12 steps near 4 ms, 6 near 390 ms
  const std::string w = core::bridge::noiseWarning(ss);
  EXPECT_NE(w.find("two kinds of step: 12 near 4 ms and 6 near 390 ms"), std::string::npos) << w;
  // A steady log is not flagged.
  const auto quiet = core::bridge::steadyState(core::bridge::parseRunLog(goodLog(), "run.jsonl"));
  EXPECT_FALSE(quiet.noisy) << core::bridge::noiseWarning(quiet);
  EXPECT_EQ(core::bridge::noiseWarning(quiet), "");
}

TEST(RunTrust, ALogIsJudgedWhereItRanNotWhereItWasExportedFor) {
  const auto cat = devices();
  RunLog log = core::bridge::parseRunLog(goodLog(), "card.jsonl");
  log.deviceType = "cuda";
  log.deviceName = "Some Future Chip";
  log.exportedForDevice = "h100";
  EXPECT_EQ(core::bridge::matchDevice(cat, log), "");
  const auto p = core::bridge::predictRun(cat, stacks(), log, core::bridge::matchDevice(cat, log));
  EXPECT_FALSE(p.known);
  EXPECT_NE(p.why.find("exported for h100"), std::string::npos) << p.why;
  EXPECT_NE(p.why.find("--device"), std::string::npos) << p.why;
  log.deviceName = "NVIDIA H100 80GB HBM3";
  EXPECT_EQ(core::bridge::deviceMismatch(cat, log, "h100"), "");
  const std::string m = core::bridge::deviceMismatch(cat, log, "t4");
  EXPECT_NE(m.find("card.jsonl ran on 'NVIDIA H100 80GB HBM3', which is h100 in the catalog, not t4"), std::string::npos) << m;
}

TEST(RunTrust, CalibrationRefusesAnotherDevicesRunsAndCountsADuplicateOnce) {
  const auto cat = devices();
  core::hw::DeviceSpec truth = cat.at("v100");
  auto runs = syntheticRuns(truth, {{"mlp", 64}, {"resnet20", 128}});
  for (auto& r : runs) r.deviceName = "NVIDIA H100 80GB HBM3", r.started = "2026-11-27T10:00:00Z" + r.path;
  core::bridge::CalibrationRequest req;
  req.base = cat.at("t4");
  req.id = "lab";
  const std::string e = errorOf([&] { core::bridge::calibrateDevice(req, runs, cat, stacks()); });
  EXPECT_NE(e.find("which is h100 in the catalog, not t4"), std::string::npos) << e;
  EXPECT_NE(e.find("--other-device"), std::string::npos) << e;
  req.otherDevice = true;  // the user says: fit t4's datasheet to these runs anyway
  // The same log four times is one run.
  std::vector<RunLog> four(4, runs[0]);
  for (int i = 0; i < 4; ++i) four[i].path = "copy" + std::to_string(i) + ".jsonl";
  const auto r = core::bridge::calibrateDevice(req, four, cat, stacks());
  EXPECT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.duplicates.size(), 3u);
  EXPECT_NE(r.duplicates[0].find("copy1.jsonl is copy0.jsonl again: counted once"), std::string::npos) << r.duplicates[0];
  EXPECT_FALSE(r.leaveOneOutMedianAbsPct.has_value());  // no 1e-8% from one run counted four times
}
