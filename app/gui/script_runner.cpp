#include "app/gui/script_runner.h"

#include <QApplication>
#include <QDir>
#include <QTimer>

#include "app/gui/bridge_controller.h"
#include "app/gui/console.h"
#include "app/gui/experiment_model.h"
#include "app/gui/export_controller.h"
#include "app/gui/latency_probe.h"
#include "app/gui/main_window.h"
#include "app/gui/message_bar.h"
#include "app/gui/preset_controller.h"
#include "app/gui/run_controller.h"
#include "app/gui/setup_controller.h"
#include "app/gui/training_session.h"
#include "widgets/experiment_panel.h"
#include "widgets/run_store.h"

namespace app::gui {
namespace {

void out(const QString& line) { printLine(line); }

}  // namespace

void ScriptRunner::err(const QString& line) {
  m_errors << line;
  printError(line);
}

ScriptRunner::ScriptRunner(MainWindow* window, LaunchOptions options, QObject* parent)
    : QObject(parent), m_window(window), m_options(std::move(options)) {
  connect(m_window->runController(), &RunController::runFinished, this, &ScriptRunner::onRunFinished);
  connect(m_window->session(), &TrainingSession::started, this, [this](int id) {
    if (const widgets::Run* r = m_window->store()->run(id)) out(QStringLiteral("run %1 started: %2").arg(id).arg(r->name));
  });
}

void ScriptRunner::start() {
  if (!m_options.presetId.isEmpty()) {
    PresetController* presets = m_window->presetController();
    presets->setScripted(m_options.scripted(), m_options.allowOutsideData);
    if (!presets->apply(m_options.presetId)) {
      // The real reason (the file's error, the unknown device, the path outside the data
      // folders), not only what the message bar's headline says.
      err(QStringLiteral("--preset: %1").arg(presets->lastError().replace('\n', ' ')));
      finish(2);
      return;
    }
    out(QStringLiteral("preset: %1").arg(m_window->presetController()->current()->title));
  }
  if (m_options.limit || m_options.epochs) {
    m_window->experimentModel()->update([this](core::experiment::Experiment& e) {
      if (m_options.limit) {
        e.train.limit = *m_options.limit;
        e.train.testLimit = core::experiment::proportionalTestLimit(e.train.datasetId, e.train.limit);
      }
      if (m_options.epochs) e.train.epochs = *m_options.epochs;
    });
  }
  if (!m_options.importRun.isEmpty()) {
    const int id = m_window->bridgeController()->importRun(m_options.importRun);
    if (!id) {
      err(QStringLiteral("--import-run: %1").arg(m_window->messageBar()->text().replace('\n', ' ')));
      finish(2);
      return;
    }
    out(QStringLiteral("imported run %1: %2").arg(id).arg(m_window->store()->run(id)->statusMessage));
  }
  if (m_options.run) {
    if (m_options.measureLatency) {
      m_latency = new LatencyProbe(10, this);
      m_latency->start();
    }
    m_runId = m_window->runController()->startRun();
    if (!m_runId) {
      err(QStringLiteral("the run could not start: %1").arg(m_window->messageBar()->text()));
      finish(1);
      return;
    }
    return;  // onRunFinished continues (a simulation-only run has finished already: queued below)
  }
  exportAndFinish(true);
}

void ScriptRunner::onRunFinished(int runId, core::experiment::RunStatus status) {
  if (!m_options.run) return;
  const widgets::Run* run = m_window->store()->run(runId);
  const QString message = run ? run->statusMessage : QString();
  out(QStringLiteral("run %1 %2%3").arg(runId).arg(widgets::runStatusText(status), message.isEmpty() ? QString() : ": " + message));
  if (m_latency && m_latency->running()) {
    m_latency->stop();
    out(QStringLiteral("event-loop latency while run %1 trained: %2").arg(runId).arg(m_latency->summary()));
  }
  const bool ok = status == core::experiment::RunStatus::Finished;
  if (!ok) err(QStringLiteral("run %1 %2: %3").arg(runId).arg(widgets::runStatusText(status), message));
  // Let the charts take the last samples before they are drawn into files.
  QTimer::singleShot(0, this, [this, ok] { exportAndFinish(ok); });
}

void ScriptRunner::exportAndFinish(bool runOk) {
  int code = runOk ? 0 : 1;
  if (!m_options.exportDir.isEmpty()) {
    m_window->setupController()->updateNow();
    QStringList errors;
    const QStringList files = m_window->exportController()->exportEverything(m_options.exportDir, errors);
    for (const QString& f : files) out(QStringLiteral("wrote %1").arg(QDir::toNativeSeparators(f)));
    for (const QString& e : errors) err(e);
    if (!errors.isEmpty()) code = 1;
  }
  // A scripted run whose history could not be written did not keep its result: say so.
  if (m_options.run && !m_window->runController()->saveHistory()) {
    err(QStringLiteral("the run history could not be saved: %1").arg(QString(m_window->messageBar()->details()).replace(QLatin1Char('\n'), QLatin1Char(' '))));
    code = 1;
  }
  finish(code);
}

void ScriptRunner::finish(int exitCode) {
  m_exitCode = exitCode;
  Q_EMIT done(exitCode);
  if (m_options.quitWhenDone) {
    m_window->close();
    QCoreApplication::exit(exitCode);
  }
}

}  // namespace app::gui
