// Internal to RunDatabase (run_database.cpp and run_database_listing.cpp): SQLite's result
// codes by name, the corruption a caller sets aside, and the prepared statement both files
// read and write through. Not for other code: RunDatabase is the run history's interface.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "core/experiment/run_database.h"
#include "core/util/error.h"

namespace core::experiment {
namespace run_database_detail {

// SQLite's name of a result code, so that a message says SQLITE_FULL and not only "database
// or disk is full" (which users and bug reports search for by name).
std::string codeName(int rc);
bool isCorruption(int rc);
// A run whose row says it runs (running or paused): its lock says whether it really does.
bool isLive(const std::string& status);

// The error SQLite met while reading a database found corrupt: the caller sets it aside.
struct Corrupt : core::util::Error {
  explicit Corrupt(const std::string& why) : Error(why) {}
  std::string why() const { return what(); }
};

}  // namespace run_database_detail

using run_database_detail::codeName;
using run_database_detail::Corrupt;
using run_database_detail::isCorruption;
using run_database_detail::isLive;

// A prepared statement that finalises itself; steps and columns report errors through the
// database that made it.
class RunDatabase::Statement {
public:
  Statement(const RunDatabase& db, const char* sql, const std::string& what) : m_db(db), m_what(what) {
    const int rc = sqlite3_prepare_v2(db.m_db, sql, -1, &m_stmt, nullptr);
    if (rc != SQLITE_OK) db.fail(what, rc);
  }
  ~Statement() { sqlite3_finalize(m_stmt); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& text) {
    check(sqlite3_bind_text(m_stmt, i, text.data(), static_cast<int>(text.size()), SQLITE_STATIC));
    return *this;
  }
  Statement& bind(int i, std::int64_t v) {
    check(sqlite3_bind_int64(m_stmt, i, v));
    return *this;
  }
  // True while there is a row.
  bool step() {
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    if (isCorruption(rc)) throw Corrupt(m_db.m_path + ": " + m_what + ": " + codeName(rc) + " (" + sqlite3_errmsg(m_db.m_db) + ")");
    m_db.fail(m_what, rc);
  }
  void run() {
    while (step()) {
    }
  }
  void reset() {
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
  }
  std::int64_t integer(int col) const { return sqlite3_column_int64(m_stmt, col); }
  std::size_t bytes(int col) const { return static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, col)); }
  std::string text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, col));
    return p ? std::string(p, bytes(col)) : std::string();
  }

private:
  void check(int rc) const {
    if (rc != SQLITE_OK) m_db.fail(m_what, rc);
  }
  const RunDatabase& m_db;
  std::string m_what;
  sqlite3_stmt* m_stmt = nullptr;
};

}  // namespace core::experiment
