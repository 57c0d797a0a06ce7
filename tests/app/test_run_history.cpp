// The run history (one SQLite database): every run survives a save and a reload (NaN losses
// of a diverged run included); a run killed with kill -9 comes back with every finished epoch;
// a second window sees a running run as running and leaves it alone; a full disk loses one
// epoch and says so; the run files of earlier versions (and runs.json) are read in once and
// left byte for byte; a bad file is named and left in place; a damaged database is kept
// aside; 1,000 runs open quickly.
#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <unistd.h>

#include "app/gui/run_history.h"
#include "app_test_env.h"
#include "core/util/error.h"
#include "core/util/json.h"
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
  m.measures = "whole_run";
  m.runImages = 512000;
  r.references << m;
  return r;
}

// A run as it starts: its set-up, no samples yet.
widgets::Run startingRun() {
  widgets::Run run = sampleRun(RunStatus::Running);
  run.batches.clear();
  run.epochs.clear();
  run.devices[0].epochSeconds.clear();
  return run;
}

// What the trainer adds to the run in one epoch (`steps` batches), as the session does.
void trainEpoch(widgets::Run& run, int epoch, int steps = 4) {
  const std::int64_t first = run.batches.empty() ? 1 : run.batches.back().step + 1;
  for (int i = 0; i < steps; ++i) {
    core::experiment::BatchSample b;
    b.epoch = epoch;
    b.step = first + i;
    b.loss = 1.0 / static_cast<double>(b.step);
    b.accuracy = 0.25;
    b.wallSeconds = 0.125 * static_cast<double>(b.step);
    run.batches.push_back(b);
  }
  core::experiment::EpochSample e;
  e.epoch = epoch;
  e.testAccuracy = 0.5 + 0.1 * epoch;
  run.epochs.push_back(e);
  run.devices[0].epochSeconds << 7.0 + epoch;
  // A byte-level model may write any byte: not UTF-8 on its own.
  run.texts.push_back({4 * epoch, 5.0 - epoch, "the ", std::string("qu\xc3", 3), "quick"});
}

// The environment variable that makes this binary the owner killed in the middle of a run.
constexpr char kKilledOwnerFolder[] = "ACCELLAB_TEST_KILLED_OWNER_FOLDER";

// The child: begins a run, journals two epochs, says the run's key, then dies by kill -9
// during the third epoch (no destructor, no save: the kernel drops its lock).
int killedOwner(const QString& folder) {
  auto* history = new app::gui::RunHistory(folder);
  widgets::Run run = startingRun();
  history->beginJournal(run);
  for (int epoch = 1; epoch <= 2; ++epoch) {
    trainEpoch(run, epoch);
    history->journalEpoch(run, epoch);
  }
  const QStringList errors = history->flush();
  std::printf("%s\n", qPrintable(run.key));
  std::fflush(stdout);
  if (!errors.isEmpty()) ::_exit(3);
  trainEpoch(run, 3, 2);  // half an epoch, never journaled
  ::raise(SIGKILL);
  ::_exit(4);
}

// Every file under `dir` with its bytes' hash and its time of change: a folder left as it was.
QMap<QString, QByteArray> fingerprint(const QString& dir) {
  QMap<QString, QByteArray> out;
  for (const QFileInfo& f : QDir(dir).entryInfoList(QDir::Files | QDir::System | QDir::NoDotAndDotDot, QDir::Name)) {
    if (f.fileName().startsWith("history.sqlite")) continue;
    QFile file(f.absoluteFilePath());
    QByteArray hash = f.isSymLink() ? ("link:" + f.symLinkTarget().toUtf8()) : QByteArray();
    if (!f.isSymLink() && file.open(QIODevice::ReadOnly))
      hash = QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256).toHex();
    out.insert(f.fileName(), hash + " " + QByteArray::number(f.lastModified().toMSecsSinceEpoch()));
  }
  return out;
}

void writeFile(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  QCOMPARE(f.write(bytes), bytes.size());
}

}  // namespace

class TestRunHistory : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

private slots:
  void initTestCase() { app_test::isolate(m_dir); }

  void everyFieldSurvivesSaveAndLoad() {
    const QString folder = QDir(m_dir.path()).filePath("h/runs");
    widgets::Run a = sampleRun(RunStatus::Diverged);
    a.texts.push_back({250, 3.25, "%\n", "The bes", "Thr wes"});
    {
      app::gui::RunHistory history(folder);
      history.save(a);
      QVERIFY(history.flush().isEmpty());
    }
    QVERIFY(!a.key.isEmpty());
    QVERIFY(QFile::exists(QDir(folder).filePath("history.sqlite")));
    QVERIFY(QDir(folder).entryList({"*.json", "*.jsonl"}, QDir::Files).isEmpty());  // no run file any more
    app::gui::RunHistory again(folder);
    const auto loaded = again.load();
    QVERIFY2(loaded.problems.isEmpty(), qPrintable(loaded.problems.join('\n')));
    QCOMPARE(loaded.runs.size(), std::size_t(1));
    const widgets::Run& b = loaded.runs[0];
    QCOMPARE(b.key, a.key);
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
    QCOMPARE(b.references[0].measures, QString("whole_run"));
    QCOMPARE(b.references[0].runImages, 512000.0);
    QCOMPARE(b.texts, a.texts);
  }

  void aKilledRunKeepsEveryFinishedEpoch() {
    // kill -9 during epoch 3 (another process: this binary as the owner). At the next start
    // the run is back, interrupted, with both finished epochs; recovered once.
    const QString folder = QDir(m_dir.path()).filePath("killed/runs");
    QProcess owner;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(kKilledOwnerFolder, folder);
    owner.setProcessEnvironment(env);
    owner.start(QCoreApplication::applicationFilePath(), {});
    QVERIFY2(owner.waitForFinished(60000), "the owner process did not end within 60 s");
    QCOMPARE(owner.exitStatus(), QProcess::CrashExit);  // killed, as by kill -9
    const QString key = QString::fromUtf8(owner.readAllStandardOutput()).trimmed();
    QVERIFY2(key.startsWith("run-"), qPrintable(key + QString::fromUtf8(owner.readAllStandardError())));

    app::gui::RunHistory again(folder);
    const auto loaded = again.load();
    QCOMPARE(loaded.runs.size(), std::size_t(1));
    const widgets::Run& back = loaded.runs[0];
    QCOMPARE(back.key, key);
    QCOMPARE(back.status, RunStatus::Stopped);
    QVERIFY2(back.statusMessage.contains("Interrupted"), qPrintable(back.statusMessage));
    QCOMPARE(back.epochs.size(), std::size_t(2));
    QCOMPARE(back.epochs[1].testAccuracy, 0.7);
    QCOMPARE(back.batches.size(), std::size_t(8));
    QCOMPARE(back.batches[7].step, std::int64_t{8});
    QCOMPARE(back.devices[0].epochSeconds, QVector<double>({8.0, 9.0}));
    QCOMPARE(back.texts.size(), std::size_t(2));
    QCOMPARE(back.texts[1].step, std::int64_t{8});
    QCOMPARE(back.texts[1].prompt, std::string("the "));
    QCOMPARE(back.texts[1].greedy, std::string("qu\xef\xbf\xbd"));  // the lone byte as U+FFFD
    QVERIFY2(loaded.problems.join(' ').contains("recovered"), qPrintable(loaded.problems.join(' ')));
    QVERIFY(again.flush().isEmpty());

    // Recovered once: the next start reads it as a stopped run, with nothing to say.
    app::gui::RunHistory later(folder);
    const auto next = later.load();
    QVERIFY2(next.problems.isEmpty(), qPrintable(next.problems.join('\n')));
    QCOMPARE(next.runs.size(), std::size_t(1));
    QCOMPARE(next.runs[0].status, RunStatus::Stopped);
    QCOMPARE(next.runs[0].epochs.size(), std::size_t(2));
  }

  void aRunningRunIsLeftAloneByASecondWindow() {
    const QString folder = QDir(m_dir.path()).filePath("two-windows/runs");
    app::gui::RunHistory first(folder), second(folder);
    widgets::Run done = sampleRun(RunStatus::Finished);
    first.save(done);
    QTest::qWait(5);  // keys carry the millisecond: `done` sorts first
    widgets::Run run = startingRun();
    first.beginJournal(run);
    for (int epoch = 1; epoch <= 2; ++epoch) {
      trainEpoch(run, epoch);
      first.journalEpoch(run, epoch);
    }
    QVERIFY(first.flush().isEmpty());

    // The second window opens: the run is running, elsewhere, with its epochs so far.
    auto loaded = second.load();
    QVERIFY2(loaded.problems.isEmpty(), qPrintable(loaded.problems.join('\n')));
    QCOMPARE(loaded.runs.size(), std::size_t(2));
    widgets::Run seen = loaded.runs[1];
    QCOMPARE(seen.key, run.key);
    QCOMPARE(seen.status, RunStatus::Running);
    QVERIFY2(seen.statusMessage.contains("another AccelLab window"), qPrintable(seen.statusMessage));
    QCOMPARE(seen.epochs.size(), std::size_t(2));
    // It changes nothing: a save (hidden, renamed) is not written, a delete is refused.
    seen.visible = !seen.visible;
    seen.name = "renamed in the second window";
    second.save(seen);
    second.remove(seen);
    const QStringList refused = second.flush();
    QCOMPARE(refused.size(), 1);
    QVERIFY2(refused[0].contains("not deleted") && refused[0].contains("another AccelLab window"), qPrintable(refused[0]));

    // The first window goes on undisturbed, then ends the run.
    trainEpoch(run, 3);
    first.journalEpoch(run, 3);
    run.status = RunStatus::Finished;
    first.save(run);
    QVERIFY(first.flush().isEmpty());

    loaded = second.load();
    QVERIFY2(loaded.problems.isEmpty(), qPrintable(loaded.problems.join('\n')));
    QCOMPARE(loaded.runs.size(), std::size_t(2));
    const widgets::Run& finished = loaded.runs[1];
    QCOMPARE(finished.key, run.key);
    QCOMPARE(finished.status, RunStatus::Finished);
    QCOMPARE(finished.name, run.name);
    QCOMPARE(finished.epochs.size(), std::size_t(3));
    QCOMPARE(finished.batches.size(), std::size_t(12));
    // Now that it ended, the second window may change it like any other.
    widgets::Run hidden = finished;
    hidden.visible = !finished.visible;
    second.save(hidden);
    QVERIFY(second.flush().isEmpty());
    QCOMPARE(first.load().runs[1].visible, hidden.visible);
  }

  void aFullDiskLosesOneEpochAndSaysSo() {
    // A database capped at 256 KiB plays a full disk: epoch 2 (20,000 samples) does not fit.
    const QString folder = QDir(m_dir.path()).filePath("full/runs");
    widgets::Run run = startingRun();
    {
      core::experiment::RunDatabase::Options full;
      full.maxBytes = 256 * 1024;
      app::gui::RunHistory history(folder, full);
      history.beginJournal(run);
      trainEpoch(run, 1);
      history.journalEpoch(run, 1);
      QVERIFY(history.flush().isEmpty());
      trainEpoch(run, 2, 20000);
      history.journalEpoch(run, 2);
      QStringList errors = history.flush();
      QCOMPARE(errors.size(), 1);
      QVERIFY2(errors[0].contains("Epoch 2") && errors[0].contains("SQLITE_FULL") && errors[0].contains("history.sqlite"),
               qPrintable(errors[0]));
      trainEpoch(run, 3);
      history.journalEpoch(run, 3);
      QVERIFY(history.flush().isEmpty());
      // The run ends, but its whole record does not fit either: said, and the epochs stay.
      run.status = RunStatus::Finished;
      history.save(run);
      errors = history.flush();
      QCOMPARE(errors.size(), 1);
      QVERIFY2(errors[0].contains("was not saved") && errors[0].contains("SQLITE_FULL"), qPrintable(errors[0]));
    }
    app::gui::RunHistory again(folder);
    const auto loaded = again.load();
    QCOMPARE(loaded.runs.size(), std::size_t(1));
    const widgets::Run& back = loaded.runs[0];
    QCOMPARE(back.status, RunStatus::Stopped);
    QCOMPARE(back.epochs.size(), std::size_t(2));  // 1 and 3: only the epoch that failed is lost
    QCOMPARE(back.epochs[0].epoch, 1);
    QCOMPARE(back.epochs[1].epoch, 3);
    QCOMPARE(back.batches.size(), std::size_t(8));
  }

  void theRunFilesOfEarlierVersionsAreReadInOnceAndLeftAsTheyWere() {
    const QString root = QDir(m_dir.path()).filePath("files");
    const QString folder = QDir(root).filePath("runs");
    QVERIFY(QDir().mkpath(folder));
    widgets::Run a = sampleRun(RunStatus::Finished), b = sampleRun(RunStatus::Diverged);
    a.key = "run-20250101-000000-000-aaaaaa";
    b.key = "run-20250102-000000-000-bbbbbb";
    b.name = "second";
    writeFile(QDir(folder).filePath(a.key + ".json"), QByteArray::fromStdString(app::gui::runFileJson(a)));
    writeFile(QDir(folder).filePath(b.key + ".json"), QByteArray::fromStdString(app::gui::runFileJson(b)));
    // A journal of a run the app was killed in, its last line cut short.
    core::util::Json journalHead = core::util::Json::object();
    journalHead.set("format", "accellab-journal");
    journalHead.set("run", *core::util::Json::parse(app::gui::runFileJson(startingRun())).find("run"));
    const QByteArray head = QByteArray::fromStdString(journalHead.dump());
    const QByteArray line =
        R"({"epoch": {"epoch": 1, "test_accuracy": 0.6}, "batches": {"epoch": [1], "step": [1], "loss": [0.5],)"
        R"( "accuracy": [0.1], "images": [10], "wall_seconds": [1], "step_seconds": [1]}, "device_epoch_seconds": [8]})";
    writeFile(QDir(folder).filePath("run-20250103-000000-000-cccccc.jsonl"), head + "\n" + line + "\n{\"epoch\": {\"ep");
    // Bad files: cut short, and a link to /dev/zero; the legacy runs.json beside the folder.
    writeFile(QDir(folder).filePath("run-bad.json"), "{\"format\": \"accellab-run\", ");
    QVERIFY(QFile::link("/dev/zero", QDir(folder).filePath("run-zero.json")));
    writeFile(QDir(root).filePath("runs.json"),
              QByteArray::fromStdString(app::gui::runsToJson({sampleRun(RunStatus::Finished), sampleRun(RunStatus::Stopped)})));
    const auto before = fingerprint(folder);
    const auto legacyBefore = fingerprint(root);
    QTest::qWait(20);  // a rewrite would show in the times of change

    int keys = 0;
    {
      app::gui::RunHistory history(folder);
      const auto loaded = history.load();
      QCOMPARE(loaded.runs.size(), std::size_t(5));  // a, b, the journal's, runs.json's two
      const QString problems = loaded.problems.join('\n');
      QVERIFY2(problems.contains("run-bad.json") && problems.contains("run-zero.json"), qPrintable(problems));
      QVERIFY2(problems.contains("left in place"), qPrintable(problems));
      QVERIFY2(problems.contains("recovered from its journal"), qPrintable(problems));
      bool journalSeen = false;
      for (const auto& r : loaded.runs)
        if (r.key == "run-20250103-000000-000-cccccc") {
          journalSeen = true;
          QCOMPARE(r.status, RunStatus::Stopped);
          QCOMPARE(r.epochs.size(), std::size_t(1));
          QCOMPARE(r.devices[0].epochSeconds, QVector<double>({8.0}));
        }
      QVERIFY(journalSeen);
      QCOMPARE(loaded.runs[0].key, a.key);
      QCOMPARE(loaded.runs[1].name, QString("second"));
      keys = static_cast<int>(loaded.runs.size());
      // Deleted from the history: the file stays, and is not read in again.
      history.remove(loaded.runs[0]);
      QVERIFY(history.flush().isEmpty());
    }
    QCOMPARE(fingerprint(folder), before);  // byte for byte, not touched
    QCOMPARE(fingerprint(root), legacyBefore);
    QVERIFY(!QDir(folder).exists("broken"));
    app::gui::RunHistory again(folder);
    const auto loaded = again.load();
    QVERIFY2(loaded.problems.isEmpty(), qPrintable(loaded.problems.join('\n')));  // read in once, said once
    QCOMPARE(static_cast<int>(loaded.runs.size()), keys - 1);
    QCOMPARE(fingerprint(folder), before);
  }

  void aDamagedDatabaseIsKeptAside() {
    const QString folder = QDir(m_dir.path()).filePath("damaged/runs");
    QVERIFY(QDir().mkpath(folder));
    widgets::Run old = sampleRun(RunStatus::Finished);
    old.key = "run-20250101-000000-000-dddddd";
    writeFile(QDir(folder).filePath(old.key + ".json"), QByteArray::fromStdString(app::gui::runFileJson(old)));
    const QByteArray junk = "SQLite format 3 is what this is not" + QByteArray(8192, '\x17');
    for (int round = 1; round <= 2; ++round) {
      writeFile(QDir(folder).filePath("history.sqlite"), junk);
      app::gui::RunHistory history(folder);
      const auto loaded = history.load();
      const QString problems = loaded.problems.join('\n');
      QVERIFY2(problems.contains("history.sqlite") && problems.contains("kept as"), qPrintable(problems));
      // A new history: the run files are read in again.
      QCOMPARE(loaded.runs.size(), std::size_t(1));
      QCOMPARE(loaded.runs[0].key, old.key);
      widgets::Run more = sampleRun(RunStatus::Stopped);
      history.save(more);
      QVERIFY(history.flush().isEmpty());
      const QStringList aside = QDir(folder).entryList({"history.sqlite.corrupt-*"}, QDir::Files);
      QCOMPARE(aside.size(), round);  // each kept (the same second: a -2 suffix), none overwritten
      for (const QString& name : aside) {
        QFile f(QDir(folder).filePath(name));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), junk);
      }
    }
  }

  void theOneFileHistoryOfEarlierVersionsMovesIn() {
    const QString root = QDir(m_dir.path()).filePath("legacy");
    QDir().mkpath(root);
    const QByteArray text =
        QByteArray::fromStdString(app::gui::runsToJson({sampleRun(RunStatus::Finished), sampleRun(RunStatus::Stopped)}));
    writeFile(QDir(root).filePath("runs.json"), text);
    for (int start = 1; start <= 2; ++start) {
      app::gui::RunHistory history(QDir(root).filePath("runs"));
      const auto loaded = history.load();
      QCOMPARE(loaded.runs.size(), std::size_t(2));  // once: not twice at the second start
      QFile old(QDir(root).filePath("runs.json"));
      QVERIFY(old.open(QIODevice::ReadOnly));
      QCOMPARE(old.readAll(), text);  // kept as it was
    }
  }

  void aThousandRunsOpenQuickly() {
    // The reliability bar: 1,000 runs open in under a second (checked at 2 s here, for slow
    // CI machines); saving one run costs one row whatever the history holds.
    const QString folder = QDir(m_dir.path()).filePath("thousand/runs");
    {
      app::gui::RunHistory history(folder);
      widgets::Run r = sampleRun(RunStatus::Finished);
      for (int i = 0; i < 1000; ++i) {
        r.key.clear();
        r.name = QString("run %1").arg(i + 1);
        history.save(r);
      }
      QVERIFY(history.flush().isEmpty());
    }
    QElapsedTimer t;
    t.start();
    app::gui::RunHistory history(folder);
    const auto loaded = history.load();
    const qint64 ms = t.elapsed();
    QCOMPARE(loaded.runs.size(), std::size_t(1000));  // no two keys alike, many saved in one millisecond
    QVERIFY2(loaded.problems.isEmpty(), qPrintable(loaded.problems.join('\n')));
    for (int i = 0; i < 1000; ++i) QCOMPARE(loaded.runs[std::size_t(i)].name, QString("run %1").arg(i + 1));  // in the order they were saved
    qInfo("1,000 runs opened in %lld ms", ms);
    QVERIFY2(ms < 2000, qPrintable(QString::number(ms)));
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

};

// QTEST_MAIN, and the killed owner of aKilledRunKeepsEveryFinishedEpoch when asked.
int main(int argc, char** argv) {
  if (const QByteArray folder = qgetenv(kKilledOwnerFolder); !folder.isEmpty()) return killedOwner(QString::fromLocal8Bit(folder));
  QCoreApplication app(argc, argv);
  TestRunHistory test;
  QTEST_SET_MAIN_SOURCE_PATH
  return QTest::qExec(&test, argc, argv);
}
#include "test_run_history.moc"
