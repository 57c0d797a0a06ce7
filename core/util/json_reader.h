#pragma once
// Strict reading of a JSON object from a data file (experiments, presets, run history): every read names
// the file and the key path in its error ("e3.json: devices[1].count: must be at least 1"),
// and finish() rejects keys nobody read, so a typo is an error rather than a silent default.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/util/json.h"

namespace core::util {

class JsonReader {
public:
  // `source` names the file; `path` is where this object sits inside it ("" = top level).
  JsonReader(const core::util::Json& object, std::string source, std::string path = {});

  bool has(const std::string& key) const;
  std::string string(const std::string& key) const;
  std::string string(const std::string& key, const std::string& fallback) const;
  double number(const std::string& key, double min, double max) const;
  double number(const std::string& key, double fallback, double min, double max) const;
  std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t min, std::int64_t max) const;
  // Any number; null reads as NaN (JSON has no NaN, so writers put null there).
  double real(const std::string& key, double fallback) const;
  std::int64_t integer(const std::string& key, std::int64_t min, std::int64_t max) const;
  bool boolean(const std::string& key, bool fallback) const;
  // One of `allowed`; the error lists them.
  std::string choice(const std::string& key, const std::vector<std::string>& allowed,
                     const std::optional<std::string>& fallback = std::nullopt) const;
  JsonReader object(const std::string& key) const;
  std::vector<JsonReader> objects(const std::string& key) const;  // array of objects; absent = empty
  std::vector<double> numbers(const std::string& key) const;      // array of numbers; absent = empty

  // Throws naming the first key that was never read.
  void finish() const;
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;
  std::string where(const std::string& key) const;  // "file: path.key"

private:
  const core::util::Json& require(const std::string& key, core::util::Json::Type type, const char* typeName) const;
  const core::util::Json* lookup(const std::string& key) const;

  const core::util::Json* m_object;
  std::string m_source;
  std::string m_path;
  mutable std::set<std::string> m_read;
};

}  // namespace core::util
