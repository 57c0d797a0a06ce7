#include "core/util/json_reader.h"

#include <cmath>

#include "core/util/error.h"

namespace core::util {

JsonReader::JsonReader(const Json& object, std::string source, std::string path)
    : m_object(&object), m_source(std::move(source)), m_path(std::move(path)) {
  if (!object.isObject()) throw Error(m_source + ": " + (m_path.empty() ? "top level" : m_path) + ": expected a JSON object");
}

std::string JsonReader::where(const std::string& key) const {
  std::string p = m_path.empty() ? key : (key.empty() ? m_path : m_path + "." + key);
  return m_source + ": " + (p.empty() ? "top level" : p);
}

void JsonReader::fail(const std::string& key, const std::string& what) const { throw Error(where(key) + ": " + what); }

const Json* JsonReader::lookup(const std::string& key) const {
  m_read.insert(key);
  return m_object->find(key);
}

bool JsonReader::has(const std::string& key) const { return m_object->find(key) != nullptr; }

const Json& JsonReader::require(const std::string& key, Json::Type type, const char* typeName) const {
  const Json* j = lookup(key);
  if (!j) fail(key, "missing (required)");
  if (j->type() != type) fail(key, std::string("expected a ") + typeName);
  return *j;
}

std::string JsonReader::string(const std::string& key) const { return require(key, Json::Type::String, "string").asString(); }

std::string JsonReader::string(const std::string& key, const std::string& fallback) const {
  return has(key) ? string(key) : (m_read.insert(key), fallback);
}

double JsonReader::number(const std::string& key, double min, double max) const {
  const double v = require(key, Json::Type::Number, "number").asNumber();
  if (!std::isfinite(v) || v < min || v > max)
    fail(key, "value " + core::util::formatNumber(v) + " is outside [" + core::util::formatNumber(min) + ", " +
                  core::util::formatNumber(max) + "]");
  return v;
}

double JsonReader::number(const std::string& key, double fallback, double min, double max) const {
  return has(key) ? number(key, min, max) : (m_read.insert(key), fallback);
}

std::int64_t JsonReader::integer(const std::string& key, std::int64_t min, std::int64_t max) const {
  const double v = number(key, static_cast<double>(min), static_cast<double>(max));
  if (v != std::floor(v)) fail(key, "expected a whole number, found " + core::util::formatNumber(v));
  return static_cast<std::int64_t>(v);
}

std::int64_t JsonReader::integer(const std::string& key, std::int64_t fallback, std::int64_t min, std::int64_t max) const {
  return has(key) ? integer(key, min, max) : (m_read.insert(key), fallback);
}

double JsonReader::real(const std::string& key, double fallback) const {
  const Json* j = lookup(key);
  if (!j) return fallback;
  if (j->isNull()) return std::nan("");
  if (!j->isNumber()) fail(key, "expected a number or null");
  return j->asNumber();
}

bool JsonReader::boolean(const std::string& key, bool fallback) const {
  if (!has(key)) return m_read.insert(key), fallback;
  return require(key, Json::Type::Bool, "boolean (true or false)").asBool();
}

std::string JsonReader::choice(const std::string& key, const std::vector<std::string>& allowed,
                               const std::optional<std::string>& fallback) const {
  if (!has(key) && fallback) return m_read.insert(key), *fallback;
  const std::string v = string(key);
  for (const auto& a : allowed)
    if (a == v) return v;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  fail(key, "\"" + v + "\" is not one of: " + list);
}

JsonReader JsonReader::object(const std::string& key) const {
  const Json& j = require(key, Json::Type::Object, "JSON object");
  return JsonReader(j, m_source, m_path.empty() ? key : m_path + "." + key);
}

std::vector<JsonReader> JsonReader::objects(const std::string& key) const {
  std::vector<JsonReader> out;
  if (!has(key)) return m_read.insert(key), out;
  const Json& a = require(key, Json::Type::Array, "JSON array");
  const std::string base = m_path.empty() ? key : m_path + "." + key;
  for (std::size_t i = 0; i < a.asArray().size(); ++i) {
    const std::string p = base + "[" + std::to_string(i) + "]";
    if (!a.asArray()[i].isObject()) throw Error(m_source + ": " + p + ": expected a JSON object");
    out.emplace_back(a.asArray()[i], m_source, p);
  }
  return out;
}

std::vector<double> JsonReader::numbers(const std::string& key) const {
  std::vector<double> out;
  if (!has(key)) return m_read.insert(key), out;
  const Json& a = require(key, Json::Type::Array, "JSON array of numbers");
  for (std::size_t i = 0; i < a.asArray().size(); ++i) {
    const Json& v = a.asArray()[i];
    // null stands for "not a number" (JSON has no NaN).
    if (v.isNull()) {
      out.push_back(std::nan(""));
      continue;
    }
    if (!v.isNumber()) fail(key, "element " + std::to_string(i) + " is not a number");
    out.push_back(v.asNumber());
  }
  return out;
}

void JsonReader::finish() const {
  for (const auto& [key, value] : m_object->asObject())
    if (!m_read.count(key)) fail(key, "unknown key (check its spelling)");
}

}  // namespace core::util
