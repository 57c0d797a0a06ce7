#include "app/gui/training_session.h"

#include <QMetaObject>
#include <algorithm>

#include "app/gui/sim_service.h"
#include "core/experiment/train_config.h"
#include "core/util/error.h"

namespace app::gui {

using core::experiment::RunStatus;

namespace {

constexpr double kRateWindowSeconds = 2.0;

QString defaultRunName(const RunPlan& plan) {
  const auto& c = plan.experiment.train;
  QString name = QStringLiteral("%1 · %2 · b%3")
                     .arg(QString::fromStdString(c.modelId), QString::fromStdString(c.datasetId))
                     .arg(c.batch);
  // A language model's samples are sequences (windows of text), not images.
  if (c.limit > 0) name += QStringLiteral(" · %1 %2").arg(c.limit).arg(core::experiment::isLanguageModel(c.modelId) ? "seq" : "img");
  if (!plan.experiment.trainHere) name += QObject::tr(" · simulated");
  return name;
}

}  // namespace

TrainingSession::TrainingSession(widgets::RunStore* store, const SimService* sim, QObject* parent)
    : QObject(parent), m_store(store), m_sim(sim) {
  qRegisterMetaType<app::gui::RunProgress>();
  m_drainTimer.setInterval(kDrainIntervalMs);
  connect(&m_drainTimer, &QTimer::timeout, this, &TrainingSession::drain);
}

TrainingSession::~TrainingSession() {
  if (m_thread.joinable()) {
    m_thread.request_stop();
    if (m_trainer) m_trainer->resume();
  }
  // m_thread is joined by its destructor, before m_trainer goes.
}

QVector<widgets::DeviceResult> TrainingSession::planDevices(const RunPlan& plan, QStringList& problems) const {
  QVector<widgets::DeviceResult> out;
  const QString hostId = widgets::HardwarePanel::hostId();
  if (plan.experiment.trainHere) {
    widgets::DeviceResult host;
    host.deviceId = hostId;
    host.label = tr("this machine (measured)");
    host.measured = true;
    core::experiment::DeviceChoice choice;
    choice.deviceId = hostId.toStdString();
    choice.precision = plan.experiment.train.precision;
    if (m_sim && m_sim->catalog().find(hostId.toStdString())) {
      try {
        host.report = m_sim->simulateRun(plan.experiment.train, choice);
      } catch (const std::exception& e) {
        problems << tr("No prediction for this machine: %1").arg(QString::fromUtf8(e.what()));
      }
    }
    out << host;
  }
  // One click compares the same silicon under two stacks: each device once more, under the other.
  QVector<core::experiment::DeviceChoice> choices;
  const bool compare = !plan.experiment.compareStackId.empty();
  const std::string host = hostId.toStdString();
  for (const auto& choice : plan.experiment.devices) {
    choices << choice;
    if (compare && choice.deviceId != host && choice.stackId != plan.experiment.compareStackId) {
      core::experiment::DeviceChoice other = choice;
      other.stackId = plan.experiment.compareStackId;
      choices << other;
    }
  }
  for (const auto& choice : choices) {
    if (plan.experiment.trainHere && choice.deviceId == host) continue;  // measured above
    widgets::DeviceResult d;
    d.deviceId = QString::fromStdString(choice.deviceId);
    d.count = choice.vcpus > 0 ? 1 : choice.count;
    d.vcpus = choice.vcpus;
    d.measured = false;
    if (!m_sim) continue;
    d.label = tr("%1 (simulated)").arg(m_sim->choiceLabel(choice));
    try {
      d.report = m_sim->simulateRun(plan.experiment.train, choice);
      if (compare) {
        // Two series of one device: keyed and labelled by device and stack.
        const QString stack = QString::fromStdString(d.report.config.stackId);
        if (choice.stackId == plan.experiment.compareStackId) d.deviceId += "@" + stack;
        d.label = tr("%1 · %2 (simulated)").arg(m_sim->choiceLabel(choice), stack);
      }
      // The simulator's own measured error beside its figure, in every legend and export.
      d.errorBand = QString::fromStdString(m_sim->errorBand(d.report).label());
    } catch (const std::exception& e) {
      problems << tr("%1 left out: %2").arg(QString::fromStdString(choice.deviceId), QString::fromUtf8(e.what()));
      continue;
    }
    out << d;
  }
  return out;
}

QString TrainingSession::checkPlan(const RunPlan& plan) {
  if (!plan.experiment.trainHere) return {};
  try {
    core::train::validate(plan.experiment.train);
  } catch (const std::exception& e) {
    return tr("Invalid setting: %1").arg(QString::fromUtf8(e.what()));
  }
  const std::int64_t images = SimService::imagesPerEpoch(plan.experiment.train);
  if (images > 0 && plan.experiment.train.batch > images)
    return tr("Batch %1 is larger than the %2 training images of an epoch (%3). "
              "Lower the batch, or raise the subset size in the Experiment panel.")
        .arg(plan.experiment.train.batch)
        .arg(images)
        .arg(plan.experiment.train.limit > 0 ? tr("subset") : QString::fromStdString(plan.experiment.train.datasetId));
  return {};
}

int TrainingSession::start(const RunPlan& plan) {
  if (isActive()) throw core::util::Error("a run is already in progress: stop it first");
  const QString problem = checkPlan(plan);

  QStringList problems;
  widgets::Run run;
  run.name = plan.name.isEmpty() ? defaultRunName(plan) : plan.name;
  run.config = plan.experiment.train;
  run.presetId = plan.presetId;
  run.references = plan.references;
  run.targetAccuracy = plan.targetAccuracy;
  run.devices = planDevices(plan, problems);
  run.status = plan.experiment.trainHere ? RunStatus::Running : RunStatus::Finished;
  run.statusMessage = problems.join('\n');
  const int id = m_store->addRun(std::move(run));
  m_store->setCurrentRun(id);
  for (const QString& p : problems) Q_EMIT warning(p);

  if (!problem.isEmpty()) {
    // Bad input: the run stays in the list, marked, and nothing starts.
    m_store->setStatus(id, RunStatus::Failed, problem);
    Q_EMIT started(id);
    Q_EMIT finished(id, RunStatus::Failed, problem);
    return id;
  }
  if (!plan.experiment.trainHere) {
    simulateAllEpochs(plan);
    Q_EMIT started(id);
    const QString message = tr("Simulation only: no training on this machine.");
    m_store->setStatus(id, RunStatus::Finished, message);
    Q_EMIT finished(id, RunStatus::Finished, message);
    return id;
  }

  m_trainer = std::make_unique<core::train::Trainer>(plan.experiment.train);
  m_trainer->setPrompt(plan.prompt.empty() ? m_prompt : plan.prompt);
  m_runId = id;
  m_paused = false;
  m_recent.clear();
  m_lastWallSeconds = 0;
  m_threadResult = {};
  m_progress = RunProgress{id, 0, -1, 0, 1, plan.experiment.train.epochs};
  if (const widgets::Run* r = m_store->run(id)) m_progress.tokensPerSample = widgets::tokensPerSample(*r);
  core::train::Trainer* trainer = m_trainer.get();
  m_thread = std::jthread([this, trainer, id](std::stop_token stop) {
    core::train::RunResult result;
    try {
      result = trainer->run(stop);
    } catch (const std::exception& e) {
      result.status = RunStatus::Failed;
      result.message = e.what();
    } catch (...) {
      result.status = RunStatus::Failed;
      result.message = "unknown error in the training thread";
    }
    m_threadResult = result;
    QMetaObject::invokeMethod(this, [this, id, result] { onThreadFinished(id, result); }, Qt::QueuedConnection);
  });
  m_drainTimer.start();
  Q_EMIT started(id);
  return id;
}

void TrainingSession::simulateAllEpochs(const RunPlan& plan) {
  const int id = m_store->currentRunId();
  const widgets::Run* run = m_store->run(id);
  if (!run) return;
  QVector<widgets::DeviceResult> devices = run->devices;
  const std::int64_t images = SimService::imagesPerEpoch(plan.experiment.train);
  for (auto& d : devices) {
    if (!d.report.fitsInMemory) continue;
    for (int e = 1; e <= plan.experiment.train.epochs; ++e) d.epochSeconds << SimService::epochSeconds(d.report, e, images);
  }
  m_store->setDevices(id, std::move(devices));
}

void TrainingSession::pause() {
  if (!m_trainer || m_paused) return;
  m_trainer->pause();
  m_paused = true;
  m_store->setStatus(m_runId, RunStatus::Paused);
  Q_EMIT pausedChanged(true);
}

void TrainingSession::resume() {
  if (!m_trainer || !m_paused) return;
  m_trainer->resume();
  m_paused = false;
  m_store->setStatus(m_runId, RunStatus::Running);
  Q_EMIT pausedChanged(false);
}

void TrainingSession::stop() {
  if (!m_thread.joinable()) return;
  m_thread.request_stop();
  if (m_paused) resume();  // a paused trainer must wake to see the stop
}

void TrainingSession::setPrompt(const std::string& prompt) {
  m_prompt = prompt;
  if (m_trainer) m_trainer->setPrompt(prompt);
}

void TrainingSession::stopAndWait() {
  if (!m_thread.joinable()) return;
  stop();
  m_thread.join();
  if (m_runId) onThreadFinished(m_runId, m_threadResult);
}

void TrainingSession::onThreadFinished(int runId, const core::train::RunResult& result) {
  if (runId != m_runId) return;  // already handled (stopAndWait)
  if (m_thread.joinable()) m_thread.join();
  drain();
  finish(result.status, QString::fromStdString(result.message));
}

void TrainingSession::finish(RunStatus status, const QString& message) {
  m_drainTimer.stop();
  const int id = m_runId;
  m_store->setStatus(id, status, message);
  m_runId = 0;
  m_paused = false;
  m_trainer.reset();
  m_progress.fraction = status == RunStatus::Finished ? 1.0 : m_progress.fraction;
  m_progress.etaSeconds = -1;
  Q_EMIT finished(id, status, message);
}

void TrainingSession::drain() {
  if (!m_trainer) return;
  std::vector<core::experiment::BatchSample> batches;
  std::vector<core::experiment::EpochSample> epochs;
  std::vector<core::experiment::TextSample> texts;
  m_trainer->metrics().drain(batches, epochs);
  m_trainer->metrics().drainTexts(texts);  // after the epochs: every drained epoch's text is here
  m_store->appendTexts(m_runId, std::move(texts));
  if (!batches.empty() || !epochs.empty()) m_store->appendSamples(m_runId, batches, epochs);
  updateRate(batches);
  for (const auto& e : epochs) recordEpoch(e);

  m_progress.fraction = std::clamp(m_trainer->progress(), 0.0, 1.0);
  if (!batches.empty()) m_progress.epoch = batches.back().epoch;
  if (m_progress.fraction > 0.005 && m_lastWallSeconds > 0.5)
    m_progress.etaSeconds = m_lastWallSeconds * (1.0 - m_progress.fraction) / m_progress.fraction;
  Q_EMIT progressed(m_progress);
}

void TrainingSession::updateRate(const std::vector<core::experiment::BatchSample>& batches) {
  for (const auto& b : batches) m_recent.emplace_back(b.wallSeconds, b.images);
  if (!batches.empty()) m_lastWallSeconds = batches.back().wallSeconds;
  while (m_recent.size() > 2 && m_recent.back().first - m_recent.front().first > kRateWindowSeconds)
    m_recent.pop_front();
  if (m_recent.size() >= 2) {
    const double dt = m_recent.back().first - m_recent.front().first;
    const auto di = static_cast<double>(m_recent.back().second - m_recent.front().second);
    if (dt > 0) m_progress.imagesPerSecond = di / dt;
  } else if (m_recent.size() == 1 && m_recent.front().first > 0) {
    m_progress.imagesPerSecond = static_cast<double>(m_recent.front().second) / m_recent.front().first;
  }
}

void TrainingSession::recordEpoch(const core::experiment::EpochSample& epoch) {
  const widgets::Run* run = m_store->run(m_runId);
  if (!run) return;
  QVector<widgets::DeviceResult> devices = run->devices;
  for (auto& d : devices) {
    if (d.measured) {
      d.epochSeconds << epoch.hostSeconds;
    } else if (d.report.fitsInMemory) {
      d.epochSeconds << SimService::epochSeconds(d.report, epoch.epoch, epoch.images);
    }
  }
  m_store->setDevices(m_runId, std::move(devices));
  Q_EMIT epochCompleted(m_runId, epoch.epoch);
}

}  // namespace app::gui
