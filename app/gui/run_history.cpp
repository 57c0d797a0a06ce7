#include "app/gui/run_history.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "core/experiment/names.h"
#include "core/util/error.h"
#include "core/util/files.h"

namespace app::gui {

using core::experiment::RunStatus;
using core::util::Error;

namespace {

QString timestamp() { return QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss-zzz"); }

// A run's key: the time first (key order is run order), then this process's count (two runs
// saved in the same millisecond by one window keep their order and never share a key; a
// 24-bit random part alone collided about once in thirty 1,000-run histories), then a
// 32-bit random part (two windows saving in the same millisecond).
QString newKey() {
  static std::atomic<std::uint32_t> count{0};
  const std::uint32_t n = count.fetch_add(1, std::memory_order_relaxed);
  return "run-" + timestamp() + "-" + QString::number(n, 16).rightJustified(6, '0') + "-" +
         QString::number(QRandomGenerator::global()->generate(), 16).rightJustified(8, '0');
}

}  // namespace

RunHistory::RunHistory(QString folder, core::experiment::RunDatabase::Options options)
    : m_folder(std::move(folder)), m_options(options) {
  m_writer.setMaxThreadCount(1);
  m_writer.setExpiryTimeout(-1);
  QStringList problems;
  openDatabase(problems);  // a failure is told by load() and by every write
}

RunHistory::~RunHistory() { m_writer.waitForDone(); }

QString RunHistory::defaultFolder() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath("runs");
}

bool RunHistory::openDatabase(QStringList& problems) {
  if (m_db) return true;
  try {
    m_db = std::make_unique<core::experiment::RunDatabase>(m_folder.toStdString(), m_options);
    m_openError.clear();
    return true;
  } catch (const std::exception& e) {
    m_openError = QString::fromUtf8(e.what());
    problems << m_openError + QObject::tr(" (no run can be saved until this is fixed)");
    return false;
  }
}

void RunHistory::addError(const QString& error) {
  const std::lock_guard lock(m_errorsMutex);
  m_errors << error;
}

void RunHistory::queue(QString before, QString after, std::function<void(core::experiment::RunDatabase&)> write) {
  m_writer.start([this, before = std::move(before), after = std::move(after), write = std::move(write)] {
    try {
      if (!m_db) throw Error(m_openError.toStdString());
      write(*m_db);
    } catch (const std::exception& e) {
      addError(before + QString::fromUtf8(e.what()) + after);
    }
  });
}

QStringList RunHistory::flush() {
  m_writer.waitForDone();
  return takeErrors();
}

QStringList RunHistory::takeErrors() {
  const std::lock_guard lock(m_errorsMutex);
  QStringList out;
  out.swap(m_errors);
  return out;
}

void RunHistory::importFilesOnce(QStringList& problems) {
  const QString when = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
  const QString keptNote = QObject::tr("; left in place and not read in");
  QStringList found;  // the fill may run again if it fails: problems are kept from the last try
  const auto fill = [&] {
    found.clear();
    // The one-file history of earlier versions, beside the folder.
    const QString legacy = QDir::cleanPath(QDir(m_folder).filePath("../runs.json"));
    if (QFileInfo::exists(legacy)) {
      std::string why;
      if (const auto text = core::util::tryReadFile(legacy.toStdString(), core::util::kMaxRunFileBytes, why)) {
        std::vector<widgets::Run> runs;
        try {
          runs = runsFromJson(*text, legacy, &found);
        } catch (const std::exception& e) {
          found << QString::fromUtf8(e.what()) + keptNote;
        }
        for (widgets::Run& r : runs) {
          r.key = newKey();
          m_db->putRunIfAbsent(r.key.toStdString(), r.name.toStdString(), core::experiment::runStatusName(r.status), runFileJson(r));
        }
      } else {
        found << QString::fromStdString(why) + keptNote;
      }
    }
    // One file per run (and a journal per run that was running) of earlier versions.
    const core::util::FileListing files = core::util::listFiles(m_folder.toStdString(), {".json", ".jsonl"});
    for (const std::string& w : files.warnings) found << QString::fromStdString(w) + keptNote;
    for (const std::string& file : files.files) {
      const QFileInfo info(QString::fromStdString(file));
      const QString key = info.completeBaseName();
      const bool journal = info.suffix() == "jsonl";
      if (journal && QFileInfo::exists(QDir(m_folder).filePath(key + ".json"))) continue;  // ended: its file wins
      std::string why;
      const auto text = core::util::tryReadFile(file, core::util::kMaxRunFileBytes, why);
      if (!text) {
        found << QString::fromStdString(why) + keptNote;
        continue;
      }
      widgets::Run run;
      try {
        run = journal ? runFromJournal(*text, info.absoluteFilePath()) : runFromFile(*text, info.absoluteFilePath());
      } catch (const std::exception& e) {
        found << QString::fromUtf8(e.what()) + keptNote;
        continue;
      }
      run.key = key;
      if (journal)
        found << QObject::tr("%1: recovered from its journal, %n epoch(s)", nullptr, static_cast<int>(run.epochs.size())).arg(run.name);
      m_db->putRunIfAbsent(key.toStdString(), run.name.toStdString(), core::experiment::runStatusName(run.status), runFileJson(run));
    }
  };
  try {
    m_db->once("imported_run_files", when.toStdString(), fill);
  } catch (const std::exception& e) {
    found << QString::fromUtf8(e.what()) +
                 QObject::tr(" (the run files of the folder were not read in; they are left as they were and read again "
                             "at the next start)");
  }
  problems << found;
}

widgets::Run RunHistory::runFromStored(const core::experiment::RunDatabase::StoredRun& stored, QStringList& problems) const {
  const QString source = QString::fromStdString(m_db->path()) + ", run " + QString::fromStdString(stored.key);
  widgets::Run run = runFromFile(stored.recordJson, source);
  run.key = QString::fromStdString(stored.key);
  for (const auto& e : stored.epochs) {
    try {
      applyEpochLine(run, e.lineJson, source.toStdString() + ", epoch " + std::to_string(e.epoch));
    } catch (const std::exception& error) {
      // Later epochs hold only their own samples: without this one they would not fit.
      problems << QString::fromUtf8(error.what()) + QObject::tr(" (the run keeps the epochs before it)");
      break;
    }
  }
  return run;
}

RunHistory::Loaded RunHistory::load() {
  using Liveness = core::experiment::RunDatabase::Liveness;
  Loaded out;
  out.problems << flush();
  if (!openDatabase(out.problems)) return out;
  for (const std::string& note : m_db->takeNotes()) out.problems << QString::fromStdString(note);
  importFilesOnce(out.problems);
  core::experiment::RunDatabase::Listing listing = m_db->runs();
  if (const auto notes = m_db->takeNotes(); !notes.empty()) {  // set aside while reading: read anew
    for (const std::string& note : notes) out.problems << QString::fromStdString(note);
    for (const std::string& p : listing.problems) out.problems << QString::fromStdString(p);
    importFilesOnce(out.problems);
    listing = m_db->runs();
  }
  for (const std::string& p : listing.problems) out.problems << QString::fromStdString(p);

  m_elsewhere.clear();
  for (const auto& stored : listing.runs) {
    try {
      widgets::Run run = runFromStored(stored, out.problems);
      switch (stored.liveness) {
        case Liveness::Ended: break;
        case Liveness::RunningHere: run.status = RunStatus::Running; break;
        case Liveness::RunningElsewhere:
          run.status = RunStatus::Running;
          run.statusMessage = QObject::tr("Running in another AccelLab window (%n epoch(s) finished when this window "
                                          "read the history); this window leaves it alone.",
                                          nullptr, static_cast<int>(run.epochs.size()));
          m_elsewhere.insert(run.key);
          break;
        case Liveness::Orphaned:
          run.status = RunStatus::Stopped;
          run.statusMessage = interruptedMessage(run.epochs.size());
          out.problems << QObject::tr("%1: recovered, %n finished epoch(s) (the app running it ended during the run)", nullptr,
                                      static_cast<int>(run.epochs.size()))
                              .arg(run.name);
          try {
            m_db->putRun(stored.key, run.name.toStdString(), core::experiment::runStatusName(run.status), runFileJson(run));
          } catch (const std::exception& e) {
            out.problems << QString::fromUtf8(e.what()) + QObject::tr(" (it is recovered again at the next start)");
          }
          break;
      }
      out.runs.push_back(std::move(run));
    } catch (const std::exception& e) {
      if (stored.liveness == Liveness::Orphaned) m_db->release(stored.key);
      out.problems << QString::fromUtf8(e.what()) + QObject::tr(" (left in the database as it was)");
    }
  }
  // Keys start with the time the run was first saved: key order is the order of the runs.
  std::stable_sort(out.runs.begin(), out.runs.end(), [](const widgets::Run& a, const widgets::Run& b) { return a.key < b.key; });
  return out;
}

void RunHistory::save(widgets::Run& run) {
  if (run.key.isEmpty()) run.key = newKey();
  m_journaled.erase(run.key);
  if (m_elsewhere.count(run.key)) return;  // another window's: what it writes wins
  const std::string key = run.key.toStdString(), name = run.name.toStdString(), status = core::experiment::runStatusName(run.status);
  queue(QObject::tr("“%1” was not saved: ").arg(run.name), {},
        [key, name, status, record = runFileJson(run)](core::experiment::RunDatabase& db) { db.putRun(key, name, status, record); });
}

void RunHistory::remove(const widgets::Run& run) {
  if (run.key.isEmpty()) return;
  m_journaled.erase(run.key);
  const QString name = run.name;
  queue(QObject::tr("“%1” was not deleted: ").arg(name), {}, [key = run.key.toStdString()](core::experiment::RunDatabase& db) {
    if (!db.removeRun(key)) throw Error("another AccelLab window is running it; it stays in the history");
  });
}

void RunHistory::beginJournal(widgets::Run& run) {
  if (run.key.isEmpty()) run.key = newKey();
  m_elsewhere.erase(run.key);
  widgets::Run head = run;  // the set-up: samples follow epoch by epoch
  head.batches.clear();
  head.texts.clear();
  head.epochs.clear();
  for (auto& d : head.devices) d.epochSeconds.clear();
  queue(QObject::tr("The start of “%1” was not saved: ").arg(run.name),
        QObject::tr(" (its epochs cannot be kept before it ends)"),
        [key = run.key.toStdString(), name = run.name.toStdString(), record = runFileJson(head)](core::experiment::RunDatabase& db) {
          db.beginRun(key, name, core::experiment::runStatusName(RunStatus::Running), record);
        });
  m_journaled[run.key] = 0;
}

void RunHistory::journalEpoch(const widgets::Run& run, int epoch) {
  const auto it = m_journaled.find(run.key);
  if (it == m_journaled.end()) return;
  std::optional<std::string> line = epochLineJson(run, epoch, it->second, &it->second);
  if (!line) return;
  queue(QObject::tr("Epoch %1 of “%2” was not saved: ").arg(epoch).arg(run.name),
        QObject::tr(" (if the app ends before the run does, the run comes back without this epoch)"),
        [key = run.key.toStdString(), epoch, text = std::move(*line)](core::experiment::RunDatabase& db) { db.addEpoch(key, epoch, text); });
}

}  // namespace app::gui
