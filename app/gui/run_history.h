#pragma once
// The run history on disk: one folder, one file per run, so a save costs one run and a crash
// costs at most the epoch in progress.
//   <key>.json    a run (settings, samples, device results, reference marks), written
//                 atomically whenever it changes (ends, hidden, renamed);
//   <key>.jsonl   the journal of a run in progress: its set-up, then one line per finished
//                 epoch, appended. A journal without its .json (the app was killed) comes
//                 back at the next start as an interrupted run with every finished epoch.
//   broken/       files that could not be read, moved there under a timestamped name (never
//                 overwritten), each named in the message the user sees.
// Writes run in order on one background thread; JSON is built on the caller's thread.
#include <QString>
#include <QStringList>
#include <QThreadPool>
#include <map>
#include <mutex>
#include <vector>

#include "widgets/run_store.h"

namespace app::gui {

// The history of runs.json (one file, before 2026-11): still read, to move it into the folder.
std::string runsToJson(const std::vector<widgets::Run>& runs);
// Throws core::util::Error naming `source` and the key when the file as a whole is malformed;
// a single malformed run is skipped, its error (naming the key) added to `skipped`.
std::vector<widgets::Run> runsFromJson(const std::string& text, const QString& source, QStringList* skipped = nullptr);

// One run's file, and back (throws core::util::Error naming `source` and the key).
std::string runFileJson(const widgets::Run& run);
widgets::Run runFromFile(const std::string& text, const QString& source);
// A run's journal (the app ended during the run): the run, interrupted, with every finished
// epoch; a last line cut short is ignored (throws core::util::Error naming `source`:line).
widgets::Run runFromJournal(const std::string& text, const QString& source);

class RunHistory {
public:
  explicit RunHistory(QString folder);
  ~RunHistory();  // waits for the writes still queued
  RunHistory(const RunHistory&) = delete;
  RunHistory& operator=(const RunHistory&) = delete;

  // <AppDataLocation>/runs
  static QString defaultFolder();
  const QString& folder() const { return m_folder; }

  struct Loaded {
    std::vector<widgets::Run> runs;  // oldest first, each with its key
    QStringList problems;            // one line per file moved aside or run recovered
  };
  // Every run of the folder; a legacy runs.json beside it is moved in once (then renamed
  // runs.json.imported-<time>). Never throws for a bad file: it is moved to broken/.
  Loaded load();

  // Writes the run's file (giving it a key when it has none) and drops its journal.
  void save(widgets::Run& run);
  // Deletes the run's file and journal.
  void remove(const widgets::Run& run);
  // The journal of a run that starts (gives it a key), and one line per finished epoch.
  void beginJournal(widgets::Run& run);
  void journalEpoch(const widgets::Run& run, int epoch);

  // Blocks until every queued write is on disk; returns the errors met since the last call.
  QStringList flush();
  // The errors met so far by writes already done, without waiting.
  QStringList takeErrors();

private:
  QString pathOf(const QString& key, const char* suffix) const;
  void write(const QString& path, std::string text, bool append);
  void moveAside(const QString& path, const QString& why, QStringList& problems) const;

  QString m_folder;
  QThreadPool m_writer;  // one thread: writes land in the order they were asked for
  std::map<QString, std::size_t> m_journaled;  // key -> batch samples already in the journal
  QStringList m_errors;  // guarded by m_errorsMutex (written by the writer thread)
  mutable std::mutex m_errorsMutex;
};

}  // namespace app::gui
