// The LLM training planner as a user drives it: presets open with every scenario answered,
// published marks beside the bars they measure, edits recompute, and exports carry every
// figure marked simulated.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QRegularExpression>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <sstream>
#include <qcustomplot.h>

#include "app/cli/commands.h"
#include "app/gui/llm_planner_window.h"
#include "app/gui/sim_service.h"
#include "../widgets/file_size_limit.h"
#include "app_test_env.h"
#include "core/util/csv.h"
#include "widgets/chart_frame.h"
#include "widgets/llm_planner_panel.h"

using app::gui::LlmPlannerWindow;

class TestLlmPlanner : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  std::unique_ptr<app::gui::SimService> m_sim;

  static QString cell(QTableWidget* t, int row, int col) { return t->item(row, col) ? t->item(row, col)->text() : QString(); }

private slots:
  void initTestCase() {
    app_test::isolate(m_dir);
    const std::string res = ACCELLAB_SOURCE_RESOURCES;
    m_sim = std::make_unique<app::gui::SimService>(core::hw::DeviceCatalog::loadDirs({res + "/devices"}),
                                                   core::hw::StackCatalog::loadDirs({res + "/stacks"}));
  }

  void everyShippedPresetAnswersEveryScenario() {
    LlmPlannerWindow w(m_sim.get());
    QVERIFY(w.loadErrors().isEmpty());
    QVERIFY(w.presets().size() >= 3);
    for (const auto& p : w.presets()) {
      QVERIFY(w.openPreset(QString::fromStdString(p.id)));
      QTableWidget* results = w.panel()->resultsTable();
      QCOMPARE(results->rowCount(), static_cast<int>(p.scenarios.size()));
      for (int r = 0; r < results->rowCount(); ++r) {
        QVERIFY2(!cell(results, r, 1).isEmpty(), qPrintable(QString::fromStdString(p.id)));
        QVERIFY2(!cell(results, r, results->columnCount() - 1).isEmpty(), "every scenario says why");
      }
    }
    QVERIFY(!w.openPreset("no-such-preset"));
  }

  void aConfigJsonJoinsTheModelListAndIsPlanned() {
    LlmPlannerWindow w(m_sim.get());
    QVERIFY(w.openPreset("llama3-8b-lora-vs-pretrain"));
    const int scenarios = w.panel()->resultsTable()->rowCount();
    QString error;
    QVERIFY2(w.openModel(QStringLiteral(ACCELLAB_TEST_DATA "/hf-configs/Qwen--Qwen3-30B-A3B.json"), &error), qPrintable(error));
    auto* model = w.panel()->findChild<QComboBox*>("llm_model");
    QVERIFY(model);
    QCOMPARE(model->currentData().toString(), QStringLiteral("qwen3-30b-a3b"));
    QVERIFY(model->currentText().contains("imported"));
    QCOMPARE(w.panel()->study().modelId, std::string("qwen3-30b-a3b"));
    // The preset's scenarios now plan the imported model, each one answered.
    QTableWidget* results = w.panel()->resultsTable();
    QCOMPARE(results->rowCount(), scenarios);
    for (int r = 0; r < results->rowCount(); ++r) QVERIFY(!cell(results, r, 1).isEmpty());
    QVERIFY(w.resultsJson().contains("qwen3-30b-a3b"));
    // A file that is not a model: refused with its name and why, the list unchanged.
    QTemporaryDir dir;
    QFile bad(dir.filePath("config.json"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write(R"({"model_type": "llama", "hidden_size": 4096})");
    bad.close();
    const int before = model->count();
    QVERIFY(!w.openModel(bad.fileName(), &error));
    QVERIFY2(error.contains("config.json") && error.contains("num_hidden_layers"), qPrintable(error));
    QCOMPARE(model->count(), before);
  }

  void publishedMarksSitBesideTheirBars() {
    LlmPlannerWindow w(m_sim.get());
    QVERIFY(w.openPreset("mlperf-llama2-70b-lora"));
    QCustomPlot* throughput = w.panel()->charts().front()->plot();
    // One star per published mark (hovering one names its source), all under one legend entry.
    QVector<double> marks;
    for (int i = 0; i < throughput->graphCount(); ++i)
      if (throughput->graph(i)->name().contains("published"))
        for (auto it = throughput->graph(i)->data()->constBegin(); it != throughput->graph(i)->data()->constEnd(); ++it)
          marks << it->value;
    QCOMPARE(marks.size(), 2);
    // MLPerf's H200 figure: 2.56 samples/s of 8,192 tokens.
    QCOMPARE(marks.at(0), 2.56 * 8192);
    // The simulated bar is within the calibration's reach of it (the preset is one of the
    // calibration rows; the error band is the LLM validation's).
    QCPBars* bars = qobject_cast<QCPBars*>(throughput->plottable(0));
    QVERIFY(bars);
    const double simulated = bars->data()->at(0)->value;
    QVERIFY2(std::abs(simulated / (2.56 * 8192) - 1) < 0.35, qPrintable(QString::number(simulated)));
  }

  void aFullRecomputeStaysInteractive() {
    // Eight scenarios, each a plan search plus an 11-point scaling curve (1 to 1,024 devices),
    // and four charts redrawn: the benchmark the issue asks for, held to a frame budget.
    LlmPlannerWindow w(m_sim.get());
    QVERIFY(w.openPreset("llama3-8b-lora-vs-pretrain"));
    // The fastest of five rounds: what the code costs, not what a busy machine (CTest's other
    // jobs on two cores) leaves it.
    double ms = 1e9;
    for (int i = 0; i < 5; ++i) {
      QElapsedTimer t;
      t.start();
      w.recompute();
      ms = std::min(ms, t.nsecsElapsed() / 1e6);
    }
    qInfo("LLM planner: %.1f ms per full recompute, fastest of 5 (8 scenarios, 88 plan searches, 4 charts)", ms);
    QVERIFY2(ms < 250, qPrintable(QString::number(ms)));
  }

  void editingACountRecomputes() {
    LlmPlannerWindow w(m_sim.get());
    QVERIFY(w.openPreset("nemo-llama3-8b-h100-b200"));
    QTableWidget* results = w.panel()->resultsTable();
    const QString before = cell(results, 0, 2);
    auto* scenarios = w.panel()->findChild<QTableWidget*>("llm_scenarios");
    QVERIFY(scenarios);
    auto* count = qobject_cast<QSpinBox*>(scenarios->cellWidget(0, 1));
    QVERIFY(count);
    count->setValue(64);
    QTRY_VERIFY_WITH_TIMEOUT(cell(results, 0, 2) != before, 2000);  // the debounce fires within ~60 ms
    QCOMPARE(w.panel()->study().scenarios.front().count, 64);
  }

  // Planning backwards in the planner: with a deadline, each scenario's device answers with the
  // fewest devices that meet it; the energy to the tokens sits beside the cost.
  void aDeadlineAnswersWithTheFewestDevices() {
    LlmPlannerWindow w(m_sim.get());
    QVERIFY(w.openPreset("nemo-llama3-8b-h100-b200"));
    QTableWidget* results = w.panel()->resultsTable();
    auto column = [&](const QString& header) {
      for (int c = 0; c < results->columnCount(); ++c)
        if (results->horizontalHeaderItem(c)->text() == header) return c;
      return -1;
    };
    const int fewest = column("Fewest"), energy = column("Energy to N");
    QVERIFY(fewest >= 0 && energy >= 0);
    QCOMPARE(cell(results, 0, fewest), QStringLiteral("–"));  // not asked yet
    QVERIFY2(cell(results, 0, energy).contains("kWh"), qPrintable(cell(results, 0, energy)));
    auto* tokens = w.panel()->findChild<QDoubleSpinBox*>("llm_train_tokens");
    auto* deadline = w.panel()->findChild<QDoubleSpinBox*>("llm_deadline_days");
    QVERIFY(tokens && deadline);
    tokens->setValue(1000);  // 1 T tokens
    deadline->setValue(30);
    QTRY_VERIFY_WITH_TIMEOUT(cell(results, 0, fewest) != QStringLiteral("–"), 5000);
    for (int r = 0; r < results->rowCount(); ++r) {
      const QString answer = cell(results, r, fewest);
      QVERIFY2(QRegularExpression("^\\d+ \\(").match(answer).hasMatch(), qPrintable(answer));  // "32 (29.9 days)"
    }
    QCOMPARE(w.panel()->study().deadlineDays, 30.0);
  }

  // A scenario's own price, typed in its row, prices the results as the user's.
  void aTypedScenarioPriceIsTheUsers() {
    LlmPlannerWindow w(m_sim.get());
    QVERIFY(w.openPreset("nemo-llama3-8b-h100-b200"));
    auto* scenarios = w.panel()->findChild<QTableWidget*>("llm_scenarios");
    QVERIFY(scenarios);
    auto* price = qobject_cast<QDoubleSpinBox*>(scenarios->cellWidget(0, scenarios->columnCount() - 1));
    QVERIFY(price);
    QCOMPARE(price->text(), QStringLiteral("catalog"));
    price->setValue(1.5);
    QTableWidget* results = w.panel()->resultsTable();
    QTRY_VERIFY2_WITH_TIMEOUT(cell(results, 0, 7).endsWith("(yours)"), qPrintable(cell(results, 0, 7)), 2000);  // Cost to N
    QCOMPARE(w.panel()->study().scenarios.front().userUsdPerHour.value_or(0), 1.5);
    price->setValue(0);
    QTRY_VERIFY_WITH_TIMEOUT(!cell(results, 0, 7).endsWith("(yours)"), 2000);
    QVERIFY(!w.panel()->study().scenarios.front().userUsdPerHour);
  }

  void outOfMemoryIsAnOutcomeNotAnError() {
    LlmPlannerWindow w(m_sim.get());
    QVERIFY(w.openPreset("llama3-8b-lora-vs-pretrain"));
    // One TPU v5e-8 board (8 x 16 GB) cannot hold Llama-3-8B's Adam state: shown, not hidden.
    QTableWidget* results = w.panel()->resultsTable();
    bool sawOom = false;
    for (int r = 0; r < results->rowCount(); ++r)
      if (cell(results, r, 0).startsWith("1x tpu-v5e-8") && cell(results, r, 2) == "out of memory") sawOom = true;
    QVERIFY(sawOom);
  }

  void exportsCarryEverythingMarkedSimulated() {
    LlmPlannerWindow w(m_sim.get());
    QVERIFY(w.openPreset("mlperf-llama2-70b-lora"));
    const QString dir = m_dir.filePath("export");
    QStringList errors;
    QVERIFY2(w.exportAll(dir, &errors), qPrintable(errors.join('\n')));
    for (const char* f : {"llm-throughput.png", "llm-cost.png", "llm-memory.png", "llm-scaling.png", "llm-results.csv",
                          "llm-results.json", "llm-window.png"})
      QVERIFY2(QFile::exists(dir + "/" + f), f);
    QFile csv(dir + "/llm-results.csv");
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QByteArray bytes = csv.readAll();
    QVERIFY(bytes.startsWith("\xEF\xBB\xBF"));  // UTF-8 BOM: spreadsheets read it as UTF-8
    const QString text = QString::fromUtf8(bytes);
    QCOMPARE(text.count("simulated"), 3);     // the header comment and both rows
    QFile json(dir + "/llm-results.json");
    QVERIFY(json.open(QIODevice::ReadOnly));
    QVERIFY(json.readAll().contains("\"simulated\": true"));
  }

  // A full disk: every file that could not be written is named, the old files stay whole and
  // no temporary file is left (the planner used its own QSaveFile writer, trusting commit()).
  void aFullDiskNamesEveryFileAndKeepsTheOldOnes() {
    LlmPlannerWindow w(m_sim.get());
    QVERIFY(w.openPreset("mlperf-llama2-70b-lora"));
    QTemporaryDir dir;
    const QStringList names{"llm-throughput.png", "llm-cost.png", "llm-memory.png", "llm-scaling.png",
                            "llm-results.csv", "llm-results.json", "llm-window.png"};
    for (const QString& n : names) {
      QFile f(dir.filePath(n));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("old");
    }
    QStringList errors;
    bool ok = true;
    {
      const testdata::FileSizeLimit full(2048);
      QVERIFY(full.ok());
      ok = w.exportAll(dir.path(), &errors);
    }
    QVERIFY(!ok);
    for (const QString& n : names) {
      QFile f(dir.filePath(n));
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QByteArray now = f.readAll();
      // Written whole (it fitted) or named among the failures with the old bytes kept.
      if (now != "old") continue;
      QVERIFY2(errors.filter(n).size() == 1, qPrintable(n + ": " + errors.join('\n')));
    }
    QVERIFY2(errors.filter("llm-results.json").size() == 1, qPrintable(errors.join('\n')));
    QCOMPARE(testdata::allEntries(dir.path()), [&] { QStringList s = names; s.sort(); return s; }());
  }

  // Device and stack ids reach the CSV escaped: one with a comma and a quote stays one field.
  // Export Job… writes, for the selected scenario, the very job accellab-cli export-script
  // writes with the scenario's options: train.py and README.md byte for byte. A TPU scenario
  // is refused naming why, and a folder that holds a job is not written over unless asked.
  void exportJobWritesTheJobExportScriptWrites() {
    LlmPlannerWindow w(m_sim.get());
    QVERIFY(w.openPreset("llama3-8b-lora-vs-pretrain"));
    core::sim::LlmStudy study = w.panel()->study();
    study.seqLen = 1024;
    study.batch = 64;
    w.panel()->setStudy(study);
    w.recompute();
    QTableWidget* results = w.panel()->resultsTable();
    int lora = -1, tpu = -1;
    for (int i = 0; i < static_cast<int>(study.scenarios.size()); ++i) {
      const auto& sc = study.scenarios[static_cast<std::size_t>(i)];
      if (sc.deviceId == "h100" && sc.finetune == core::sim::Finetune::Lora) lora = i;
      if (sc.deviceId.rfind("tpu", 0) == 0 && tpu < 0) tpu = i;
    }
    QVERIFY(lora >= 0 && tpu >= 0);
    QTemporaryDir gui, cli;
    QString error, summary;
    results->setCurrentCell(lora, 0);
    QCOMPARE(w.panel()->selectedScenario(), lora);
    QVERIFY2(w.exportJob(gui.path(), false, &error, &summary), qPrintable(error));
    QVERIFY2(summary.contains("torchrun --standalone --nproc_per_node 8"), qPrintable(summary));

    const auto& sc = study.scenarios[static_cast<std::size_t>(lora)];
    std::vector<std::string> argv{"export-script", "--model", study.modelId, "--seq-len", "1024", "--batch", "64",
                                  "--precision", core::util::precisionName(study.precision), "--finetune", "lora",
                                  "--lora-rank", std::to_string(study.loraRank), "--device", sc.deviceId, "--count",
                                  std::to_string(sc.count), "--out", cli.path().toStdString()};
    std::ostringstream out, err;
    QCOMPARE(app::cli::runCli(argv, out, err), 0);
    for (const char* file : {"train.py", "README.md"}) {
      QFile a(QDir(gui.path()).filePath(file)), b(QDir(cli.path()).filePath(file));
      QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
      QVERIFY2(a.readAll() == b.readAll(), file);
    }
    // Written once: the same folder again is refused, then replaced when asked.
    QVERIFY(!w.exportJob(gui.path(), false, &error));
    QVERIFY2(error.contains("already exists"), qPrintable(error));
    QVERIFY2(w.exportJob(gui.path(), true, &error), qPrintable(error));
    // A TPU runs JAX or PyTorch/XLA, not this job: said, and nothing written.
    QTemporaryDir none;
    results->setCurrentCell(tpu, 0);
    QVERIFY(!w.exportJob(none.path(), false, &error));
    QVERIFY2(error.contains("is a TPU"), qPrintable(error));
    QVERIFY(!QFileInfo::exists(QDir(none.path()).filePath("train.py")));
  }

  void theCsvEscapesDeviceAndStack() {
    LlmPlannerWindow w(m_sim.get());
    QVERIFY(w.openPreset("mlperf-llama2-70b-lora"));
    const QString device = "h100,\"sxm\"", stack = "my,stack";
    w.panel()->setCatalogs({{"llama3-8b", "Llama 3 8B", false, 0}}, {{device, "odd"}}, {stack});
    core::sim::LlmStudy study = w.panel()->study();
    study.modelId = "llama3-8b";
    study.scenarios = {{device.toStdString(), 8, stack.toStdString(), core::sim::Finetune::Full, std::nullopt}};
    w.panel()->setStudy(study);
    w.recompute();
    std::vector<int> lines;
    const auto rows = core::util::parseCsv(w.resultsCsv().toStdString(), "llm-results.csv", lines);
    QCOMPARE(rows.size(), std::size_t{3});  // the comment line, the header, one scenario
    QCOMPARE(rows[2].size(), rows[1].size());
    QCOMPARE(QString::fromStdString(rows[2][1]), device);
    QCOMPARE(QString::fromStdString(rows[2][3]), stack);
  }

  // A study naming a device or a stack the catalogs do not know is refused with the key, not
  // shown with the first catalog device or the default stack in their place.
  void anUnknownDeviceOrStackIsRefusedByKey() {
    QTemporaryDir res;
    QVERIFY(QDir().mkpath(res.filePath("llm-presets")));
    const QString shipped = QString(ACCELLAB_SOURCE_RESOURCES) + "/llm-presets/2-mlperf-llama2-70b-lora.json";
    QFile in(shipped);
    QVERIFY(in.open(QIODevice::ReadOnly));
    const QByteArray text = in.readAll();
    QVERIFY(text.contains("\"device\": \"h200\""));
    auto write = [&](const QString& name, QByteArray bytes) {
      QFile f(res.filePath("llm-presets/" + name));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(bytes);
    };
    QByteArray badDevice = text;
    badDevice.replace("\"mlperf-llama2-70b-lora\"", "\"bad-device\"").replace("\"device\": \"h200\"", "\"device\": \"h999\"");
    write("a-bad-device.json", badDevice);
    QByteArray badStack = text;
    badStack.replace("\"mlperf-llama2-70b-lora\"", "\"bad-stack\"");
    const qsizetype at = badStack.indexOf("\"stack\": \"mlperf\"");
    QVERIFY(at > 0);
    badStack.replace(at, 17, "\"stack\": \"no-such-stack\"");
    write("b-bad-stack.json", badStack);
    write("c-good.json", text);
    const QByteArray old = qgetenv("ACCELLAB_RESOURCES");
    qputenv("ACCELLAB_RESOURCES", res.path().toUtf8());
    LlmPlannerWindow w(m_sim.get());
    if (old.isEmpty()) qunsetenv("ACCELLAB_RESOURCES");
    else qputenv("ACCELLAB_RESOURCES", old);
    QCOMPARE(w.presets().size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(w.presets().front().id), QString("mlperf-llama2-70b-lora"));
    const QString errors = w.loadErrors().join('\n');
    QVERIFY2(errors.contains("a-bad-device.json") && errors.contains("scenarios[0].device") && errors.contains("h999"),
             qPrintable(errors));
    QVERIFY2(errors.contains("b-bad-stack.json") && errors.contains("scenarios[0].stack") && errors.contains("no-such-stack"),
             qPrintable(errors));
    QVERIFY(!w.openPreset("bad-device"));
    QVERIFY(w.presetError("bad-device").contains("h999"));
    QVERIFY(w.presetError("bad-stack").contains("no-such-stack"));
  }
};

QTEST_MAIN(TestLlmPlanner)
#include "test_llm_planner.moc"
