// The scriptable start: options are parsed strictly (errors name the option), and a scripted
// run of a preset writes every chart in every format, the data and a window screenshot.
#include <QDir>
#include <QFile>
#include <QImage>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include "app/gui/launch_options.h"
#include "app/gui/experiment_model.h"
#include "app/gui/main_window.h"
#include "app/gui/preset_controller.h"
#include "app/gui/script_runner.h"
#include "app_test_env.h"
#include "widgets/chart_base.h"
#include "widgets/chart_deck.h"
#include "widgets/experiment_panel.h"
#include "widgets/run_store.h"

using app::gui::LaunchOptions;
using app::gui::parseLaunchOptions;

namespace {

QString optionError(const QStringList& args) {
  try {
    parseLaunchOptions(QStringList{"accellab"} + args);
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what());
  }
  return {};
}

}  // namespace

class TestScriptedStart : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

private slots:
  void initTestCase() {
    app_test::isolate(m_dir);
    QApplication::setApplicationName("AccelLab");
    QApplication::setOrganizationName("AccelLab");
  }

  void optionsParse() {
    const LaunchOptions o = parseLaunchOptions({"accellab", "--preset", "e3", "--limit", "1000", "--epochs", "2", "--run",
                                                "--export-dir", "/tmp/out", "--quit-when-done"});
    QCOMPARE(o.presetId, QString("e3"));
    QCOMPARE(o.limit, std::optional<qint64>(1000));
    QCOMPARE(o.epochs, std::optional<int>(2));
    QVERIFY(o.run && o.quitWhenDone && o.scripted());
    QCOMPARE(o.exportDir, QString("/tmp/out"));
    QVERIFY(parseLaunchOptions({"accellab", "--list-presets"}).listPresets);
    QVERIFY(!parseLaunchOptions({"accellab"}).scripted());
    QVERIFY(app::gui::launchHelpText().contains("--quit-when-done"));
    QVERIFY(app::gui::launchHelpText().contains("accellab"));
  }

  void badOptionsNameTheOption() {
    QVERIFY(optionError({"--limit", "many"}).contains("--limit: 'many' is not a whole number"));
    QVERIFY(optionError({"--epochs", "0"}).contains("--epochs: 0 is out of range"));
    QVERIFY(optionError({"--bach", "3"}).contains("bach"));
    QVERIFY(optionError({"--preset"}).contains("preset"));
    QVERIFY(optionError({"stray"}).contains("stray"));
    QVERIFY(optionError({"--measure-latency"}).contains("--measure-latency: needs --run"));
    QVERIFY(parseLaunchOptions({"accellab", "--run", "--measure-latency"}).measureLatency);
    QVERIFY(optionError({"--theme", "blue"}).contains("--theme: 'blue' is not light or dark"));
    QCOMPARE(parseLaunchOptions({"accellab", "--theme", "dark", "--presentation"}).theme, QString("dark"));
    QVERIFY(parseLaunchOptions({"accellab", "--presentation"}).presentation);
  }

  void aScriptedRunWritesEverything() {
    QTemporaryDir out;
    app::gui::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    LaunchOptions o;
    o.presetId = "e5";  // simulation only: instant
    o.epochs = 3;
    o.run = true;
    o.exportDir = out.path();
    app::gui::ScriptRunner script(&window, o);
    QSignalSpy done(&script, &app::gui::ScriptRunner::done);
    script.start();
    QTRY_COMPARE(done.count(), 1);
    QCOMPARE(done.first().first().toInt(), 0);
    QCOMPARE(window.experimentModel()->experiment().train.epochs, 3);
    const widgets::Run* run = window.store()->run(window.store()->currentRunId());
    QVERIFY(run && run->presetId == "e5-kaggle-cifar10");
    QCOMPARE(run->devices.first().epochSeconds.size(), 3);
    const QDir dir(out.path());
    for (const auto* chart : window.deck()->charts())
      for (const QString ext : {"png", "pdf", "svg"})
        QVERIFY2(dir.exists(chart->chartId() + "." + ext), qPrintable(chart->chartId() + "." + ext));
    for (const QString f : {"all-charts.pdf", "data.csv", "data.json", "window.png"}) QVERIFY2(dir.exists(f), qPrintable(f));
    QVERIFY(!QImage(dir.filePath("window.png")).isNull());
    // data.json carries the preset's comparison rows, for a script to check the agreement.
    QFile json(dir.filePath("data.json"));
    QVERIFY(json.open(QIODevice::ReadOnly));
    const QJsonObject root = QJsonDocument::fromJson(json.readAll()).object();
    QCOMPARE(root["preset"].toString(), QString("e5-kaggle-cifar10"));
    const QJsonArray rows = root["comparisons"].toArray();
    QCOMPARE(rows.size(), window.presetController()->current()->comparisons.size());
    for (const QJsonValue& v : rows) {
      const QJsonObject row = v.toObject();
      for (const char* key : {"label", "published", "accellab", "error", "tolerance", "agrees", "explanation"})
        QVERIFY2(row.contains(key), key);
      QVERIFY(row["compared"].toBool());
      // agrees is exactly "the error is within the tolerance".
      QCOMPARE(row["agrees"].toBool(), std::abs(row["error"].toDouble()) <= row["tolerance"].toDouble());
    }
  }

  void anUnknownPresetFails() {
    app::gui::MainWindow window;
    LaunchOptions o;
    o.presetId = "e9";
    app::gui::ScriptRunner script(&window, o);
    QSignalSpy done(&script, &app::gui::ScriptRunner::done);
    script.start();
    QCOMPARE(done.count(), 1);
    QCOMPARE(done.first().first().toInt(), 2);
  }
};

QTEST_MAIN(TestScriptedStart)
#include "test_scripted_start.moc"
