// The bridge to real hardware: the model graph, the PyTorch export, the run-log reader, the
// prediction beside a measured run, and device calibration on synthetic measurements.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <sstream>
#include <tuple>

#include "core/bridge/device_calibration.h"
#include "core/bridge/run_log.h"
#include "core/bridge/run_prediction.h"
#include "core/bridge/torch_export.h"
#include "core/hw/catalog_files.h"
#include "core/hw/host_probe.h"
#include "core/nn/network.h"
#include "core/nn/zoo.h"
#include "core/sim/sim_report_json.h"
#include "core/sim/simulator.h"
#include "core/util/csv.h"
#include "core/util/error.h"
#include "core/util/files.h"

namespace {

using core::bridge::RunLog;

core::hw::DeviceCatalog devices() { return core::hw::DeviceCatalog::loadDirs({core::util::resourceDir() + "/devices"}); }

// Five steady steps of `seconds` each for a token log of log.batch sequences of log.seqLen.
void addSteadyTokenSteps(RunLog& log, double seconds) {
  for (int i = 1; i <= 5; ++i) {
    core::bridge::LoggedStep s;
    s.step = i;
    s.seconds = seconds;
    s.samples = log.batch;
    s.tokens = double(log.batch) * log.seqLen;
    s.perSecond = s.tokens / seconds;
    log.steps.push_back(s);
  }
}
core::hw::StackCatalog stacks() { return core::hw::StackCatalog::loadDirs({core::util::resourceDir() + "/stacks"}); }

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const core::util::Error& e) {
    return e.what();
  }
  return "";
}

// --- the graph and the export -------------------------------------------------------------------

TEST(ModelGraph, EveryZooModelDescribesItselfAndCountsMatch) {
  for (const auto& m : core::nn::modelCatalog()) {
    core::bridge::ExportRequest r;
    r.train.modelId = m.id;
    r.train.datasetId = m.defaultDataset;
    r.train.batch = 8;
    r.generatedOn = "2026-11-24";
    const core::bridge::ExportedJob job = core::bridge::exportTorchJob(r);
    EXPECT_GT(job.params, 0) << m.id;
    EXPECT_NE(job.trainPy.find("def build_model():"), std::string::npos) << m.id;
    EXPECT_NE(job.trainPy.find("\"params\": " + std::to_string(job.params)), std::string::npos) << m.id;
  }
}

TEST(ModelGraph, ResidualBlocksKeepBothBranches) {
  core::nn::ModelInput in;
  in.shape = {3, 32, 32};
  auto net = core::nn::buildModel("resnet20", in);
  const auto graph = net->graph();
  int residuals = 0, withShortcut = 0;
  core::nn::forEachNode(graph, [&](const core::nn::GraphNode& n) {
    if (n.op != "residual") return;
    ++residuals;
    ASSERT_EQ(n.branches.size(), 2u);
    if (!n.branches[1].empty()) {
      ++withShortcut;
      EXPECT_EQ(n.branches[1].front().op, "pad_shortcut");
    }
  });
  EXPECT_EQ(residuals, 9);
  EXPECT_EQ(withShortcut, 2);  // the first block of stages 2 and 3
}

TEST(TorchExport, WritesTheModelLayerForLayerWithTheExperimentsSettings) {
  core::bridge::ExportRequest r;
  r.train.modelId = "lenet5";
  r.train.batch = 64;
  r.train.seed = 7;
  r.train.precision = core::util::Precision::BF16;
  r.generatedOn = "2026-11-24";
  const auto job = core::bridge::exportTorchJob(r);
  const std::string& py = job.trainPy;
  EXPECT_NE(py.find("conv2d(1, 6, (5, 5), stride=(1, 1), padding=(2, 2), bias=True, init=\"torch_default\")"), std::string::npos);
  EXPECT_NE(py.find("nn.MaxPool2d((2, 2), stride=(2, 2), padding=(0, 0))"), std::string::npos);
  EXPECT_NE(py.find("linear(400, 120, bias=True, init=\"torch_default\")"), std::string::npos);
  EXPECT_NE(py.find("\"seed\": 7"), std::string::npos);
  EXPECT_NE(py.find("\"precision\": \"bf16\""), std::string::npos);
  EXPECT_EQ(py.find("class Residual"), std::string::npos) << "helpers only for ops the model uses";
  EXPECT_NE(job.readme.find("import-run"), std::string::npos);
}

TEST(TorchExport, SyntheticDataFitsAnyModel) {
  core::bridge::ExportRequest r;
  r.train.modelId = "mlp";
  r.train.datasetId = "synthetic";
  EXPECT_NE(core::bridge::exportTorchJob(r).trainPy.find("\"reader\": \"synthetic\""), std::string::npos);
  r.train.modelId = "imdb-bilstm";
  r.train.datasetId = "imdb";  // token ids: generated, 20,000-word vocabulary
  EXPECT_NE(core::bridge::exportTorchJob(r).trainPy.find("\"vocabulary\": 20000"), std::string::npos);
  r.train.datasetId = "fashion-mnist";
  EXPECT_NE(errorOf([&] { core::bridge::exportTorchJob(r); }).find("reads token ids"), std::string::npos);
}

TEST(TorchExport, RefusesWhatPyTorchCannotRun) {
  core::bridge::ExportRequest r;
  r.train.modelId = "mlp";
  r.train.precision = core::util::Precision::FP8;
  EXPECT_NE(errorOf([&] { core::bridge::exportTorchJob(r); }).find("fp8"), std::string::npos);
  r.train.precision = core::util::Precision::FP4;
  EXPECT_NE(errorOf([&] { core::bridge::exportTorchJob(r); }).find("precision: fp4 has no PyTorch autocast path"),
            std::string::npos);
  r.train.precision = core::util::Precision::FP32;
  r.train.batch = 100;
  r.count = 8;
  EXPECT_NE(errorOf([&] { core::bridge::exportTorchJob(r); }).find("does not split over 8"), std::string::npos);
}

// --- the run log --------------------------------------------------------------------------------

std::string startLine(const std::string& model = "mlp", long long params = 669706) {
  return R"({"record": "start", "format": "accellab-run-log", "version": 1, "model": ")" + model +
         R"(", "dataset": "fashion-mnist", "batch": 128, "precision": "fp32", "seed": 0, "params": )" +
         std::to_string(params) +
         R"(, "unit": "images", "device": "cpu", "device_name": "Test CPU", "device_count": 1, "strategy": "single", "torch": "2.5.0", "cuda": null})";
}

std::string stepLine(int step, double seconds, bool warmup) {
  std::ostringstream s;
  s << R"({"record": "step", "step": )" << step << R"(, "epoch": 0, "seconds": )" << seconds
    << R"(, "samples": 128, "per_second": )" << 128 / seconds << R"(, "loss": 2.0, "warmup": )"
    << (warmup ? "true" : "false") << "}";
  return s.str();
}

std::string goodLog() {
  std::string t = startLine() + "\n";
  for (int i = 1; i <= 8; ++i) t += stepLine(i, i <= 3 ? 0.05 : 0.010 + 0.001 * (i % 2), i <= 3) + "\n";
  return t + R"({"record": "end", "steps": 8, "seconds": 0.3, "peak_memory_bytes": 1000000, "memory": "host_rss"})" + "\n";
}

TEST(RunLog, ReadsAGoodLogAndItsSteadyState) {
  const RunLog log = core::bridge::parseRunLog(goodLog(), "run.jsonl");
  EXPECT_EQ(log.model, "mlp");
  EXPECT_EQ(log.steps.size(), 8u);
  EXPECT_TRUE(log.finished);
  const auto ss = core::bridge::steadyState(log);
  EXPECT_EQ(ss.steps, 5);            // warm-up left out
  EXPECT_DOUBLE_EQ(ss.stepSeconds, 0.010);  // median of 0.010, 0.011, 0.010, 0.011, 0.010
  EXPECT_NEAR(ss.perSecond, 128 / 0.010, 1e-6);
}

TEST(RunLog, BadLogsAreRefusedNamingTheLineAndField) {
  const std::string good = goodLog();
  // Truncated: the last line cut mid-object.
  const std::string truncated = good.substr(0, good.size() - 20);
  EXPECT_NE(errorOf([&] { core::bridge::parseRunLog(truncated, "t.jsonl"); }).find("t.jsonl:10: truncated"), std::string::npos);
  // A missing field.
  std::string missing = startLine() + "\n" + R"({"record": "step", "step": 1, "epoch": 0, "samples": 128, "per_second": 1, "warmup": false})";
  EXPECT_NE(errorOf([&] { core::bridge::parseRunLog(missing, "m.jsonl"); }).find("m.jsonl:2: field 'seconds': missing"),
            std::string::npos);
  // A foreign file.
  EXPECT_NE(errorOf([&] { core::bridge::parseRunLog("{\"loss\": 1}\n", "f.jsonl"); }).find("f.jsonl:1: field 'record'"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { core::bridge::parseRunLog("epoch,loss\n1,2\n", "f.csv"); }).find("f.csv:1: broken JSON"),
            std::string::npos);
  // A run of another model: mlp's name with another parameter count.
  EXPECT_NE(errorOf([&] { core::bridge::parseRunLog(startLine("mlp", 12345) + "\n", "o.jsonl"); })
                .find("o.jsonl:1: field 'params': 12345 trainable parameters, but AccelLab's mlp"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { core::bridge::parseRunLog(startLine("gpt-5", 1) + "\n", "u.jsonl"); }).find("field 'model'"),
            std::string::npos);
  EXPECT_FALSE(core::bridge::looksLikeRunLog("id,model\n"));
  EXPECT_TRUE(core::bridge::looksLikeRunLog(good));
}

TEST(RunPrediction, MatchesGpusByTheirReportedName) {
  const auto cat = devices();
  RunLog log;
  log.deviceType = "cuda";
  log.deviceName = "NVIDIA H100 80GB HBM3";
  EXPECT_EQ(core::bridge::matchDevice(cat, log), "h100");
  log.deviceName = "NVIDIA A100-SXM4-80GB";
  EXPECT_EQ(core::bridge::matchDevice(cat, log), "a100-80");
  log.deviceName = "Tesla V100-SXM2-16GB";
  EXPECT_EQ(core::bridge::matchDevice(cat, log), "v100");
  log.deviceName = "Tesla T4";
  EXPECT_EQ(core::bridge::matchDevice(cat, log), "t4");
  log.deviceName = "Some Future Chip";
  EXPECT_EQ(core::bridge::matchDevice(cat, log), "");
}

TEST(RunPrediction, PredictsTheSameConfigurationWithTheError) {
  RunLog log = core::bridge::parseRunLog(goodLog(), "run.jsonl");
  log.deviceType = "cuda";
  const auto p = core::bridge::predictRun(devices(), stacks(), log, "v100");
  ASSERT_TRUE(p.known) << p.why;
  EXPECT_EQ(p.stackId, "pytorch-eager");
  // One sign convention: simulated throughput / measured - 1 (a slower prediction is negative).
  EXPECT_NEAR(p.error, 0.010 / p.stepSeconds - 1, 1e-9);
  EXPECT_EQ(p.error < 0, p.stepSeconds > 0.010);
  EXPECT_NE(core::bridge::errorInWords(-0.31).find("31% slower than measured"), std::string::npos);
  EXPECT_NE(core::bridge::errorInWords(0.124).find("12% faster than measured"), std::string::npos);
  EXPECT_NE(core::bridge::errorInWords(0.0001).find("matches"), std::string::npos);
  const auto none = core::bridge::predictRun(devices(), stacks(), log, "");
  EXPECT_FALSE(none.known);
  EXPECT_NE(none.why.find("--device"), std::string::npos);
}

// Real logs of exported jobs run on a lent H100 and a lent H200 (2026-11-26, PyTorch 2.11):
// each is read, matched to the catalog's device from the name PyTorch reported, and its steady
// state is the figure resources/reference/accellab-h100-2026-11.csv states for it, so the
// held-out file says only what the logs measured.
TEST(RunPrediction, RealGpuLogsMatchTheirHeldOutReferenceRows) {
  std::vector<int> lines;
  const auto rows = core::util::parseCsv(
      core::util::readFile(core::util::resourceDir() + "/reference/accellab-h100-2026-11.csv"), "ref", lines);
  ASSERT_EQ(rows.size(), 13u);  // header + 6 runs on each GPU
  const auto cat = devices();
  int checked = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const std::string model = r[1], device = r[3], metric = r[9];
    const double value = std::stod(r[10]);
    const std::string source = r[18];
    const auto at = source.find("tests/data/");
    ASSERT_NE(at, std::string::npos) << r[0] << " names no log";
    const std::string file = std::string(ACCELLAB_TEST_DATA) + "/" + source.substr(at + std::string("tests/data/").size());
    const RunLog log = core::bridge::readRunLog(file);
    EXPECT_EQ(log.model, model) << file;
    EXPECT_EQ(core::bridge::matchDevice(cat, log), device) << log.deviceName;
    EXPECT_TRUE(log.finished) << file;
    const auto steady = core::bridge::steadyState(log);
    if (metric == "step_seconds") EXPECT_NEAR(steady.stepSeconds, value, 0.005 * value) << r[0];
    else EXPECT_NEAR(steady.samplesPerSecond, value, 0.005 * value) << r[0];
    ++checked;
  }
  EXPECT_EQ(checked, 12);
}

// A transformer's log (char-gpt on an H100) is predicted as a step with its plan part, not as a
// run: its report states no epochs or run (zeros there would read as a free, instant run).
TEST(RunPrediction, ATransformerLogIsPredictedAsAStepWithItsPlan) {
  const RunLog log = core::bridge::readRunLog(std::string(ACCELLAB_TEST_DATA) + "/h100-2026-11/chargpt.jsonl");
  const auto p = core::bridge::predictRun(devices(), stacks(), log, "h100");
  ASSERT_TRUE(p.why.empty()) << p.why;
  ASSERT_TRUE(p.report.llm.has_value());
  EXPECT_DOUBLE_EQ(p.report.stepSeconds, p.stepSeconds);
  const core::util::Json j = core::sim::simReportToJson(p.report);
  EXPECT_EQ(j.at("dataset").asString(), log.dataset);
  for (const char* key : {"epochs", "epoch_seconds", "run_seconds", "usd_per_run"}) EXPECT_FALSE(j.contains(key)) << key;
  EXPECT_EQ(j.at("energy_basis").asString(), "one hour");
  const core::util::Json back = core::util::Json::parse(j.dump(), "report.json");
  const auto again = core::sim::simReportFromJson(core::util::JsonReader(back, "report.json"));
  EXPECT_EQ(core::sim::simReportToJson(again).dump(), j.dump());
}

// --- calibration on synthetic measurements --------------------------------------------------------

// Runs "measured" on a device whose true software figures are known.
std::vector<RunLog> syntheticRuns(const core::hw::DeviceSpec& truth, const std::vector<std::pair<std::string, int>>& configs) {
  const core::sim::Simulator sim(devices(), stacks());
  const auto st = stacks();
  std::vector<RunLog> runs;
  int k = 0;
  for (const auto& [model, batch] : configs) {
    core::sim::SimConfig c;
    c.modelId = model;
    c.datasetId = model == "resnet20" ? "cifar10" : "fashion-mnist";
    c.deviceId = truth.id;
    c.batch = batch;
    c.precision = core::util::Precision::FP16;
    c.perLayer = false;
    const double t = core::sim::simulateWorkload(*sim.workload(c.modelId, c.datasetId), truth, st.defaultFor(truth.kind), c).stepSeconds;
    RunLog log;
    log.path = "run" + std::to_string(++k) + ".jsonl";
    log.model = model;
    log.dataset = c.datasetId;
    log.batch = batch;
    log.precision = "fp16";
    log.unit = "images";
    log.deviceType = "cuda";
    log.deviceName = "Lab GPU";
    for (int i = 1; i <= 5; ++i) {
      core::bridge::LoggedStep s;
      s.step = i;
      s.seconds = t;
      s.samples = batch;
      log.steps.push_back(s);
    }
    runs.push_back(log);
  }
  return runs;
}

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

// --- trusting what comes back -------------------------------------------------------------------

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
