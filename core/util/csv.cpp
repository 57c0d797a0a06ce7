#include "core/util/csv.h"

#include "core/util/error.h"

namespace core::util {

std::vector<std::vector<std::string>> parseCsv(const std::string& text, const std::string& path,
                                               std::vector<int>& lines) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, fieldStarted = false;
  int line = 1, rowLine = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '"') {
      if (fieldStarted && !field.empty())
        throw Error(path + ":" + std::to_string(line) + ": a quote inside an unquoted field");
      quoted = fieldStarted = true;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
      fieldStarted = false;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      row.push_back(std::move(field));
      field.clear();
      fieldStarted = false;
      if (!(row.size() == 1 && row[0].empty())) {
        rows.push_back(std::move(row));
        lines.push_back(rowLine);
      }
      row.clear();
      ++line;
      rowLine = line;
    } else {
      field += c;
      fieldStarted = true;
    }
  }
  if (quoted) throw Error(path + ": unterminated quoted field starting on line " + std::to_string(rowLine));
  if (fieldStarted || !row.empty()) {
    row.push_back(std::move(field));
    rows.push_back(std::move(row));
    lines.push_back(rowLine);
  }
  return rows;
}

}  // namespace core::util
