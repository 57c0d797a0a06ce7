// RunDatabase's listing: the runs with their liveness, each row read on its own, and the lock
// files that tell a run still running elsewhere from one its process left behind.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

#include "core/experiment/run_database.h"
#include "core/experiment/run_database_statement.h"
#include "core/util/error.h"
#include "core/util/printable.h"

namespace core::experiment {

using core::util::Error;

std::string RunDatabase::lockPath(const std::string& key) const {
  // A key read from the database may hold anything: only a plain file name is used.
  std::string file;
  for (char c : key.substr(0, 200)) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    file += plain ? c : '_';
  }
  return (std::filesystem::path(m_folder) / "locks" / (file + ".lock")).string();
}

int RunDatabase::tryLock(const std::string& path) const {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  // O_CLOEXEC: a child process (a script, the CLI) must not keep the lock after we are gone.
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) throw Error(path + ": cannot open the run's lock file: " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
  const int err = errno;
  ::close(fd);
  if (err == EWOULDBLOCK) return -1;
  throw Error(path + ": cannot lock the run's lock file: " + std::strerror(err));
}

void RunDatabase::unlockAndForget(const std::string& key) {
  const auto it = m_locks.find(key);
  if (it == m_locks.end()) return;
  // Unlinked while still locked: whoever opened it meanwhile gets the lock only after we
  // let go, and then reads the row again (which no longer says running).
  ::unlink(lockPath(key).c_str());
  ::close(it->second);
  m_locks.erase(it);
}

std::optional<RunDatabase::StoredRun> RunDatabase::readRun(const std::string& key, std::vector<std::string>& problems) {
  const std::string what = "cannot read run " + key;
  Statement s(*this, "SELECT key, name, status, record_json FROM runs WHERE key = ?1", what);
  s.bind(1, key);
  if (!s.step()) return std::nullopt;
  if (s.bytes(3) > kMaxRecordBytes) {
    problems.push_back(m_path + ": run " + key + ": its record is larger than " + std::to_string(kMaxRecordBytes >> 20) +
                       " MiB; left in the database, not read");
    return std::nullopt;
  }
  StoredRun run{s.text(0), s.text(1), s.text(2), s.text(3), {}, Liveness::Ended};
  if (isLive(run.status)) readEpochs(run, problems);
  return run;
}

void RunDatabase::readEpochs(StoredRun& run, std::vector<std::string>& problems) {
  const std::string what = "cannot read the epochs of run " + run.key;
  Statement s(*this, "SELECT epoch, line_json FROM epochs WHERE run_key = ?1 ORDER BY epoch", what);
  s.bind(1, run.key);
  try {
    while (s.step()) {
      if (s.bytes(1) > kMaxEpochLineBytes) {
        problems.push_back(m_path + ": run " + run.key + ": epoch " + std::to_string(s.integer(0)) + " is larger than " +
                           std::to_string(kMaxEpochLineBytes >> 20) + " MiB; not read");
        continue;
      }
      run.epochs.push_back({static_cast<int>(std::clamp<std::int64_t>(s.integer(0), INT32_MIN, INT32_MAX)), s.text(1)});
    }
  } catch (const Corrupt&) {
    throw;
  } catch (const Error& e) {
    problems.push_back(e.what());
  }
}

RunDatabase::Listing RunDatabase::runs() {
  const std::lock_guard lock(m_mutex);
  Listing out;
  if (!m_db) {
    out.problems.push_back(m_path + ": the run history is not open");
    return out;
  }
  std::vector<std::string> claimed;  // orphans whose lock this call took
  try {
    {
      // One snapshot for the whole list; each row is read on its own, so a row SQLite
      // refuses (too big, unreadable) costs that row only.
      exec("BEGIN", "cannot read the run history");
      struct End {
        sqlite3* db;
        ~End() {
          if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
        }
      } end{m_db};
      std::vector<std::int64_t> rowids;
      Statement ids(*this, "SELECT rowid FROM runs ORDER BY key", "cannot read the run history");
      while (ids.step()) rowids.push_back(ids.integer(0));
      Statement row(*this, "SELECT key, name, status, record_json FROM runs WHERE rowid = ?1", "cannot read a run");
      for (const std::int64_t id : rowids) {
        row.reset();
        row.bind(1, id);
        try {
          if (!row.step()) continue;
        } catch (const Corrupt&) {
          throw;
        } catch (const Error& e) {
          out.problems.push_back(std::string(e.what()) + " (row " + std::to_string(id) + " of table runs; left as it is)");
          continue;
        }
        const std::string key = row.text(0);
        if (key.empty() || key.size() > 200) {
          out.problems.push_back(m_path + ": row " + std::to_string(id) + " of table runs has no usable key; not read");
          continue;
        }
        if (row.bytes(3) > kMaxRecordBytes) {
          out.problems.push_back(m_path + ": run " + key + ": its record is larger than " +
                                 std::to_string(kMaxRecordBytes >> 20) + " MiB; left in the database, not read");
          continue;
        }
        StoredRun run{key, row.text(1), row.text(2), row.text(3), {}, Liveness::Ended};
        if (isLive(run.status)) {
          readEpochs(run, out.problems);
        }
        out.runs.push_back(std::move(run));
      }
    }
    // Who runs what: the lock says, and a run whose lock we can take is read again after
    // taking it (its owner may have finished in the meantime).
    for (StoredRun& run : out.runs) {
      if (!isLive(run.status)) continue;
      if (m_locks.count(run.key)) {
        run.liveness = Liveness::RunningHere;
        continue;
      }
      int fd = -1;
      try {
        fd = tryLock(lockPath(run.key));
      } catch (const Error& e) {
        out.problems.push_back(std::string(e.what()) + " (run " + run.key + " is shown as running elsewhere)");
      }
      if (fd < 0) {
        run.liveness = Liveness::RunningElsewhere;
        continue;
      }
      m_locks[run.key] = fd;
      claimed.push_back(run.key);
      std::optional<StoredRun> now;
      try {
        now = readRun(run.key, out.problems);
      } catch (const Corrupt&) {
        throw;
      } catch (const Error& e) {
        unlockAndForget(run.key);  // not read again: shown as running, not touched
        out.problems.push_back(std::string(e.what()) + " (run " + run.key + " is left as it is)");
        run.liveness = Liveness::RunningElsewhere;
        continue;
      }
      if (now && isLive(now->status)) {
        run = std::move(*now);
        run.liveness = Liveness::Orphaned;
        continue;
      }
      unlockAndForget(run.key);  // its owner ended it meanwhile (or deleted it)
      if (now) run = std::move(*now);
      else run.key.clear();
    }
    std::erase_if(out.runs, [](const StoredRun& r) { return r.key.empty(); });
  } catch (const Corrupt& c) {
    out.runs.clear();
    for (const std::string& key : claimed) unlockAndForget(key);
    try {
      setAside(c.why());
      open();
    } catch (const std::exception& e) {
      close();
      out.problems.push_back(e.what());
    }
  } catch (const std::exception& e) {
    out.problems.push_back(e.what());
  }
  // Keys and names come from the file: none of their bytes may steer a terminal.
  for (std::string& p : out.problems) p = core::util::printable(p);
  return out;
}

}  // namespace core::experiment
