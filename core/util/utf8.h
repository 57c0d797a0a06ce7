#pragma once
// UTF-8 as RFC 3629 defines it, once for the whole code base: the JSON reader and writer and the
// printable-text sanitiser decode with the same rule (no overlong forms, no surrogates, nothing
// above U+10FFFF) and agree on which code points are C1 controls.
#include <cstddef>
#include <string>
#include <string_view>

namespace core::util {

// The length (2 to 4) of the well-formed multi-byte sequence at `pos` and its code point in
// `cp`, or 0 when the bytes there are not one (ASCII included: the callers handle it first).
std::size_t decodeUtf8(std::string_view s, std::size_t pos, char32_t& cp);

inline std::size_t utf8Length(std::string_view s, std::size_t pos) {
  char32_t cp = 0;
  return decodeUtf8(s, pos, cp);
}

// Appends code point `cp` (at most U+10FFFF, not a surrogate: the caller checks) as UTF-8.
void appendUtf8(std::string& out, char32_t cp);

// U+0080..U+009F: invisible, and a terminal obeys some (U+009B is the 8-bit CSI).
constexpr bool isC1Control(char32_t cp) { return cp >= 0x80 && cp <= 0x9F; }

}  // namespace core::util
