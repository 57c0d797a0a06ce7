#include "app/gui/run_controller.h"

#include <QAction>
#include <QTimer>

#include "app/gui/experiment_model.h"
#include "app/gui/message_bar.h"
#include "app/gui/run_history.h"
#include "app/gui/run_status_widget.h"
#include "app/gui/runs_panel.h"
#include "app/gui/training_session.h"
#include "widgets/run_store.h"

namespace app::gui {

using core::experiment::RunStatus;

RunController::RunController(const Parts& parts, QString historyFolder, QObject* parent)
    : QObject(parent), m_p(parts), m_history(std::make_unique<RunHistory>(std::move(historyFolder))) {
  const AppActions& a = m_p.actions;
  connect(a.run, &QAction::triggered, this, [this] { startRun(); });
  connect(a.pause, &QAction::triggered, this, [this](bool checked) { setPaused(checked); });
  connect(a.stop, &QAction::triggered, this, &RunController::stopRun);
  connect(a.hideRun, &QAction::triggered, this, &RunController::toggleSelectedVisible);
  connect(a.deleteRun, &QAction::triggered, this, &RunController::deleteSelected);
  connect(a.clearRuns, &QAction::triggered, this, &RunController::deleteFinished);

  connect(m_p.session, &TrainingSession::started, this, &RunController::onStarted);
  // The history follows the runs: a journal line per finished epoch of the active run, a
  // file per run whenever another run changes (hidden, renamed), and gone with its run.
  connect(m_p.session, &TrainingSession::epochCompleted, this, [this](int id, int epoch) {
    if (const widgets::Run* r = m_p.store->run(id)) m_history->journalEpoch(*r, epoch);
  });
  connect(m_p.store, &widgets::RunStore::runChanged, this, [this](int id) {
    if (id != m_p.session->activeRunId()) saveRun(id);
  });
  connect(m_p.store, &widgets::RunStore::runAboutToBeRemoved, this, [this](int id) {
    if (const widgets::Run* r = m_p.store->run(id)) m_history->remove(*r);
  });
  connect(m_p.session, &TrainingSession::finished, this, &RunController::onFinished);
  connect(m_p.session, &TrainingSession::progressed, this,
          [this](const RunProgress& p) { m_p.status->showProgress(p, m_p.session->isPaused()); });
  connect(m_p.session, &TrainingSession::pausedChanged, this, [this](bool paused) {
    m_p.actions.pause->setChecked(paused);
    m_p.status->showProgress(m_p.session->progress(), paused);
    updateActions();
  });
  connect(m_p.session, &TrainingSession::warning, this,
          [this](const QString& w) { m_p.messages->showMessage(MessageBar::Level::Warning, tr("Not every device could be simulated"), w); });
  connect(m_p.runs, &RunsPanel::selectionChanged, this, &RunController::updateActions);
  connect(m_p.store, &widgets::RunStore::runAdded, this, &RunController::updateActions);
  connect(m_p.store, &widgets::RunStore::runRemoved, this, &RunController::updateActions);
  connect(m_p.store, &widgets::RunStore::runChanged, this, [this](int id) {
    if (id == m_p.runs->selectedRunId()) updateActions();
  });
  updateActions();
}

void RunController::setPreset(const std::optional<Preset>& preset) { m_preset = preset; }

RunPlan RunController::currentPlan() const {
  RunPlan plan;
  plan.experiment = m_p.experiment->experiment();
  for (auto& d : plan.experiment.devices) d.stackId = core::experiment::stackFor(plan.experiment, d);
  const auto& train = plan.experiment.train;
  if (m_preset && m_preset->experiment.train.modelId == train.modelId &&
      m_preset->experiment.train.datasetId == train.datasetId) {
    plan.presetId = m_preset->id;
    plan.references = m_preset->references;
    plan.targetAccuracy = m_preset->targetAccuracy;
  }
  return plan;
}

int RunController::startRun() {
  if (m_p.session->isActive()) return 0;
  m_p.messages->clearMessage();
  try {
    return m_p.session->start(currentPlan());
  } catch (const std::exception& e) {
    m_p.messages->showMessage(MessageBar::Level::Error, tr("Could not start the run"), QString::fromUtf8(e.what()));
    return 0;
  }
}

void RunController::setPaused(bool paused) {
  if (!m_p.session->isActive()) {
    m_p.actions.pause->setChecked(false);
    return;
  }
  paused ? m_p.session->pause() : m_p.session->resume();
}

void RunController::stopRun() {
  if (!m_p.session->isActive()) return;
  m_p.session->stop();
  m_p.status->showIdle(tr("stopping…"));
  m_p.actions.stop->setEnabled(false);
}

void RunController::toggleSelectedVisible() {
  const int id = m_p.runs->selectedRunId();
  if (const widgets::Run* r = m_p.store->run(id)) {
    m_p.store->setVisible(id, !r->visible);
  }
}

bool RunController::isDeletable(int runId) const {
  const widgets::Run* r = m_p.store->run(runId);
  // Neither the run training here nor one another window is training.
  return r && runId != m_p.session->activeRunId() && !m_history->isRunningElsewhere(*r);
}

void RunController::deleteSelected() {
  const int id = m_p.runs->selectedRunId();
  if (!isDeletable(id)) return;
  m_p.store->removeRun(id);
}

void RunController::deleteFinished() {
  std::vector<int> ids;
  for (const auto& r : m_p.store->runs())
    if (isDeletable(r.id)) ids.push_back(r.id);
  for (int id : ids) m_p.store->removeRun(id);
}

void RunController::onStarted(int runId) {
  // Earlier runs of another model or dataset would share the charts' axes with this one
  // without being comparable: hide them (they stay in the runs list, a tick shows them).
  // Runs of the same model and dataset stay, so batch sizes and hardware can be overlaid.
  if (const widgets::Run* started = m_p.store->run(runId)) {
    const auto model = started->config.modelId, dataset = started->config.datasetId;
    std::vector<int> unrelated;
    for (const auto& r : m_p.store->runs())
      if (r.id != runId && r.visible && (r.config.modelId != model || r.config.datasetId != dataset))
        unrelated.push_back(r.id);
    for (int id : unrelated) m_p.store->setVisible(id, false);
  }
  if (widgets::Run* r = m_p.store->run(runId); r && m_p.session->isActive()) m_history->beginJournal(*r);
  m_p.actions.pause->setChecked(false);
  if (m_p.session->isActive()) m_p.status->showProgress(m_p.session->progress(), false);
  updateActions();
}

void RunController::onFinished(int runId, RunStatus status, const QString& message) {
  const widgets::Run* run = m_p.store->run(runId);
  const QString name = run ? run->name : tr("run %1").arg(runId);
  m_p.actions.pause->setChecked(false);
  switch (status) {
    case RunStatus::Finished:
      m_p.status->showIdle(tr("finished: %1").arg(name));
      break;
    case RunStatus::Stopped:
      m_p.status->showIdle(tr("stopped: %1").arg(name));
      break;
    case RunStatus::Diverged:
      m_p.status->showIdle(tr("diverged"));
      m_p.messages->showMessage(MessageBar::Level::Warning, tr("The run “%1” diverged").arg(name),
                                message + "\n" + tr("How to fix: lower the learning rate (e.g. ÷10) or the batch, or use "
                                                    "fp32, then press Run again. The run stays in the list, marked."));
      break;
    default:
      m_p.status->showIdle(tr("failed"));
      m_p.messages->showMessage(MessageBar::Level::Error, tr("The run “%1” failed").arg(name),
                                message + "\n" + tr("The run stays in the list, marked as failed; fix the setting named "
                                                    "above in the Experiment panel and press Run again."));
      break;
  }
  saveRun(runId);
  QTimer::singleShot(1000, this, &RunController::reportWriteErrors);
  updateActions();
  Q_EMIT runFinished(runId, status);
}

void RunController::updateActions() {
  const bool active = m_p.session->isActive();
  const AppActions& a = m_p.actions;
  a.run->setEnabled(!active);
  a.pause->setEnabled(active);
  a.stop->setEnabled(active);
  const int selected = m_p.runs->selectedRunId();
  const widgets::Run* run = m_p.store->run(selected);
  a.hideRun->setEnabled(run != nullptr);
  if (run) a.hideRun->setText(run->visible ? tr("&Hide Run") : tr("&Show Run"));
  a.deleteRun->setEnabled(isDeletable(selected));
  a.clearRuns->setEnabled(m_p.store->runs().size() > (active ? 1u : 0u));
}

RunController::~RunController() = default;

QString RunController::historyFolder() const { return m_history->folder(); }

void RunController::saveRun(int runId) {
  if (widgets::Run* r = m_p.store->run(runId)) m_history->save(*r);
}

int RunController::addRun(widgets::Run run) {
  const int id = m_p.store->addRun(std::move(run));
  m_p.store->setCurrentRun(id);
  saveRun(id);
  reportWriteErrors();
  return id;
}

void RunController::reportWriteErrors() {
  if (const QStringList errors = m_history->takeErrors(); !errors.isEmpty())
    m_p.messages->showMessage(MessageBar::Level::Warning, tr("The run history could not be saved"), errors.join('\n'));
}

void RunController::loadHistory() {
  RunHistory::Loaded loaded = m_history->load();
  for (auto& r : loaded.runs) m_p.store->addRun(std::move(r));
  if (!loaded.problems.isEmpty())
    m_p.messages->showMessage(MessageBar::Level::Warning, tr("Some runs of the history needed attention"),
                              loaded.problems.join('\n'));
}

bool RunController::saveHistory() {
  for (const auto& r : m_p.store->runs())
    if (r.key.isEmpty() && r.id != m_p.session->activeRunId()) saveRun(r.id);
  const QStringList errors = m_history->flush();
  if (errors.isEmpty()) return true;
  m_p.messages->showMessage(MessageBar::Level::Warning, tr("The run history could not be saved"), errors.join('\n'));
  return false;
}

}  // namespace app::gui
