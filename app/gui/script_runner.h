#pragma once
// The scriptable start: loads the preset, applies --limit/--epochs, runs, exports every
// chart, the data and a screenshot into --export-dir, and quits when asked. Progress and
// the files written go to stdout, problems to stderr (each file that could not be written
// named; then the exit code is not 0), all through core::util::printable.
#include <QObject>
#include <QStringList>

#include "app/gui/launch_options.h"
#include "core/experiment/names.h"

namespace app::gui {

class LatencyProbe;
class MainWindow;

class ScriptRunner : public QObject {
  Q_OBJECT
public:
  ScriptRunner(MainWindow* window, LaunchOptions options, QObject* parent = nullptr);
  // Call once the window is shown (the event loop running).
  void start();
  int exitCode() const { return m_exitCode; }
  // Every problem printed on stderr so far (each file that could not be written is one).
  const QStringList& errors() const { return m_errors; }

Q_SIGNALS:
  // Everything asked for is done; with --quit-when-done the app quits with `exitCode`.
  void done(int exitCode);

private:
  void onRunFinished(int runId, core::experiment::RunStatus status);
  void exportAndFinish(bool runOk);
  void finish(int exitCode);
  void err(const QString& line);   // to stderr (through printable) and errors()

  MainWindow* m_window;
  LaunchOptions m_options;
  int m_runId = 0;
  LatencyProbe* m_latency = nullptr;   // --measure-latency
  int m_exitCode = 0;
  QStringList m_errors;
};

}  // namespace app::gui
