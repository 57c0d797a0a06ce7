#include "core/util/json.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <unordered_set>

#include "core/util/error.h"
#include "core/util/files.h"
#include "core/util/utf8.h"

namespace core::util {
namespace {

const char* typeName(Json::Type t) {
  switch (t) {
    case Json::Type::Null: return "null";
    case Json::Type::Bool: return "boolean";
    case Json::Type::Number: return "number";
    case Json::Type::String: return "string";
    case Json::Type::Array: return "array";
    case Json::Type::Object: return "object";
  }
  return "?";
}

[[noreturn]] void wrongType(Json::Type want, Json::Type got) {
  throw Error(std::string("expected a JSON ") + typeName(want) + ", found " + typeName(got));
}

// Writes `s` as a JSON string. Bytes that do not form well-formed UTF-8 (a byte-level language
// model's sample may hold any byte) become U+FFFD, so the output is always valid JSON.
void escapeTo(std::string& out, const std::string& s) {
  out += '"';
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      char32_t cp = 0;
      const std::size_t n = decodeUtf8(s, i, cp);
      if (n == 0) {
        out += "\ufffd";
      } else if (isC1Control(cp)) {
        char buf[8];  // escaped, so that no terminal that shows the file obeys it
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
        out += buf;
        ++i;
      } else {
        out.append(s, i, n);
        i += n - 1;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

void dumpTo(std::string& out, const Json& j, int indent, int depth) {
  const auto newline = [&](int d) {
    if (indent < 0) return;
    out += '\n';
    out.append(static_cast<std::size_t>(indent * d), ' ');
  };
  switch (j.type()) {
    case Json::Type::Null: out += "null"; break;
    case Json::Type::Bool: out += j.asBool() ? "true" : "false"; break;
    case Json::Type::Number: out += formatNumber(j.asNumber()); break;
    case Json::Type::String: escapeTo(out, j.asString()); break;
    case Json::Type::Array: {
      const auto& a = j.asArray();
      out += '[';
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (i) out += indent < 0 ? "," : ",";
        newline(depth + 1);
        dumpTo(out, a[i], indent, depth + 1);
      }
      if (!a.empty()) newline(depth);
      out += ']';
      break;
    }
    case Json::Type::Object: {
      const auto& o = j.asObject();
      out += '{';
      for (std::size_t i = 0; i < o.size(); ++i) {
        if (i) out += ",";
        newline(depth + 1);
        escapeTo(out, o[i].first);
        out += indent < 0 ? ":" : ": ";
        dumpTo(out, o[i].second, indent, depth + 1);
      }
      if (!o.empty()) newline(depth);
      out += '}';
      break;
    }
  }
}

constexpr std::size_t kScanKeys = 32;
constexpr std::size_t kMaxObjectKeys = 100'000;

std::string shortened(const std::string& s) { return s.size() <= 64 ? s : s.substr(0, 64) + "..."; }

class Parser {
public:
  Parser(std::string_view text, std::string_view source, JsonLimits limits)
      : m_text(text), m_source(source), m_limits(limits) {}

  Json parseDocument() {
    skipSpace();
    Json v = parseValue(0);
    skipSpace();
    if (m_pos != m_text.size()) fail("unexpected text after the JSON value");
    return v;
  }

private:
  [[noreturn]] void fail(const std::string& what) const {
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < m_pos && i < m_text.size(); ++i) {
      if (m_text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::ostringstream os;
    os << m_source << ":" << line << ":" << col << ": " << what;
    throw Error(os.str());
  }
  void skipSpace() {
    while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' ||
                                     m_text[m_pos] == '\n' || m_text[m_pos] == '\r'))
      ++m_pos;
  }
  bool consume(std::string_view word) {
    if (m_text.substr(m_pos, word.size()) == word) {
      m_pos += word.size();
      return true;
    }
    return false;
  }
  Json parseValue(int depth) {
    if (depth > m_limits.maxDepth)
      fail("nesting deeper than " + std::to_string(m_limits.maxDepth) + " levels (no file of this kind is so deep)");
    if (++m_nodes > m_limits.maxNodes)
      fail("more than " + std::to_string(m_limits.maxNodes) + " values (no file of this kind holds so many)");
    if (m_pos >= m_text.size()) fail("unexpected end of input");
    const char c = m_text[m_pos];
    if (c == '{') return parseObject(depth);
    if (c == '[') return parseArray(depth);
    if (c == '"') return Json(parseString());
    if (consume("true")) return Json(true);
    if (consume("false")) return Json(false);
    if (consume("null")) return Json();
    if (c == '-' || (c >= '0' && c <= '9')) return Json(parseNumber());
    fail(std::string("unexpected character '") + c + "'");
  }
  Json parseObject(int depth) {
    ++m_pos;
    Json::Object obj;
    std::unordered_set<std::string> seen;
    skipSpace();
    if (m_pos < m_text.size() && m_text[m_pos] == '}') {
      ++m_pos;
      return Json(std::move(obj));
    }
    for (;;) {
      skipSpace();
      if (m_pos >= m_text.size() || m_text[m_pos] != '"') fail("expected a key string");
      std::string key = parseString();
      // Duplicates: a scan while the object is small, a hash set beyond (40,000 keys took
      // 2.4 s with the scan alone).
      bool duplicate = false;
      if (obj.size() < kScanKeys) {
        for (const auto& kv : obj) duplicate = duplicate || kv.first == key;
      } else {
        if (seen.empty())
          for (const auto& kv : obj) seen.insert(kv.first);
        duplicate = !seen.insert(key).second;
      }
      if (duplicate) fail("duplicate key \"" + shortened(key) + "\"");
      if (obj.size() >= kMaxObjectKeys)
        fail("more than " + std::to_string(kMaxObjectKeys) + " keys in one object (no AccelLab file has so many)");
      skipSpace();
      if (m_pos >= m_text.size() || m_text[m_pos] != ':') fail("expected ':' after key \"" + key + "\"");
      ++m_pos;
      skipSpace();
      Json v = parseValue(depth + 1);
      obj.emplace_back(std::move(key), std::move(v));
      skipSpace();
      if (m_pos < m_text.size() && m_text[m_pos] == ',') {
        ++m_pos;
        continue;
      }
      if (m_pos < m_text.size() && m_text[m_pos] == '}') {
        ++m_pos;
        obj.shrink_to_fit();
        return Json(std::move(obj));
      }
      fail("expected ',' or '}' in object");
    }
  }
  Json parseArray(int depth) {
    ++m_pos;
    Json::Array arr;
    skipSpace();
    if (m_pos < m_text.size() && m_text[m_pos] == ']') {
      ++m_pos;
      return Json(std::move(arr));
    }
    for (;;) {
      skipSpace();
      arr.push_back(parseValue(depth + 1));
      skipSpace();
      if (m_pos < m_text.size() && m_text[m_pos] == ',') {
        ++m_pos;
        continue;
      }
      if (m_pos < m_text.size() && m_text[m_pos] == ']') {
        ++m_pos;
        arr.shrink_to_fit();
        return Json(std::move(arr));
      }
      fail("expected ',' or ']' in array");
    }
  }
  std::uint32_t parseHex4() {
    if (m_pos + 4 > m_text.size()) fail("truncated \\u escape");
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = m_text[m_pos++];
      v <<= 4;
      if (h >= '0' && h <= '9') v |= static_cast<std::uint32_t>(h - '0');
      else if (h >= 'a' && h <= 'f') v |= static_cast<std::uint32_t>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') v |= static_cast<std::uint32_t>(h - 'A' + 10);
      else fail("bad hex digit in \\u escape");
    }
    return v;
  }
  std::string parseString() {
    ++m_pos;  // opening quote
    std::string out;
    for (;;) {
      if (m_pos >= m_text.size()) fail("unterminated string");
      const char c = m_text[m_pos++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (static_cast<unsigned char>(c) >= 0x80) {
        const std::size_t n = utf8Length(m_text, m_pos - 1);
        if (n == 0) {
          --m_pos;
          fail("invalid UTF-8 in string");
        }
        out.append(m_text.substr(m_pos - 1, n));
        m_pos += n - 1;
        continue;
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      if (m_pos >= m_text.size()) fail("unterminated escape");
      const char e = m_text[m_pos++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          std::uint32_t cp = parseHex4();
          // A low surrogate alone is not a character (it would become invalid UTF-8 and read
          // back differently; found by the experiment fuzz target).
          if (cp >= 0xDC00 && cp <= 0xDFFF) fail("unpaired low surrogate in \\u escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (!consume("\\u")) fail("unpaired surrogate in \\u escape");
            const std::uint32_t lo = parseHex4();
            if (lo < 0xDC00 || lo > 0xDFFF) fail("bad low surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          appendUtf8(out, cp);
          break;
        }
        default: fail(std::string("bad escape '\\") + e + "'");
      }
    }
  }
  double parseNumber() {
    const std::size_t start = m_pos;
    if (m_text[m_pos] == '-') ++m_pos;
    const auto digits = [&] {
      const std::size_t s = m_pos;
      while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9') ++m_pos;
      return m_pos - s;
    };
    if (m_pos < m_text.size() && m_text[m_pos] == '0') {
      ++m_pos;
    } else if (digits() == 0) {
      fail("bad number");
    }
    bool integer = true;
    if (m_pos < m_text.size() && m_text[m_pos] == '.') {
      integer = false;
      ++m_pos;
      if (digits() == 0) fail("bad number: digits expected after '.'");
    }
    if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
      integer = false;
      ++m_pos;
      if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-')) ++m_pos;
      if (digits() == 0) fail("bad number: digits expected in exponent");
    }
    double v = 0;
    const auto res = std::from_chars(m_text.data() + start, m_text.data() + m_pos, v);
    if (res.ec != std::errc()) fail("number out of range");
    // Numbers are doubles: an integer written out in full beyond 2^53 would be silently
    // rounded (a seed of 9007199254740993 would read as ...992), so it is refused.
    if (integer && std::fabs(v) >= 9007199254740992.0) {
      const char* first = m_text.data() + start + (m_text[start] == '-' ? 1 : 0);
      std::uint64_t exact = 0;
      const auto r = std::from_chars(first, m_text.data() + m_pos, exact);
      if (r.ec != std::errc() || static_cast<double>(exact) != std::fabs(v) ||
          static_cast<std::uint64_t>(std::fabs(v)) != exact)
        fail("integer " + std::string(m_text.substr(start, std::min<std::size_t>(m_pos - start, 24))) +
             (m_pos - start > 24 ? "..." : "") + " cannot be held exactly (whole numbers are exact up to 2^53)");
    }
    return v;
  }

  std::string_view m_text;
  std::string_view m_source;
  JsonLimits m_limits;
  std::size_t m_pos = 0;
  std::size_t m_nodes = 0;
};

}  // namespace

std::string formatNumber(double v) {
  if (!std::isfinite(v)) return "null";  // JSON has no NaN/inf
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

bool Json::asBool() const {
  if (!isBool()) wrongType(Type::Bool, type());
  return std::get<bool>(m_value);
}
double Json::asNumber() const {
  if (!isNumber()) wrongType(Type::Number, type());
  return std::get<double>(m_value);
}
const std::string& Json::asString() const {
  if (!isString()) wrongType(Type::String, type());
  return std::get<std::string>(m_value);
}
const Json::Array& Json::asArray() const {
  if (!isArray()) wrongType(Type::Array, type());
  return std::get<Array>(m_value);
}
Json::Array& Json::asArray() {
  if (!isArray()) wrongType(Type::Array, type());
  return std::get<Array>(m_value);
}
const Json::Object& Json::asObject() const {
  if (!isObject()) wrongType(Type::Object, type());
  return std::get<Object>(m_value);
}
Json::Object& Json::asObject() {
  if (!isObject()) wrongType(Type::Object, type());
  return std::get<Object>(m_value);
}

const Json* Json::find(std::string_view key) const {
  if (!isObject()) return nullptr;
  for (const auto& kv : std::get<Object>(m_value))
    if (kv.first == key) return &kv.second;
  return nullptr;
}

Json& Json::operator[](std::string_view key) {
  if (isNull()) m_value = Object{};
  auto& obj = asObject();
  for (auto& kv : obj)
    if (kv.first == key) return kv.second;
  obj.emplace_back(std::string(key), Json());
  return obj.back().second;
}

const Json& Json::at(std::string_view key) const {
  const Json* j = find(key);
  if (!j) throw Error("missing key \"" + std::string(key) + "\"");
  return *j;
}

void Json::push(Json value) {
  if (isNull()) m_value = Array{};
  asArray().push_back(std::move(value));
}

std::size_t Json::size() const {
  if (isArray()) return asArray().size();
  if (isObject()) return asObject().size();
  return 0;
}

std::string Json::dump(int indent) const {
  std::string out;
  dumpTo(out, *this, indent, 0);
  return out;
}

Json Json::parse(std::string_view text, std::string_view source, std::optional<JsonLimits> limits) {
  if (text.size() > kMaxDocumentBytes)
    throw Error(std::string(source) + ": " + std::to_string(text.size() >> 20) + " MiB is larger than a JSON file AccelLab reads (at most " +
                std::to_string(kMaxDocumentBytes >> 20) + " MiB)");
  return Parser(text, source, limits ? *limits : JsonLimits::forSize(text.size())).parseDocument();
}

Json Json::parseFile(const std::string& path, std::uint64_t maxBytes, std::optional<JsonLimits> limits) {
  return parse(readFile(path, maxBytes), path, limits);
}

}  // namespace core::util
