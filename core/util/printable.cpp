#include "core/util/printable.h"

#include <cstdint>
#include <cstdio>

namespace core::util {
namespace {

// Length of the well-formed UTF-8 sequence at `i` and its code point, or 0 (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t decodeUtf8(std::string_view s, std::size_t i, std::uint32_t& cp) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  std::size_t n = 0;
  std::uint32_t min = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2, cp = c & 0x1Fu, min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3, cp = c & 0x0Fu, min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4, cp = c & 0x07u, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

bool hiddenCodePoint(std::uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

template <class Sink>
void scan(std::string_view text, bool keepLines, Sink&& sink) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c == '\n' || c == '\t') {
        if (keepLines) sink.keep(text.substr(i, 1));
        else sink.escape(c == '\n' ? "\\n" : "\\t");
      } else if (c < 0x20 || c == 0x7F) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", c);
        sink.escape(buf);
      } else {
        sink.keep(text.substr(i, 1));
      }
      continue;
    }
    std::uint32_t cp = 0;
    const std::size_t n = decodeUtf8(text, i, cp);
    char buf[12];
    if (n == 0) {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      sink.escape(buf);
    } else if (hiddenCodePoint(cp)) {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      sink.escape(buf);
      i += n - 1;
    } else {
      sink.keep(text.substr(i, n));
      i += n - 1;
    }
  }
}

}  // namespace

std::string printable(std::string_view text, bool keepLines) {
  struct {
    std::string out;
    void keep(std::string_view s) { out.append(s); }
    void escape(std::string_view s) { out.append(s); }
  } sink;
  sink.out.reserve(text.size());
  scan(text, keepLines, sink);
  return sink.out;
}

bool isPrintable(std::string_view text, bool keepLines) {
  struct {
    bool clean = true;
    void keep(std::string_view) {}
    void escape(std::string_view) { clean = false; }
  } sink;
  scan(text, keepLines, sink);
  return sink.clean;
}

}  // namespace core::util
