#include "core/experiment/run_database.h"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <thread>

#include "core/experiment/run_database_statement.h"
#include "core/util/error.h"
#include "core/util/printable.h"

namespace core::experiment {

using core::util::Error;

namespace {

std::string timeText(const char* format, bool utc) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  utc ? gmtime_r(&now, &tm) : localtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

}  // namespace

namespace run_database_detail {

// SQLite's name of a result code, so that a message says SQLITE_FULL and not only "database
// or disk is full" (which users and bug reports search for by name).
std::string codeName(int rc) {
  switch (rc & 0xff) {
    case SQLITE_ERROR: return "SQLITE_ERROR";
    case SQLITE_INTERNAL: return "SQLITE_INTERNAL";
    case SQLITE_PERM: return "SQLITE_PERM";
    case SQLITE_ABORT: return "SQLITE_ABORT";
    case SQLITE_BUSY: return "SQLITE_BUSY";
    case SQLITE_LOCKED: return "SQLITE_LOCKED";
    case SQLITE_NOMEM: return "SQLITE_NOMEM";
    case SQLITE_READONLY: return "SQLITE_READONLY";
    case SQLITE_INTERRUPT: return "SQLITE_INTERRUPT";
    case SQLITE_IOERR: return "SQLITE_IOERR";
    case SQLITE_CORRUPT: return "SQLITE_CORRUPT";
    case SQLITE_FULL: return "SQLITE_FULL";
    case SQLITE_CANTOPEN: return "SQLITE_CANTOPEN";
    case SQLITE_PROTOCOL: return "SQLITE_PROTOCOL";
    case SQLITE_SCHEMA: return "SQLITE_SCHEMA";
    case SQLITE_TOOBIG: return "SQLITE_TOOBIG";
    case SQLITE_CONSTRAINT: return "SQLITE_CONSTRAINT";
    case SQLITE_MISMATCH: return "SQLITE_MISMATCH";
    case SQLITE_MISUSE: return "SQLITE_MISUSE";
    case SQLITE_NOLFS: return "SQLITE_NOLFS";
    case SQLITE_NOTADB: return "SQLITE_NOTADB";
    default: return "SQLite error " + std::to_string(rc);
  }
}

bool isCorruption(int rc) { return (rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB; }

bool isLive(const std::string& status) { return status == "running" || status == "paused"; }

}  // namespace run_database_detail

RunDatabase::RunDatabase(std::string folder, Options options)
    : m_folder(std::move(folder)), m_path((std::filesystem::path(m_folder) / kFileName).string()), m_options(options) {
  std::error_code ec;
  std::filesystem::create_directories(m_folder, ec);
  if (ec) throw Error(m_folder + ": cannot create the run history's folder: " + ec.message());
  try {
    open();
  } catch (const Corrupt& c) {
    setAside(c.why());
    open();
  }
}

RunDatabase::~RunDatabase() {
  while (!m_locks.empty()) unlockAndForget(m_locks.begin()->first);
  close();
}

void RunDatabase::close() {
  if (m_db) sqlite3_close_v2(m_db);
  m_db = nullptr;
}

[[noreturn]] void RunDatabase::fail(const std::string& what, int rc) const {
  const char* detail = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
  const std::string text = m_path + ": " + what + ": " + codeName(rc) + " (" + detail + ")";
  if (isCorruption(rc)) throw Corrupt(text);
  throw Error(text);
}

void RunDatabase::exec(const char* sql, const std::string& what) {
  char* message = nullptr;
  const int rc = sqlite3_exec(m_db, sql, nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return;
  const std::string detail = message ? message : sqlite3_errstr(rc);
  sqlite3_free(message);
  const std::string text = m_path + ": " + what + ": " + codeName(rc) + " (" + detail + ")";
  if (isCorruption(rc)) throw Corrupt(text);
  throw Error(text);
}

void RunDatabase::open() {
  const int rc = sqlite3_open_v2(m_path.c_str(), &m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    const std::string detail = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
    close();
    throw Error(m_path + ": cannot open the run history: " + codeName(rc) + " (" + detail + ")");
  }
  sqlite3_extended_result_codes(m_db, 1);
  sqlite3_busy_timeout(m_db, m_options.busyTimeoutMs);
  // No text read back can be larger than this, whoever wrote the file.
  sqlite3_limit(m_db, SQLITE_LIMIT_LENGTH, static_cast<int>(kMaxRecordBytes + (std::uint64_t{1} << 20)));
  try {
    exec("PRAGMA journal_mode=WAL", "cannot open the run history");
    {
      Statement check(*this, "PRAGMA quick_check(1)", "cannot check the run history");
      if (check.step() && check.text(0) != "ok")
        throw Corrupt(m_path + ": the run history is damaged (SQLite's check: " + check.text(0) + ")");
    }
    exec("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON", "cannot open the run history");
    if (m_options.maxBytes > 0) {
      const std::string sql = "PRAGMA max_page_count=" + std::to_string(std::max<std::int64_t>(1, m_options.maxBytes / 4096));
      exec(sql.c_str(), "cannot cap the run history's size");
    }
    exec("BEGIN IMMEDIATE;"
         "CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value TEXT NOT NULL);"
         "CREATE TABLE IF NOT EXISTS runs(key TEXT PRIMARY KEY, name TEXT NOT NULL, status TEXT NOT NULL,"
         " record_json TEXT NOT NULL, updated_utc TEXT NOT NULL);"
         "CREATE TABLE IF NOT EXISTS epochs(run_key TEXT NOT NULL REFERENCES runs(key) ON DELETE CASCADE,"
         " epoch INTEGER NOT NULL, line_json TEXT NOT NULL, PRIMARY KEY (run_key, epoch));"
         "INSERT OR IGNORE INTO meta(name, value) VALUES('schema_version', '1');"
         "COMMIT",
         "cannot create the run history's tables");
  } catch (...) {
    if (m_db && !sqlite3_get_autocommit(m_db)) sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    close();
    throw;
  }
  const auto version = meta("schema_version");
  if (version && *version != std::to_string(kSchemaVersion)) {
    close();
    throw Error(m_path + ": the run history has schema version " + *version + "; this AccelLab reads version " +
                std::to_string(kSchemaVersion) + " (a newer AccelLab wrote it)");
  }
}

void RunDatabase::setAside(const std::string& why) {
  close();
  namespace fs = std::filesystem;
  const std::string base = m_path + ".corrupt-" + timeText("%Y%m%d-%H%M%S", false);
  std::string aside = base;
  std::error_code ec;
  for (int n = 2; fs::exists(aside, ec) || fs::exists(aside + "-wal", ec); ++n) aside = base + "-" + std::to_string(n);
  fs::rename(m_path, aside, ec);
  if (ec) {
    m_notes.push_back(why + "; it could not be set aside (" + ec.message() + "), so the run history cannot be used");
    throw Error(m_path + ": the run history is damaged and cannot be set aside: " + ec.message());
  }
  // Its journal and index go with it, so that a SQLite tool opening the copy sees what we saw.
  for (const char* part : {"-wal", "-shm"})
    if (fs::exists(m_path + part, ec)) fs::rename(m_path + part, aside + part, ec);
  m_notes.push_back(core::util::printable(why + ". It was kept as " + aside +
                                          " and a new run history was started; the run files of the folder are read in again."));
}

std::vector<std::string> RunDatabase::takeNotes() {
  const std::lock_guard lock(m_mutex);
  std::vector<std::string> out;
  out.swap(m_notes);
  return out;
}

template <class F>
void RunDatabase::write(const std::string& what, F body) {
  if (!m_db) throw Error(m_path + ": " + what + ": the run history is not open");
  const bool outer = sqlite3_get_autocommit(m_db) != 0;
  if (outer) exec("BEGIN IMMEDIATE", what);
  try {
    body();
    if (outer) exec("COMMIT", what);
  } catch (...) {
    if (outer && !sqlite3_get_autocommit(m_db)) sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

void RunDatabase::putRunWith(const char* verb, const std::string& key, const std::string& name, const std::string& status,
                             const std::string& recordJson) {
  const std::string sql = std::string("INSERT INTO runs(key, name, status, record_json, updated_utc) VALUES(?1, ?2, ?3, ?4, ?5) ") + verb;
  Statement(*this, sql.c_str(), "cannot save run " + key)
      .bind(1, key)
      .bind(2, name)
      .bind(3, status)
      .bind(4, recordJson)
      .bind(5, timeText("%Y-%m-%dT%H:%M:%SZ", true))
      .run();
}

namespace {
constexpr const char* kUpsert =
    "ON CONFLICT(key) DO UPDATE SET name = excluded.name, status = excluded.status, record_json = excluded.record_json,"
    " updated_utc = excluded.updated_utc";
}  // namespace

void RunDatabase::beginRun(const std::string& key, const std::string& name, const std::string& status, const std::string& recordJson) {
  const std::lock_guard lock(m_mutex);
  if (!m_locks.count(key)) {
    const int fd = tryLock(lockPath(key));
    if (fd < 0) throw Error(m_path + ": cannot start run " + key + ": another window is running it");
    m_locks[key] = fd;
  }
  try {
    write("cannot save the start of run " + key, [&] {
      putRunWith(kUpsert, key, name, status, recordJson);
      Statement(*this, "DELETE FROM epochs WHERE run_key = ?1", "cannot save the start of run " + key).bind(1, key).run();
    });
  } catch (...) {
    unlockAndForget(key);  // nothing says it runs: no lock to hold
    throw;
  }
}

void RunDatabase::addEpoch(const std::string& key, int epoch, const std::string& lineJson) {
  const std::lock_guard lock(m_mutex);
  const std::string what = "cannot save epoch " + std::to_string(epoch) + " of run " + key;
  if (!m_locks.count(key)) throw Error(m_path + ": " + what + ": its start was not saved");
  write(what, [&] {
    Statement(*this, "INSERT OR REPLACE INTO epochs(run_key, epoch, line_json) VALUES(?1, ?2, ?3)", what)
        .bind(1, key)
        .bind(2, std::int64_t{epoch})
        .bind(3, lineJson)
        .run();
    Statement(*this, "UPDATE runs SET updated_utc = ?2 WHERE key = ?1", what).bind(1, key).bind(2, timeText("%Y-%m-%dT%H:%M:%SZ", true)).run();
  });
}

void RunDatabase::putRun(const std::string& key, const std::string& name, const std::string& status, const std::string& recordJson) {
  const std::lock_guard lock(m_mutex);
  try {
    write("cannot save run " + key, [&] {
      putRunWith(kUpsert, key, name, status, recordJson);
      Statement(*this, "DELETE FROM epochs WHERE run_key = ?1", "cannot save run " + key).bind(1, key).run();
    });
  } catch (...) {
    if (m_locks.count(key)) unlockAndForget(key);
    throw;
  }
  if (m_locks.count(key)) unlockAndForget(key);
}

void RunDatabase::putRunIfAbsent(const std::string& key, const std::string& name, const std::string& status,
                                 const std::string& recordJson) {
  const std::lock_guard lock(m_mutex);
  write("cannot save run " + key, [&] { putRunWith("ON CONFLICT(key) DO NOTHING", key, name, status, recordJson); });
}

bool RunDatabase::removeRun(const std::string& key) {
  const std::lock_guard lock(m_mutex);
  const std::string what = "cannot delete run " + key;
  bool removed = false;
  write(what, [&] {
    Statement status(*this, "SELECT status FROM runs WHERE key = ?1", what);
    status.bind(1, key);
    if (status.step() && isLive(status.text(0)) && !m_locks.count(key)) {
      const int fd = tryLock(lockPath(key));
      if (fd < 0) return;  // live elsewhere: left alone
      m_locks[key] = fd;
    }
    Statement(*this, "DELETE FROM epochs WHERE run_key = ?1", what).bind(1, key).run();
    Statement(*this, "DELETE FROM runs WHERE key = ?1", what).bind(1, key).run();
    removed = true;
  });
  if (m_locks.count(key)) unlockAndForget(key);
  return removed;
}

void RunDatabase::release(const std::string& key) {
  const std::lock_guard lock(m_mutex);
  if (m_locks.count(key)) unlockAndForget(key);
}

std::optional<std::string> RunDatabase::meta(const std::string& name) {
  const std::lock_guard lock(m_mutex);
  if (!m_db) return std::nullopt;
  Statement s(*this, "SELECT value FROM meta WHERE name = ?1", "cannot read the run history's settings");
  s.bind(1, name);
  if (!s.step()) return std::nullopt;
  return s.text(0);
}

bool RunDatabase::once(const std::string& name, const std::string& value, const std::function<void()>& fill) {
  const std::lock_guard lock(m_mutex);
  if (meta(name)) return false;
  // Another process may be doing it now: wait for it (a minute at most), then look again.
  const int fd = [&] {
    const auto until = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    for (;;) {
      if (const int f = tryLock(lockPath("import-once")); f >= 0) return f;
      if (std::chrono::steady_clock::now() > until)
        throw Error(m_path + ": cannot import (" + name + "): another AccelLab has been importing for over a minute");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }();
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }
  } unlock{fd};
  if (meta(name)) return false;
  write("cannot import (" + name + ")", [&] {
    fill();
    Statement(*this, "INSERT OR REPLACE INTO meta(name, value) VALUES(?1, ?2)", "cannot import (" + name + ")")
        .bind(1, name)
        .bind(2, value)
        .run();
  });
  return true;
}

}  // namespace core::experiment
