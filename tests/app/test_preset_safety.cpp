// Presets from elsewhere (issue 25, items 7 and 9): a preset whose data_dir points outside the
// data folders asks before anything is read (the window) or is refused without
// --allow-outside-data (a scripted run); preset text is plain text; a broken user preset or
// an unknown device is named in a scripted run, which then exits non-zero; what the scripted
// GUI prints from files goes through core::util::printable.
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <cstdio>
#include <unistd.h>

#include "app/gui/console.h"
#include "app/gui/experiment_model.h"
#include "app/gui/guide_panel.h"
#include "app/gui/launch_options.h"
#include "app/gui/main_window.h"
#include "app/gui/message_bar.h"
#include "app/gui/preset_controller.h"
#include "app/gui/script_runner.h"
#include "app_test_env.h"
#include "core/util/files.h"
#include "widgets/experiment_panel.h"

using app::gui::LaunchOptions;
using app::gui::MainWindow;
using app::gui::ScriptRunner;

namespace {

// A user preset (simulation only, so nothing is trained) with these extra experiment keys.
QByteArray presetText(const QString& id, const QString& title, const QString& experimentExtra = {},
                      const QString& device = "k80", const QString& explanation = "What to look for.") {
  return QStringLiteral(R"({
  "id": "%1", "title": "%2", "mode": "simulate", "explanation": "%5",
  "experiment": {"dataset": "fashion-mnist", "model": "mlp", "batch": 64, "epochs": 1%3},
  "devices": [{"id": "%4"}]
})")
      .arg(id, title, experimentExtra, device, explanation)
      .toUtf8();
}

void writeUserPreset(const QString& id, const QByteArray& text) {
  QFile f(QDir(app::gui::PresetLibrary::userFolder()).filePath(id + ".json"));
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(text);
}

// Runs a scripted start (--preset ID --quit-when-done) and returns its exit code.
int runScripted(MainWindow& window, LaunchOptions o, QStringList* errors = nullptr) {
  o.quitWhenDone = true;
  ScriptRunner script(&window, o);
  QSignalSpy done(&script, &ScriptRunner::done);
  script.start();
  if (done.count() != 1) return -1;
  if (errors) *errors = script.errors();
  return done.first().first().toInt();
}

// What `f` writes on stdout (fd 1), captured through a temporary file.
template <class F>
QByteArray captureStdout(F f) {
  std::fflush(stdout);
  QTemporaryFile file;
  if (!file.open()) return {};
  const int saved = ::dup(1);
  ::dup2(file.handle(), 1);
  f();
  std::fflush(stdout);
  ::dup2(saved, 1);
  ::close(saved);
  file.seek(0);
  return file.readAll();
}

}  // namespace

class TestPresetSafety : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QTemporaryDir m_outside;  // a folder outside every data folder (stands in for ~/.ssh)

private slots:
  void initTestCase() {
    app_test::isolate(m_dir);
    QDir(app::gui::PresetLibrary::userFolder()).removeRecursively();
    QVERIFY(QDir().mkpath(app::gui::PresetLibrary::userFolder()));
    const QString outside = QStringLiteral(R"(, "data_dir": "%1")").arg(m_outside.path());
    writeUserPreset("downloaded", presetText("downloaded", "Downloaded", outside));
    writeUserPreset("inside", presetText("inside", "Inside",
                                         QStringLiteral(R"(, "data_dir": "%1/corpus")")
                                             .arg(QString::fromStdString(core::util::userDataDir()))));
    writeUserPreset("broken", presetText("broken", "Broken", R"(, "bacth": 3)"));
    writeUserPreset("ghost-device", presetText("ghost-device", "Ghost", {}, "h999"));
    writeUserPreset("html-text", presetText("html-text", "<img src='/tmp/secret.png'><b>Bold</b> title", {}, "k80",
                                            "<img src='/tmp/secret.png'> look <b>here</b>"));
    writeUserPreset("escapes", presetText("escapes", "Esc\\u001b]0;owned\\u0007\\u001b[2J title"));
  }

  void theWindowAsksBeforeReadingOutsideTheDataFolders() {
    MainWindow window;
    auto* presets = window.presetController();
    QStringList asked;
    bool answer = false;
    presets->setAskOutsideData([&](const QString& q) {
      asked << q;
      return answer;
    });
    const std::string before = window.experimentModel()->experiment().train.dataDir;
    QVERIFY(!presets->apply("downloaded"));
    QCOMPARE(asked.size(), 1);
    QVERIFY2(asked.front().contains(m_outside.path()) && asked.front().contains("experiment.data_dir") &&
                 asked.front().contains("downloaded.json"),
             qPrintable(asked.front()));
    QCOMPARE(window.experimentModel()->experiment().train.dataDir, before);  // nothing taken from it
    QVERIFY(presets->lastError().contains(m_outside.path()));
    answer = true;
    QVERIFY(presets->apply("downloaded"));
    QCOMPARE(asked.size(), 2);
    QCOMPARE(QString::fromStdString(window.experimentModel()->experiment().train.dataDir), m_outside.path());
  }

  void dataFoldersAndShippedPresetsDoNotAsk() {
    MainWindow window;
    auto* presets = window.presetController();
    int asked = 0;
    presets->setAskOutsideData([&](const QString&) {
      ++asked;
      return false;
    });
    QVERIFY(presets->apply("inside"));   // in the user's AccelLab folder
    QVERIFY(presets->apply("e3"));       // shipped
    QCOMPARE(asked, 0);
    // A folder the user typed into the data-folder field themselves is theirs.
    auto* field = window.experimentPanel()->findChild<QLineEdit*>("dataDir");
    QVERIFY(field);
    field->setText(m_outside.path());
    field->setModified(true);
    Q_EMIT field->editingFinished();
    QCOMPARE(window.experimentModel()->userChosenDataDir(), m_outside.path());
    QVERIFY(presets->apply("downloaded"));
    QCOMPARE(asked, 0);
  }

  void aScriptedRunRefusesOutsideDataUnlessAllowed() {
    LaunchOptions o;
    o.presetId = "downloaded";
    {
      MainWindow window;
      QStringList errors;
      QCOMPARE(runScripted(window, o, &errors), 2);
      const QString e = errors.join('\n');
      QVERIFY2(e.contains("downloaded.json") && e.contains("experiment.data_dir") && e.contains(m_outside.path()) &&
                   e.contains("--allow-outside-data"),
               qPrintable(e));
      QVERIFY(window.experimentModel()->experiment().train.dataDir != m_outside.path().toStdString());
    }
    QVERIFY(app::gui::parseLaunchOptions({"accellab", "--allow-outside-data"}).allowOutsideData);
    o.allowOutsideData = true;
    MainWindow window;
    QCOMPARE(runScripted(window, o), 0);
    QCOMPARE(QString::fromStdString(window.experimentModel()->experiment().train.dataDir), m_outside.path());
  }

  // It said "No preset “broken”"; the file's own error goes to stderr now, and the run stops.
  void anInvalidUserPresetIsNamedWithItsError() {
    MainWindow window;
    LaunchOptions o;
    o.presetId = "broken";
    QStringList errors;
    QCOMPARE(runScripted(window, o, &errors), 2);
    const QString e = errors.join('\n');
    QVERIFY2(e.contains("broken.json") && e.contains("bacth") && !e.contains("No preset"), qPrintable(e));
  }

  // It ran without the device and exited 0; a script now stops and names it, the window warns.
  void anUnknownDeviceStopsAScriptAndWarnsTheWindow() {
    {
      MainWindow window;
      LaunchOptions o;
      o.presetId = "ghost-device";
      QStringList errors;
      QCOMPARE(runScripted(window, o, &errors), 2);
      const QString e = errors.join('\n');
      QVERIFY2(e.contains("ghost-device.json") && e.contains("h999"), qPrintable(e));
    }
    MainWindow window;
    QVERIFY(window.presetController()->apply("ghost-device"));
    QVERIFY(window.messageBar()->isVisibleTo(&window));
    QVERIFY2(window.messageBar()->text().contains("h999"), qPrintable(window.messageBar()->text()));
  }

  // Preset text is plain text: an <img> naming a local file is shown as written, not pulled in.
  void presetTextIsPlainText() {
    MainWindow window;
    QVERIFY(window.presetController()->apply("html-text"));
    app::gui::GuidePanel* guide = window.guidePanel();
    auto* title = guide->findChild<QLabel*>("presetTitle");
    auto* explanation = guide->findChild<QLabel*>("explanation");
    QVERIFY(title && explanation);
    QCOMPARE(title->textFormat(), Qt::PlainText);
    QCOMPARE(explanation->textFormat(), Qt::PlainText);
    QCOMPARE(title->text(), QString("<img src='/tmp/secret.png'><b>Bold</b> title"));
    QVERIFY(explanation->text().contains("<img src='/tmp/secret.png'>"));
  }

  // The scripted GUI's stdout: a title with terminal escapes is shown, never obeyed.
  void scriptedOutputIsPrintable() {
    MainWindow window;
    LaunchOptions o;
    o.presetId = "escapes";
    int code = -1;
    const QByteArray out = captureStdout([&] { code = runScripted(window, o); });
    QCOMPARE(code, 0);
    QVERIFY2(out.contains("preset: Esc"), out.constData());
    QVERIFY2(!out.contains('\x1b') && !out.contains('\x07'), out.toHex().constData());
    QVERIFY2(out.contains("\\x1b]0;owned\\x07\\x1b[2J title"), out.constData());
    const QByteArray line = captureStdout([] { app::gui::printLine(QString::fromUtf8("a\x1b[31mb\xc2\x9b" "c\nd")); });
    QCOMPARE(line, QByteArray("a\\x1b[31mb\\u009bc\\nd\n"));
  }
};

QTEST_MAIN(TestPresetSafety)
#include "test_preset_safety.moc"
