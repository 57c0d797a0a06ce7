#pragma once
// The one sanitiser for text that came from a file (a device name, a run log's torch version,
// a CSV row id, a parse error quoting a byte) before it reaches a terminal, a log or a
// message: terminal control sequences and invalid UTF-8 are shown, never obeyed.
#include <string>
#include <string_view>

namespace core::util {

// `text` with every byte a terminal would act on written out visibly:
//  - C0 controls and DEL as "\x1b" (newline and tab kept when `keepLines`, for messages of
//    several lines; otherwise "\n" and "\t");
//  - C1 controls (U+0080..U+009F, e.g. the 8-bit CSI) and the bidirectional overrides and
//    isolates (U+202A..U+202E, U+2066..U+2069) as "\u009b";
//  - bytes that are not well-formed UTF-8 as "\xff".
// Everything else (printable ASCII and well-formed UTF-8) is kept as it is.
std::string printable(std::string_view text, bool keepLines = true);

// True when printable(text, keepLines) would return `text` unchanged.
bool isPrintable(std::string_view text, bool keepLines = true);

}  // namespace core::util
