// The same experiment simulated through the app (SimService, as the Hardware panel and a run
// do) and through the CLI (`accellab-cli simulate` with the flags that say the same) gives
// the same step time, memory, epoch and precision: both build their configuration with
// core::experiment::simConfigFor and its one precision policy. Cases: fp32 on a TPU (no fp32
// peak: bf16 in both), several devices in data parallel, a subset of a dataset, a scalable
// CPU, a software stack.
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <sstream>

#include "app/cli/commands.h"
#include "app/gui/sim_service.h"
#include "app_test_env.h"
#include "core/util/json.h"

namespace {

struct Case {
  const char* name;
  core::experiment::TrainConfig train;
  core::experiment::DeviceChoice choice;
  std::vector<std::string> cliArgs;  // what the CLI is told for the same experiment
};

core::experiment::TrainConfig train(const char* model, const char* dataset, int batch, int epochs = 1,
                                    std::int64_t limit = 0) {
  core::experiment::TrainConfig t;
  t.modelId = model;
  t.datasetId = dataset;
  t.batch = batch;
  t.epochs = epochs;
  t.limit = limit;
  return t;
}

core::experiment::DeviceChoice device(const char* id, int count = 1, int vcpus = 0,
                                      std::optional<core::util::Precision> precision = std::nullopt,
                                      const char* stack = "") {
  core::experiment::DeviceChoice d;
  d.deviceId = id;
  d.count = count;
  d.vcpus = vcpus;
  d.precision = precision;
  d.stackId = stack;
  return d;
}

std::vector<Case> cases() {
  using core::util::Precision;
  return {
      {"fp32 on a TPU", train("cifar-cnn", "cifar10", 128), device("tpu-v3-8"),
       {"--model", "cifar-cnn", "--dataset", "cifar10", "--device", "tpu-v3-8", "--batch", "128"}},
      {"fp32 chosen on a TPU", train("cifar-cnn", "cifar10", 128), device("tpu-v3-8", 1, 0, Precision::FP32),
       {"--model", "cifar-cnn", "--dataset", "cifar10", "--device", "tpu-v3-8", "--batch", "128", "--precision", "fp32"}},
      {"4 V100s, fp16", train("resnet50", "imagenet", 256), device("v100", 4, 0, Precision::FP16),
       {"--model", "resnet50", "--dataset", "imagenet", "--device", "v100", "--count", "4", "--batch", "256",
        "--precision", "fp16"}},
      {"a subset, 2 epochs", train("colab-cnn", "fashion-mnist", 1024, 2, 10000), device("k80"),
       {"--model", "colab-cnn", "--dataset", "fashion-mnist", "--device", "k80", "--batch", "1024", "--epochs", "2",
        "--limit", "10000"}},
      {"16 vCPUs", train("mnist-cnn", "mnist", 128), device("cpu-skylake", 1, 16),
       {"--model", "mnist-cnn", "--dataset", "mnist", "--device", "cpu-skylake", "--vcpus", "16", "--batch", "128"}},
      {"a 2017 stack", train("colab-cnn", "fashion-mnist", 1024, 5, 10000), device("k80", 1, 0, std::nullopt, "keras-2017"),
       {"--model", "colab-cnn", "--dataset", "fashion-mnist", "--device", "k80", "--batch", "1024", "--epochs", "5",
        "--limit", "10000", "--stack", "keras-2017"}},
  };
}

bool close(double a, double b) { return std::abs(a - b) <= 2e-5 * std::max(std::abs(a), std::abs(b)); }

}  // namespace

class TestSimPaths : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

private slots:
  void initTestCase() { app_test::isolate(m_dir); }

  void appAndCliAgree_data() {
    QTest::addColumn<int>("index");
    const auto all = cases();
    for (std::size_t i = 0; i < all.size(); ++i) QTest::newRow(all[i].name) << static_cast<int>(i);
  }

  void appAndCliAgree() {
    QFETCH(int, index);
    const Case c = cases()[static_cast<std::size_t>(index)];
    static const app::gui::SimService sim;
    const core::sim::SimReport app = sim.simulateRun(c.train, c.choice);

    std::vector<std::string> argv{"simulate"};
    argv.insert(argv.end(), c.cliArgs.begin(), c.cliArgs.end());
    std::ostringstream out, err;
    QCOMPARE(app::cli::runCli(argv, out, err), 0);
    const core::util::Json cli = core::util::Json::parse(out.str(), "accellab-cli simulate");

    QCOMPARE(cli.at("precision").asString(), std::string(core::util::precisionName(app.config.precision)));
    QVERIFY2(close(cli.at("step_seconds").asNumber(), app.stepSeconds),
             qPrintable(QString("step: CLI %1 s, app %2 s").arg(cli.at("step_seconds").asNumber()).arg(app.stepSeconds)));
    QVERIFY2(close(cli.at("memory_bytes_per_device").asNumber(), app.memoryBytesPerDevice),
             qPrintable(QString("memory: CLI %1, app %2").arg(cli.at("memory_bytes_per_device").asNumber()).arg(app.memoryBytesPerDevice)));
    QVERIFY2(close(cli.at("epoch_seconds").asNumber(), app.epochSeconds),
             qPrintable(QString("epoch: CLI %1 s, app %2 s").arg(cli.at("epoch_seconds").asNumber()).arg(app.epochSeconds)));
    QCOMPARE(static_cast<std::int64_t>(cli.at("steps_per_epoch").asNumber()), app.stepsPerEpoch);
  }

  // The rule itself, as a user sees it: an fp32 experiment on a TPU runs bf16 (2-byte
  // activations) in both; fp32 chosen for the TPU stays fp32 (4-byte) in both.
  void fp32OnATpuRunsBf16UnlessChosen() {
    static const app::gui::SimService sim;
    const auto all = cases();
    const core::sim::SimReport policy = sim.simulateRun(all[0].train, all[0].choice);
    const core::sim::SimReport chosen = sim.simulateRun(all[1].train, all[1].choice);
    QCOMPARE(policy.config.precision, core::util::Precision::BF16);
    QCOMPARE(chosen.config.precision, core::util::Precision::FP32);
    QVERIFY(chosen.memoryBytesPerDevice > policy.memoryBytesPerDevice);
  }
};

QTEST_GUILESS_MAIN(TestSimPaths)
#include "test_sim_paths.moc"
