#include "app/gui/console.h"

#include <cstdio>

#include "core/util/printable.h"

namespace app::gui {

void printLine(const QString& line) {
  std::fprintf(stdout, "%s\n", core::util::printable(line.toStdString(), false).c_str());
  std::fflush(stdout);
}

void printFields(const QStringList& fields) {
  std::string line;
  for (qsizetype i = 0; i < fields.size(); ++i) {
    if (i) line += '\t';
    line += core::util::printable(fields[i].toStdString(), false);
  }
  std::fprintf(stdout, "%s\n", line.c_str());
  std::fflush(stdout);
}

void printError(const QString& line) {
  std::fprintf(stderr, "accellab: %s\n", core::util::printable(line.toStdString(), false).c_str());
  std::fflush(stderr);
}

void printText(const QString& text) {
  std::fputs(core::util::printable(text.toStdString(), true).c_str(), stdout);
  std::fflush(stdout);
}

}  // namespace app::gui
