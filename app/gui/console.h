#pragma once
// The GUI's own lines on stdout and stderr (the scripted start, --list-presets, --help):
// every line goes through core::util::printable, so text that came from a file (a preset's
// title, a file name, an error quoting a byte) is shown, never obeyed by the terminal.
#include <QString>
#include <QStringList>

namespace app::gui {

// One line on stdout, as it is apart from what printable() writes out visibly.
void printLine(const QString& line);
// Fields of one line on stdout, separated by tabs (each field through printable: a tab or a
// line break inside a field is written out, so it cannot forge a column or a line).
void printFields(const QStringList& fields);
// "accellab: <line>" on stderr.
void printError(const QString& line);
// Text of several lines (the help) on stdout: line breaks kept, everything else as above.
void printText(const QString& text);

}  // namespace app::gui
