// The run history's store: rows survive a reopen, a run running in another object (window) is
// seen as running and left alone, a killed owner's run comes back with every finished epoch,
// a full disk fails one write naming SQLITE_FULL and the file, a damaged file is kept aside,
// an import happens once.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "core/experiment/run_database.h"
#include "core/util/error.h"

using core::experiment::RunDatabase;
namespace fs = std::filesystem;

namespace {

class RunDatabaseTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::random_device rd;
    m_dir = fs::temp_directory_path() / ("accellab-rundb-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    fs::create_directories(m_dir);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(m_dir, ec);
  }
  std::string folder() const { return (m_dir / "runs").string(); }
  fs::path m_dir;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const RunDatabase::StoredRun* find(const RunDatabase::Listing& l, const std::string& key) {
  for (const auto& r : l.runs)
    if (r.key == key) return &r;
  return nullptr;
}

}  // namespace

TEST_F(RunDatabaseTest, RowsSurviveAReopenAndAnyToolCanReadThem) {
  {
    RunDatabase db(folder());
    db.putRun("run-2", "second", "finished", R"({"b": 2})");
    db.putRun("run-1", "first", "stopped", R"({"a": 1})");
    db.putRun("run-1", "first, renamed", "stopped", R"({"a": 11})");
    EXPECT_TRUE(db.takeNotes().empty());
  }
  RunDatabase db(folder());
  const auto l = db.runs();
  EXPECT_TRUE(l.problems.empty());
  ASSERT_EQ(l.runs.size(), 2u);
  EXPECT_EQ(l.runs[0].key, "run-1");  // key order
  EXPECT_EQ(l.runs[0].name, "first, renamed");
  EXPECT_EQ(l.runs[0].recordJson, R"({"a": 11})");
  EXPECT_EQ(l.runs[1].status, "finished");
  EXPECT_EQ(l.runs[1].liveness, RunDatabase::Liveness::Ended);

  // A plain SQLite reader sees the documented tables and WAL mode.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open_v2(db.path().c_str(), &raw, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "SELECT name, status FROM runs WHERE key = 'run-2'", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "second");
  sqlite3_finalize(st);
  ASSERT_EQ(sqlite3_prepare_v2(raw, "PRAGMA journal_mode", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "wal");
  sqlite3_finalize(st);
  sqlite3_close(raw);
  EXPECT_EQ(db.meta("schema_version"), std::optional<std::string>("1"));
}

TEST_F(RunDatabaseTest, ARunningRunIsLeftAloneByAnotherWindow) {
  RunDatabase owner(folder()), other(folder());
  owner.beginRun("run-a", "a", "running", "{}");
  owner.addEpoch("run-a", 1, R"({"e": 1})");
  owner.addEpoch("run-a", 2, R"({"e": 2})");

  auto l = other.runs();
  ASSERT_EQ(l.runs.size(), 1u);
  EXPECT_EQ(l.runs[0].liveness, RunDatabase::Liveness::RunningElsewhere);
  ASSERT_EQ(l.runs[0].epochs.size(), 2u);
  EXPECT_EQ(l.runs[0].epochs[1].lineJson, R"({"e": 2})");
  EXPECT_FALSE(other.removeRun("run-a"));  // refused: it runs elsewhere
  EXPECT_EQ(owner.runs().runs.at(0).liveness, RunDatabase::Liveness::RunningHere);

  owner.addEpoch("run-a", 3, R"({"e": 3})");
  owner.putRun("run-a", "a", "finished", R"({"whole": true})");
  EXPECT_FALSE(fs::exists(fs::path(folder()) / "locks" / "run-a.lock"));
  l = other.runs();
  ASSERT_EQ(l.runs.size(), 1u);
  EXPECT_EQ(l.runs[0].liveness, RunDatabase::Liveness::Ended);
  EXPECT_EQ(l.runs[0].status, "finished");
  EXPECT_TRUE(l.runs[0].epochs.empty());  // the record replaced them
  EXPECT_TRUE(other.removeRun("run-a"));
  EXPECT_TRUE(owner.runs().runs.empty());
}

TEST_F(RunDatabaseTest, AKilledOwnersRunIsClaimedOnceWithEveryFinishedEpoch) {
  // The owner, in another process, ends without writing the run's record.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      RunDatabase db(folder());
      db.beginRun("run-k", "killed", "running", "{}");
      for (int e = 1; e <= 3; ++e) db.addEpoch("run-k", e, "{\"e\": " + std::to_string(e) + "}");
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);

  RunDatabase first(folder()), second(folder());
  auto l = first.runs();
  ASSERT_EQ(l.runs.size(), 1u);
  EXPECT_EQ(l.runs[0].liveness, RunDatabase::Liveness::Orphaned);
  EXPECT_EQ(l.runs[0].epochs.size(), 3u);
  // While `first` recovers it, `second` sees it as someone else's.
  EXPECT_EQ(second.runs().runs.at(0).liveness, RunDatabase::Liveness::RunningElsewhere);
  first.putRun("run-k", "killed", "stopped", R"({"recovered": true})");
  l = second.runs();
  EXPECT_EQ(l.runs.at(0).liveness, RunDatabase::Liveness::Ended);
  EXPECT_EQ(l.runs.at(0).recordJson, R"({"recovered": true})");
}

TEST_F(RunDatabaseTest, AProcessThatDiesWithoutCleaningUpLeavesAnOrphan) {
  // _exit() straight after the epochs: no destructor, no unlock; the kernel drops the lock.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto* db = new RunDatabase(folder());
    db->beginRun("run-d", "died", "running", "{}");
    db->addEpoch("run-d", 1, "{}");
    db->addEpoch("run-d", 2, "{}");
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  RunDatabase db(folder());
  const auto l = db.runs();
  ASSERT_NE(find(l, "run-d"), nullptr);
  EXPECT_EQ(find(l, "run-d")->liveness, RunDatabase::Liveness::Orphaned);
  EXPECT_EQ(find(l, "run-d")->epochs.size(), 2u);
}

TEST_F(RunDatabaseTest, AFullDiskFailsOneWriteNamingTheFileAndTheCode) {
  RunDatabase::Options small;
  small.maxBytes = 96 * 1024;
  RunDatabase db(folder(), small);
  db.beginRun("run-f", "full", "running", "{}");
  db.addEpoch("run-f", 1, R"({"e": 1})");
  try {
    db.addEpoch("run-f", 2, std::string(400 * 1024, 'x'));
    FAIL() << "a write past the cap succeeded";
  } catch (const core::util::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("SQLITE_FULL"), std::string::npos) << what;
    EXPECT_NE(what.find(db.path()), std::string::npos) << what;
    EXPECT_NE(what.find("epoch 2"), std::string::npos) << what;
  }
  db.addEpoch("run-f", 3, R"({"e": 3})");  // the database is still usable
  RunDatabase reader(folder());
  const auto l = reader.runs();
  ASSERT_EQ(l.runs.size(), 1u);
  ASSERT_EQ(l.runs[0].epochs.size(), 2u);  // epoch 2 lost, and said so
  EXPECT_EQ(l.runs[0].epochs[0].epoch, 1);
  EXPECT_EQ(l.runs[0].epochs[1].epoch, 3);
}

TEST_F(RunDatabaseTest, ADamagedFileIsKeptAsideNeverOverwritten) {
  fs::create_directories(folder());
  const fs::path file = fs::path(folder()) / RunDatabase::kFileName;
  for (int round = 1; round <= 2; ++round) {
    const std::string junk = "not a database, round " + std::to_string(round) + std::string(5000, '\x5a');
    std::ofstream(file, std::ios::binary) << junk;
    RunDatabase db(folder());
    const auto notes = db.takeNotes();
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("kept as"), std::string::npos) << notes[0];
    EXPECT_NE(notes[0].find(file.string()), std::string::npos) << notes[0];
    db.putRun("run-1", "fresh", "finished", "{}");  // a fresh database works
    EXPECT_EQ(db.runs().runs.size(), 1u);
    int aside = 0;
    bool found = false;
    for (const auto& entry : fs::directory_iterator(folder())) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("history.sqlite.corrupt-", 0) == 0 && name.find("-wal") == std::string::npos &&
          name.find("-shm") == std::string::npos) {
        ++aside;
        found = found || slurp(entry.path()) == junk;
      }
    }
    EXPECT_EQ(aside, round);  // the second did not overwrite the first
    EXPECT_TRUE(found);       // kept byte for byte
  }
}

TEST_F(RunDatabaseTest, AnImportHappensOnceAndAFailedOneLeavesNothing) {
  RunDatabase db(folder());
  EXPECT_THROW(db.once("imported", "now",
                       [&] {
                         db.putRunIfAbsent("run-x", "x", "finished", "{}");
                         throw core::util::Error("disk trouble");
                       }),
               core::util::Error);
  EXPECT_TRUE(db.runs().runs.empty());
  EXPECT_FALSE(db.meta("imported"));
  int calls = 0;
  const auto fill = [&] {
    ++calls;
    db.putRunIfAbsent("run-x", "x", "finished", "{}");
  };
  EXPECT_TRUE(db.once("imported", "t1", fill));
  EXPECT_FALSE(db.once("imported", "t2", fill));
  RunDatabase other(folder());
  EXPECT_FALSE(other.once("imported", "t3", fill));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(db.meta("imported"), std::optional<std::string>("t1"));
  db.putRunIfAbsent("run-x", "changed", "failed", "{}");  // an import never overwrites
  EXPECT_EQ(db.runs().runs.at(0).name, "x");
}

TEST_F(RunDatabaseTest, AKeyFromTheDatabaseNeverLeavesTheLocksFolder) {
  RunDatabase db(folder());
  db.beginRun("../../escape", "odd", "running", "{}");
  EXPECT_FALSE(fs::exists(m_dir / "escape.lock"));
  EXPECT_FALSE(fs::exists(fs::path(folder()) / ".." / ".." / "escape.lock"));
  db.putRun("../../escape", "odd", "finished", "{}");
  EXPECT_EQ(db.runs().runs.at(0).status, "finished");
}

TEST_F(RunDatabaseTest, AnEpochOfARunNotBegunHereIsRefused) {
  RunDatabase db(folder());
  EXPECT_THROW(db.addEpoch("run-nobody", 1, "{}"), core::util::Error);
}
