#pragma once
// Strict CSV (RFC 4180: quoted fields with doubled quotes, line breaks inside quotes, LF or
// CRLF), as the reference measurements are written.
#include <string>
#include <vector>

namespace core::util {

// The rows of `text`, each a vector of fields; `lines` receives each row's first line number.
// Throws core::util::Error naming `path` and the line for a stray quote or an unterminated one.
std::vector<std::vector<std::string>> parseCsv(const std::string& text, const std::string& path,
                                               std::vector<int>& lines);

}  // namespace core::util
