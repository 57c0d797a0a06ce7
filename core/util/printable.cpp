#include "core/util/printable.h"

#include <cstdint>
#include <cstdio>

#include "core/util/utf8.h"

namespace core::util {
namespace {

// C1 controls and the bidirectional overrides and isolates (text that reads otherwise than it is).
bool hiddenCodePoint(char32_t cp) {
  return isC1Control(cp) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
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
    char32_t cp = 0;
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
