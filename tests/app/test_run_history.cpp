// The run history: every run survives a save and a reload (NaN losses of a diverged run
// included), a run still going comes back stopped, a bad run is skipped, a broken file is
// moved aside with an error naming it.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "app/gui/run_history.h"
#include "app_test_env.h"
#include "core/util/error.h"
#include "widgets/run_store.h"

using core::experiment::RunStatus;

namespace {

widgets::Run sampleRun(RunStatus status) {
  widgets::Run r;
  r.name = "colab-cnn · fashion-mnist · b1024";
  r.color = QColor("#0072b2");
  r.visible = false;
  r.status = status;
  r.statusMessage = "loss became NaN at step 3";
  r.presetId = "e3-colab-fashion";
  r.config.modelId = "colab-cnn";
  r.config.batch = 1024;
  r.config.limit = 2048;
  r.config.precision = core::util::Precision::BF16;
  r.config.bnStatsSamples = 10240;
  r.targetAccuracy = 0.85;
  for (int i = 1; i <= 3; ++i) {
    core::experiment::BatchSample b;
    b.epoch = 1;
    b.step = i;
    b.loss = i == 3 ? std::nan("") : 2.0 / i;
    b.accuracy = 0.1 * i;
    b.images = 1024 * i;
    b.wallSeconds = 0.5 * i;
    b.stepSeconds = 0.5;
    r.batches.push_back(b);
  }
  core::experiment::EpochSample e;
  e.epoch = 1;
  e.testAccuracy = 0.71;
  e.hostSeconds = 1.5;
  e.images = 2048;
  r.epochs.push_back(e);
  widgets::DeviceResult d;
  d.deviceId = "tpu-v2-8";
  d.label = "tpu-v2-8 (simulated)";
  d.report.config.deviceId = "tpu-v2-8";
  d.report.config.batch = 1024;
  d.report.stepSeconds = 0.012;
  d.report.bound = core::sim::Bound::Overhead;
  d.report.breakdown.overheadSeconds = 0.01;
  d.report.fitsInMemory = false;
  d.report.precisionNote = "bf16";
  d.epochSeconds = {7.5};
  r.devices << d;
  widgets::ReferenceMark m{"throughput", "tpu-v2-8", std::nan(""), 12800, "published"};
  r.references << m;
  return r;
}

}  // namespace

class TestRunHistory : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

private slots:
  void initTestCase() { app_test::isolate(m_dir); }

  void everyFieldSurvivesSaveAndLoad() {
    widgets::RunStore store;
    store.addRun(sampleRun(RunStatus::Diverged));
    const QString path = QDir(m_dir.path()).filePath("h/runs.json");
    app::gui::saveRunHistory(store, path);
    widgets::RunStore back;
    QVERIFY(app::gui::loadRunHistory(back, path).isEmpty());
    QCOMPARE(back.runs().size(), std::size_t(1));
    const widgets::Run& a = store.runs()[0];
    const widgets::Run& b = back.runs()[0];
    QCOMPARE(b.name, a.name);
    QCOMPARE(b.color, a.color);
    QCOMPARE(b.visible, false);
    QCOMPARE(b.status, RunStatus::Diverged);
    QCOMPARE(b.statusMessage, a.statusMessage);
    QCOMPARE(b.presetId, a.presetId);
    QCOMPARE(b.config.limit, 2048);
    QCOMPARE(b.config.precision, core::util::Precision::BF16);
    QCOMPARE(b.config.bnStatsSamples, std::int64_t{10240});
    QCOMPARE(b.targetAccuracy, 0.85);
    QCOMPARE(b.batches.size(), std::size_t(3));
    QVERIFY(std::isnan(b.batches[2].loss));
    QCOMPARE(b.batches[1].loss, 1.0);
    QCOMPARE(b.batches[2].images, 3072);
    QCOMPARE(b.epochs[0].testAccuracy, 0.71);
    QCOMPARE(b.devices.size(), 1);
    QCOMPARE(b.devices[0].report.bound, core::sim::Bound::Overhead);
    QCOMPARE(b.devices[0].report.fitsInMemory, false);
    QCOMPARE(b.devices[0].report.precisionNote, std::string("bf16"));
    QCOMPARE(b.devices[0].epochSeconds, QVector<double>({7.5}));
    QVERIFY(std::isnan(b.references[0].x));
    QCOMPARE(b.references[0].value, 12800.0);
  }

  void aRunStillGoingComesBackStopped() {
    const std::string text = app::gui::runsToJson({sampleRun(RunStatus::Running)});
    const auto runs = app::gui::runsFromJson(text, "runs.json");
    QCOMPARE(runs[0].status, RunStatus::Stopped);
    QVERIFY(runs[0].statusMessage.contains("Interrupted"));
  }

  void aBadRunIsSkippedNamingTheKey() {
    std::string text = app::gui::runsToJson({sampleRun(RunStatus::Finished), sampleRun(RunStatus::Finished)});
    text.replace(text.rfind("\"batch\": 1024"), 13, "\"batch\": -1");
    QStringList skipped;
    const auto runs = app::gui::runsFromJson(text, "runs.json", &skipped);
    QCOMPARE(runs.size(), std::size_t(1));
    QCOMPARE(skipped.size(), 1);
    QVERIFY2(skipped[0].startsWith("runs.json: runs[1]."), qPrintable(skipped[0]));
  }

  void aBrokenFileIsMovedAside() {
    const QString path = QDir(m_dir.path()).filePath("broken/runs.json");
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"format\": \"accellab-runs\", ");
    f.close();
    widgets::RunStore store;
    QString error;
    try {
      app::gui::loadRunHistory(store, path);
    } catch (const core::util::Error& e) {
      error = e.what();
    }
    QVERIFY2(error.startsWith(path), qPrintable(error));
    QVERIFY(!QFile::exists(path));
    QVERIFY(QFile::exists(path + ".broken"));
    QVERIFY(store.runs().empty());
    // A missing file is simply an empty history.
    QVERIFY(app::gui::loadRunHistory(store, path).isEmpty());
  }
};

QTEST_MAIN(TestRunHistory)
#include "test_run_history.moc"
