#pragma once
// The run history: one SQLite database, <folder>/history.sqlite (core::experiment::
// RunDatabase, its schema and its locks), shared by every window and the CLI.
//   a run          one row, its record the run file's JSON (runFileJson), written in one
//                  transaction whenever it changes (ends, hidden, renamed);
//   a running run  its set-up row, marked running, and one row per finished epoch (the
//                  journal line's JSON), each epoch one transaction; the window running it
//                  holds its lock. Another window shows it as running and leaves it alone;
//                  one whose owner is gone (killed, crashed) brings it back interrupted with
//                  every finished epoch.
//   the files of earlier versions (<key>.json, <key>.jsonl, ../runs.json) are read in once
//                  and left exactly as they were; a file that cannot be read is named and
//                  left in place. A damaged database is kept aside and a new one started.
// Writes run in order on one background thread; JSON is built on the caller's thread. A write
// that fails (a full disk) loses that write only and says so in takeErrors()/flush().
#include <QString>
#include <QStringList>
#include <QThreadPool>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "app/gui/run_codec.h"
#include "core/experiment/run_database.h"
#include "widgets/run_store.h"

namespace app::gui {

class RunHistory {
public:
  // `options`: the database's (tests cap its size to play a full disk).
  explicit RunHistory(QString folder, core::experiment::RunDatabase::Options options = {});
  ~RunHistory();  // waits for the writes still queued
  RunHistory(const RunHistory&) = delete;
  RunHistory& operator=(const RunHistory&) = delete;

  // <AppDataLocation>/runs
  static QString defaultFolder();
  const QString& folder() const { return m_folder; }

  struct Loaded {
    std::vector<widgets::Run> runs;  // oldest first, each with its key
    QStringList problems;            // one line per file or row not read, run recovered, database set aside
  };
  // Every run of the history. The first time, the run files of earlier versions in the
  // folder (and a runs.json beside it) are read in; they are left as they were. A run that
  // another window is running comes as RunStatus::Running with a message saying so; this
  // object never saves over it or deletes it. Never throws.
  Loaded load();

  // True for a run that another window was running at the last load(): shown, not changed.
  bool isRunningElsewhere(const widgets::Run& run) const { return m_elsewhere.count(run.key) > 0; }

  // Writes the run (giving it a key when it has none); its epoch rows go.
  void save(widgets::Run& run);
  // Deletes the run (refused, with an error, while another window runs it).
  void remove(const widgets::Run& run);
  // A run that starts (gives it a key): marked running, held by this object until save().
  void beginJournal(widgets::Run& run);
  // One finished epoch of a run begun here: its samples, one transaction.
  void journalEpoch(const widgets::Run& run, int epoch);

  // Blocks until every queued write is on disk; returns the errors met since the last call.
  QStringList flush();
  // The errors met so far by writes already done, without waiting.
  QStringList takeErrors();

private:
  bool openDatabase(QStringList& problems);
  void importFilesOnce(QStringList& problems);
  widgets::Run runFromStored(const core::experiment::RunDatabase::StoredRun& stored, QStringList& problems) const;
  // Runs `write` on the writer thread; an exception becomes the error `before` what `after`.
  void queue(QString before, QString after, std::function<void(core::experiment::RunDatabase&)> write);
  void addError(const QString& error);

  QString m_folder;
  core::experiment::RunDatabase::Options m_options;
  std::unique_ptr<core::experiment::RunDatabase> m_db;  // null when it could not be opened
  QString m_openError;
  std::map<QString, std::size_t> m_journaled;  // key -> batch samples already in epoch rows
  std::set<QString> m_elsewhere;               // keys another window runs (as of load())
  QStringList m_errors;  // guarded by m_errorsMutex (written by the writer thread)
  mutable std::mutex m_errorsMutex;
  QThreadPool m_writer;  // one thread: writes land in the order they were asked for; last, so
                         // it is joined before the database it uses goes
};

}  // namespace app::gui
