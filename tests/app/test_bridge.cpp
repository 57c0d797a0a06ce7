// The bridge to real hardware in the GUI: File > Export as PyTorch job writes train.py and its
// README; File > Import measured run adds the run to the runs list as measured on its device,
// with the simulator's prediction, and keeps it in run history; a bad log is refused with its
// line and field named, and nothing in the history is lost.
#include <QDir>
#include <QFile>
#include <QMenuBar>
#include <QTemporaryDir>
#include <QtTest>

#include "app/gui/bridge_controller.h"
#include "app/gui/main_window.h"
#include "app/gui/message_bar.h"
#include "app/gui/run_controller.h"
#include "app_test_env.h"
#include "core/experiment/run_database.h"
#include "widgets/run_store.h"

using app::gui::MainWindow;

namespace {

const char* kStart =
    R"({"record": "start", "format": "accellab-run-log", "version": 1, "model": "mlp", "dataset": "fashion-mnist", "batch": 128, "precision": "fp32", "seed": 0, "params": 669706, "unit": "images", "device": "cuda", "device_name": "NVIDIA H100 80GB HBM3", "device_count": 1, "strategy": "single", "torch": "2.5.1", "cuda": "12.4"})";

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
  const QString path = dir.filePath(name);
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(text);
  return path;
}

QByteArray goodLog() {
  QByteArray t = QByteArray(kStart) + "\n";
  for (int i = 1; i <= 6; ++i)
    t += QString(R"({"record": "step", "step": %1, "epoch": 0, "seconds": %2, "samples": 128, "per_second": %3, "loss": 2.0, "warmup": %4})")
             .arg(i)
             .arg(i <= 2 ? 0.05 : 0.002)
             .arg(i <= 2 ? 128 / 0.05 : 128 / 0.002)
             .arg(i <= 2 ? "true" : "false")
             .toUtf8() +
         "\n";
  return t + R"({"record": "end", "steps": 6, "seconds": 0.2, "peak_memory_bytes": 1000000, "memory": "device"})" + "\n";
}

// The keys of the runs in the window's history database, as another reader sees them.
QStringList historyRuns(const MainWindow& w) {
  QStringList keys;
  core::experiment::RunDatabase db(w.runController()->historyFolder().toStdString());
  for (const auto& r : db.runs().runs) keys << QString::fromStdString(r.key);
  return keys;
}

}  // namespace

class TestBridge : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

private slots:
  void initTestCase() {
    app_test::isolate(m_dir);
  }

  void theMenusOfferTheBridge() {
    MainWindow w;
    QVERIFY(w.findChild<QAction*>("exportPyTorchJobAction"));
    QVERIFY(w.findChild<QAction*>("importMeasuredRunAction"));
    QVERIFY(w.findChild<QAction*>("calibrateDeviceAction"));
  }

  void exportWritesARunnableJob() {
    MainWindow w;
    QTemporaryDir out;
    const QString py = w.bridgeController()->exportJob(out.filePath("job"));
    QVERIFY2(!py.isEmpty(), qPrintable(w.messageBar()->text()));
    QFile f(py);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray text = f.readAll();
    QVERIFY(text.contains("def build_model():"));
    QVERIFY(text.contains("\"model\": \"colab-cnn\""));  // the first start's experiment (E3)
    QVERIFY(QFile::exists(out.filePath("job/README.md")));
  }

  void importAddsAMeasuredRunWithItsPredictionAndKeepsIt() {
    QTemporaryDir logs;
    MainWindow w;
    const int before = static_cast<int>(w.store()->runs().size());
    const QStringList filesBefore = historyRuns(w);
    const int id = w.bridgeController()->importRun(writeFile(logs, "h100.jsonl", goodLog()));
    QVERIFY2(id > 0, qPrintable(w.messageBar()->text()));
    QCOMPARE(static_cast<int>(w.store()->runs().size()), before + 1);
    const widgets::Run* run = w.store()->run(id);
    QVERIFY(run);
    QVERIFY(run->name.startsWith("measured on NVIDIA H100"));
    QCOMPARE(run->devices.size(), 1);
    QVERIFY(run->devices[0].measured);
    QCOMPARE(run->devices[0].deviceId, QString("h100"));
    QVERIFY(run->devices[0].report.stepSeconds > 0);  // the prediction, for the host-check chart
    QCOMPARE(static_cast<int>(run->batches.size()), 6);
    QVERIFY(run->statusMessage.contains("error"));
    QTRY_COMPARE_WITH_TIMEOUT(historyRuns(w).size(), filesBefore.size() + 1, 5000);  // kept in run history
  }

  void aBadLogIsRefusedAndNothingIsLost() {
    QTemporaryDir logs;
    MainWindow w;
    const auto atStart = historyRuns(w).size();
    QVERIFY(w.bridgeController()->importRun(writeFile(logs, "ok.jsonl", goodLog())) > 0);
    const int before = static_cast<int>(w.store()->runs().size());
    QTRY_COMPARE_WITH_TIMEOUT(historyRuns(w).size(), atStart + 1, 5000);  // the good one is on disk
    const QStringList filesBefore = historyRuns(w);
    QByteArray truncated = goodLog();
    truncated.chop(30);
    QCOMPARE(w.bridgeController()->importRun(writeFile(logs, "cut.jsonl", truncated)), 0);
    QVERIFY(w.messageBar()->text().contains("cut.jsonl:8"));
    QByteArray missing = QByteArray(kStart) + "\n" + R"({"record": "step", "step": 1, "epoch": 0, "samples": 128, "per_second": 1, "warmup": false})" + "\n";
    QCOMPARE(w.bridgeController()->importRun(writeFile(logs, "missing.jsonl", missing)), 0);
    QVERIFY(w.messageBar()->text().contains("missing.jsonl:2: field 'seconds'"));
    QByteArray other = QByteArray(kStart).replace("669706", "1234") + "\n";
    QCOMPARE(w.bridgeController()->importRun(writeFile(logs, "other.jsonl", other)), 0);
    QVERIFY(w.messageBar()->text().contains("another model"));
    QCOMPARE(w.bridgeController()->importRun(writeFile(logs, "foreign.jsonl", "P1\n3 2\n")), 0);
    QCOMPARE(static_cast<int>(w.store()->runs().size()), before);
    QCOMPARE(historyRuns(w), filesBefore);
  }
};

QTEST_MAIN(TestBridge)
#include "test_bridge.moc"
