// The LLM training planner as a user drives it: presets open with every scenario answered,
// published marks beside the bars they measure, edits recompute, and exports carry every
// figure marked simulated.
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

#include "app/gui/llm_planner_window.h"
#include "app/gui/sim_service.h"
#include "app_test_env.h"
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
        QVERIFY2(!cell(results, r, 8).isEmpty(), "every scenario says why");
      }
    }
    QVERIFY(!w.openPreset("no-such-preset"));
  }

  void publishedMarksSitBesideTheirBars() {
    LlmPlannerWindow w(m_sim.get());
    QVERIFY(w.openPreset("mlperf-llama2-70b-lora"));
    QCustomPlot* throughput = w.panel()->charts().front();
    QCPGraph* marks = nullptr;
    for (int i = 0; i < throughput->graphCount(); ++i)
      if (throughput->graph(i)->name().contains("published")) marks = throughput->graph(i);
    QVERIFY(marks);
    QCOMPARE(marks->data()->size(), 2);
    // MLPerf's H200 figure: 2.56 samples/s of 8,192 tokens.
    QCOMPARE(marks->data()->at(0)->value, 2.56 * 8192);
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
    QElapsedTimer t;
    t.start();
    const int rounds = 5;
    for (int i = 0; i < rounds; ++i) w.recompute();
    const double ms = t.nsecsElapsed() / 1e6 / rounds;
    qInfo("LLM planner: %.1f ms per full recompute (8 scenarios, 88 plan searches, 4 charts)", ms);
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
    QString error;
    QVERIFY2(w.exportAll(dir, &error), qPrintable(error));
    for (const char* f : {"llm-throughput.png", "llm-cost.png", "llm-memory.png", "llm-scaling.png", "llm-results.csv",
                          "llm-results.json"})
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
};

QTEST_MAIN(TestLlmPlanner)
#include "test_llm_planner.moc"
