// The bridge to real hardware: the model graph, the PyTorch export, the run-log reader and the
// prediction beside a measured run (calibration and trust: test_calibration.cpp).
#include "bridge_test_support.h"

namespace {

using namespace bridge_test;

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

}  // namespace
