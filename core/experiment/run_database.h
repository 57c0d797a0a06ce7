#pragma once
// The run history's store: one SQLite database, <folder>/history.sqlite, that every window and
// the CLI share. It keeps texts by key; what the texts mean (a run's JSON codec) is the app's.
//
// Schema (version 1; open the file in any SQLite tool to read the runs):
//   meta(name TEXT PRIMARY KEY, value TEXT NOT NULL)
//       'schema_version' -> '1'; one row per import done once (e.g. 'imported_run_files' ->
//       the UTC time the folder's run files were read in).
//   runs(key TEXT PRIMARY KEY,          -- "run-<local time>-<count>-<random>": key order is run order
//        name TEXT NOT NULL,            -- the run's name as the runs list shows it
//        status TEXT NOT NULL,          -- core::experiment::runStatusName: running, finished, ...
//        record_json TEXT NOT NULL,     -- {"format": "accellab-run", ...}: the whole run, or
//                                       -- while it runs its set-up (no samples yet)
//        updated_utc TEXT NOT NULL)     -- when the row was last written, ISO 8601
//   epochs(run_key TEXT NOT NULL REFERENCES runs(key) ON DELETE CASCADE,
//          epoch INTEGER NOT NULL,
//          line_json TEXT NOT NULL,     -- the finished epoch: its samples, as a journal line
//          PRIMARY KEY (run_key, epoch))
//       rows exist only while a run is marked running; the run's final record replaces them.
//
// Safety: WAL mode, a 5 s busy timeout, synchronous=FULL, one transaction per write (a
// finished epoch is one), so a crash or a full disk loses at most the write in flight, and
// that write's error names the file and SQLite's code (SQLITE_FULL, SQLITE_BUSY, ...).
//
// Liveness: a run marked running is owned by the object that began it, which holds an
// exclusive flock(2) on <folder>/locks/<key>.lock from before its row says running until its
// final record is written (or the process ends: the kernel drops the lock). Another object,
// in this process or another, that can take the lock knows the owner is gone (Orphaned);
// one that cannot knows the run is live elsewhere and leaves it alone.
//
// A file that is not a database, or a corrupt one, is renamed history.sqlite.corrupt-<time>
// (with its -wal and -shm), never overwritten, and a fresh database started; notes() says so.
// One object may be used from several threads (calls are serialised); not copyable.
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/util/files.h"

struct sqlite3;

namespace core::experiment {

class RunDatabase {
public:
  static constexpr const char* kFileName = "history.sqlite";
  static constexpr int kSchemaVersion = 1;
  // Texts longer than these are not read (the run is named in Listing::problems instead).
  static constexpr std::uint64_t kMaxRecordBytes = core::util::kMaxRunFileBytes;
  static constexpr std::uint64_t kMaxEpochLineBytes = std::uint64_t{8} << 20;

  struct Options {
    int busyTimeoutMs = 5000;
    // A cap on the file's size (0: none): past it a write fails with SQLITE_FULL as on a full
    // disk. Tests use it to play a full disk.
    std::int64_t maxBytes = 0;
  };

  enum class Liveness {
    Ended,             // not marked running
    RunningHere,       // marked running, and this object holds its lock
    RunningElsewhere,  // marked running, and another object or process holds its lock
    Orphaned,          // marked running, its owner is gone: this object now holds the lock
                       // until putRun() (the recovered run), removeRun() or release()
  };
  struct Epoch {
    int epoch = 0;
    std::string lineJson;
  };
  struct StoredRun {
    std::string key, name, status, recordJson;
    std::vector<Epoch> epochs;  // a run marked running: its finished epochs, in order
    Liveness liveness = Liveness::Ended;
  };
  struct Listing {
    std::vector<StoredRun> runs;        // key order
    std::vector<std::string> problems;  // rows that could not be read, each naming file and key
  };

  // Opens <folder>/history.sqlite, creating the folder and the database. A corrupt file is
  // set aside (see notes()). Throws core::util::Error naming the file when no database can be
  // opened at all (no permission, a full disk at creation).
  explicit RunDatabase(std::string folder, Options options);
  explicit RunDatabase(std::string folder) : RunDatabase(std::move(folder), Options{}) {}
  ~RunDatabase();  // gives up every lock still held, as a process that ends would
  RunDatabase(const RunDatabase&) = delete;
  RunDatabase& operator=(const RunDatabase&) = delete;

  const std::string& path() const { return m_path; }
  // What happened since the last call that the user must hear of: a database set aside.
  std::vector<std::string> takeNotes();

  // Every run, with its liveness. Never throws: a row that cannot be read is named in
  // problems; a database found corrupt while reading is set aside and a fresh one is listed.
  Listing runs();

  // The writes: each one transaction (part of the caller's when inside transaction()); each
  // throws core::util::Error naming the file, the write and SQLite's code, and leaves the
  // database as it was.
  // A run that starts: takes its lock, then writes its row as `status` (running) and drops
  // any epochs of an earlier row of that key.
  void beginRun(const std::string& key, const std::string& name, const std::string& status, const std::string& recordJson);
  // One finished epoch of a run this object began (replaces a row of the same epoch).
  void addEpoch(const std::string& key, int epoch, const std::string& lineJson);
  // The run as a whole (inserted or replaced); its epoch rows go. Then its lock, if held
  // here, is given up (also when the write failed, so that the finished epochs are
  // recovered by the next reader).
  void putRun(const std::string& key, const std::string& name, const std::string& status, const std::string& recordJson);
  // The same, but only when no run has the key (an import never overwrites).
  void putRunIfAbsent(const std::string& key, const std::string& name, const std::string& status,
                      const std::string& recordJson);
  // Deletes the run and its epochs; false, and nothing done, while another object runs it.
  bool removeRun(const std::string& key);
  // Gives up this object's lock of a run (an orphan left as it was).
  void release(const std::string& key);

  // Runs `fill` (which writes through this object) and records meta `name` in one
  // transaction, unless `name` is already recorded; under a lock every process honours, so
  // two windows starting together do it once. Returns whether `fill` ran. An exception from
  // `fill` rolls everything back and propagates.
  bool once(const std::string& name, const std::string& value, const std::function<void()>& fill);
  std::optional<std::string> meta(const std::string& name);

private:
  class Statement;
  void open();
  void close();
  void setAside(const std::string& why);
  void exec(const char* sql, const std::string& what);
  [[noreturn]] void fail(const std::string& what, int rc) const;
  template <class F>
  void write(const std::string& what, F body);
  void putRunWith(const char* verb, const std::string& key, const std::string& name, const std::string& status,
                  const std::string& recordJson);
  std::optional<StoredRun> readRun(const std::string& key, std::vector<std::string>& problems);
  void readEpochs(StoredRun& run, std::vector<std::string>& problems);
  std::string lockPath(const std::string& key) const;
  // -1: held by another; else the file descriptor, locked (the caller owns it).
  int tryLock(const std::string& path) const;
  void unlockAndForget(const std::string& key);

  std::string m_folder, m_path;
  Options m_options;
  sqlite3* m_db = nullptr;
  std::map<std::string, int> m_locks;  // key -> locked descriptor of its lock file
  std::vector<std::string> m_notes;
  std::recursive_mutex m_mutex;
};

}  // namespace core::experiment
