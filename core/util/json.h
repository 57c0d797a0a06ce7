#pragma once
// A small JSON value with a strict parser and a writer. Core has no Qt, and device files,
// presets' simulator inputs and the CLI's output are JSON, so core carries its own.
// Objects keep their keys in insertion order (output reads the way it was built).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace core::util {

// How much one parse may build: a budget of values (every number, string, array and object
// counts one) and of nesting, so that no file costs more than a small multiple of its size
// in memory. Each kind of file has its own (kDataFile: devices, stacks, presets, studies).
struct JsonLimits {
  std::size_t maxNodes;
  int maxDepth;
  // The budget when none is given: a quarter of the bytes (a value takes at least two bytes,
  // "0,", and AccelLab's files average ten or more) plus room for small documents.
  static constexpr JsonLimits forSize(std::size_t bytes) { return {bytes / 4 + 4096, 64}; }
};
inline constexpr JsonLimits kDataFileJsonLimits{100'000, 32};

class Json {
public:
  static constexpr std::size_t kMaxDocumentBytes = std::size_t{256} << 20;  // run histories reach ~10 MB

  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;
  enum class Type { Null, Bool, Number, String, Array, Object };

  Json() = default;  // null
  Json(std::nullptr_t) {}
  Json(bool b) : m_value(b) {}
  Json(double d) : m_value(d) {}
  Json(int i) : m_value(static_cast<double>(i)) {}
  Json(long i) : m_value(static_cast<double>(i)) {}
  Json(long long i) : m_value(static_cast<double>(i)) {}
  Json(unsigned i) : m_value(static_cast<double>(i)) {}
  Json(unsigned long i) : m_value(static_cast<double>(i)) {}
  Json(unsigned long long i) : m_value(static_cast<double>(i)) {}
  Json(const char* s) : m_value(std::string(s)) {}
  Json(std::string s) : m_value(std::move(s)) {}
  Json(std::string_view s) : m_value(std::string(s)) {}
  Json(Array a) : m_value(std::move(a)) {}
  Json(Object o) : m_value(std::move(o)) {}

  static Json array() { return Json(Array{}); }
  static Json object() { return Json(Object{}); }

  Type type() const { return static_cast<Type>(m_value.index()); }
  bool isNull() const { return type() == Type::Null; }
  bool isBool() const { return type() == Type::Bool; }
  bool isNumber() const { return type() == Type::Number; }
  bool isString() const { return type() == Type::String; }
  bool isArray() const { return type() == Type::Array; }
  bool isObject() const { return type() == Type::Object; }

  // Typed access; throws core::util::Error naming the expected type when it does not match.
  bool asBool() const;
  double asNumber() const;
  const std::string& asString() const;
  const Array& asArray() const;
  Array& asArray();
  const Object& asObject() const;
  Object& asObject();

  // Object helpers. find() returns nullptr when the key is absent.
  const Json* find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  Json& operator[](std::string_view key);  // inserts null when absent (object or null only)
  const Json& at(std::string_view key) const;  // throws naming the key when absent
  void set(std::string_view key, Json value) { (*this)[key] = std::move(value); }
  void push(Json value);  // array (or null, which becomes an array)
  std::size_t size() const;

  // Writing: compact on one line (indent < 0) or pretty with `indent` spaces.
  std::string dump(int indent = -1) const;

  // Strict RFC 8259 parsing; errors give line and column. `source` names the file in errors.
  // Limits, each a clear error: kMaxDocumentBytes, 100,000 keys in one object, the value and
  // nesting budget, whole numbers beyond 2^53 (they would be rounded).
  // `limits`: the budget of values and depth (JsonLimits::forSize(text.size()) when not given).
  static Json parse(std::string_view text, std::string_view source = "<json>", std::optional<JsonLimits> limits = std::nullopt);
  static Json parseFile(const std::string& path, std::uint64_t maxBytes, std::optional<JsonLimits> limits = std::nullopt);

  friend bool operator==(const Json& a, const Json& b) { return a.m_value == b.m_value; }

private:
  std::variant<std::nullptr_t, bool, double, std::string, Array, Object> m_value{nullptr};
};

// Formats a double the shortest way that reads back exactly (integers without ".0").
std::string formatNumber(double v);

}  // namespace core::util
