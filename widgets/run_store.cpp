#include "widgets/run_store.h"

#include <QtGlobal>
#include <algorithm>

#include "core/nn/transformer_spec.h"
#include "widgets/palette.h"

namespace widgets {

namespace {

// Runs get a colour of their own for run-level series (loss, accuracy) and the runs list.
// Devices keep widgets::deviceColor; runs cycle through a separate, darker set so a run's
// swatch is not mistaken for a device.
QColor runColorFor(int id) {
  static const QVector<QColor> colors = {
      QColor(0x00, 0x72, 0xB2), QColor(0xD5, 0x5E, 0x00), QColor(0x00, 0x9E, 0x73),
      QColor(0xCC, 0x79, 0xA7), QColor(0xE6, 0x9F, 0x00), QColor(0x56, 0xB4, 0xE9),
  };
  return colors[(id - 1) % colors.size()];
}

}  // namespace

RunStore::RunStore(QObject* parent) : QObject(parent) {}

int RunStore::addRun(Run run) {
  run.id = m_nextId++;
  if (!run.color.isValid()) run.color = runColorFor(run.id);
  if (run.name.isEmpty()) run.name = tr("Run %1").arg(run.id);
  const int id = run.id;
  m_runs.push_back(std::move(run));
  Q_EMIT runAdded(id);
  return id;
}

int RunStore::indexOf(int id) const {
  for (std::size_t i = 0; i < m_runs.size(); ++i)
    if (m_runs[i].id == id) return static_cast<int>(i);
  return -1;
}

void RunStore::removeRun(int id) {
  const int index = indexOf(id);
  if (index < 0) return;
  Q_EMIT runAboutToBeRemoved(id);
  m_runs.erase(m_runs.begin() + index);
  Q_EMIT runRemoved(id);
  if (m_current == id) {
    m_current = m_runs.empty() ? 0 : m_runs.back().id;
    Q_EMIT currentRunChanged(m_current);
  }
}

void RunStore::clear() {
  while (!m_runs.empty()) removeRun(m_runs.back().id);
}

Run* RunStore::run(int id) {
  const int index = indexOf(id);
  return index < 0 ? nullptr : &m_runs[static_cast<std::size_t>(index)];
}

const Run* RunStore::run(int id) const {
  const int index = indexOf(id);
  return index < 0 ? nullptr : &m_runs[static_cast<std::size_t>(index)];
}

std::vector<const Run*> RunStore::visibleRuns() const {
  std::vector<const Run*> out;
  for (const auto& r : m_runs)
    if (r.visible) out.push_back(&r);
  return out;
}

void RunStore::setCurrentRun(int id) {
  if (id != 0 && indexOf(id) < 0) return;
  if (m_current == id) return;
  m_current = id;
  Q_EMIT currentRunChanged(id);
}

void RunStore::appendSamples(int id, const std::vector<core::experiment::BatchSample>& batches,
                             const std::vector<core::experiment::EpochSample>& epochs) {
  Run* r = run(id);
  if (!r || (batches.empty() && epochs.empty())) return;
  r->batches.insert(r->batches.end(), batches.begin(), batches.end());
  r->epochs.insert(r->epochs.end(), epochs.begin(), epochs.end());
  Q_EMIT runChanged(id);
}

void RunStore::appendTexts(int id, std::vector<core::experiment::TextSample> texts) {
  Run* r = run(id);
  if (!r || texts.empty()) return;
  r->texts.insert(r->texts.end(), std::make_move_iterator(texts.begin()), std::make_move_iterator(texts.end()));
  Q_EMIT textsAppended(id);
}

int tokensPerSample(const Run& run) {
  if (!core::experiment::isLanguageModel(run.config.modelId)) return 0;
  for (const auto& d : run.devices)
    if (d.report.tokensPerSample > 0) return d.report.tokensPerSample;
  const core::nn::TransformerSpec* spec = core::nn::findTransformer(run.config.modelId);  // no device simulated
  return spec ? spec->tokensPerSample(0) : 0;
}

void RunStore::setDevices(int id, QVector<DeviceResult> devices) {
  Run* r = run(id);
  if (!r) return;
  r->devices = std::move(devices);
  Q_EMIT runChanged(id);
}

void RunStore::setStatus(int id, core::experiment::RunStatus status, const QString& message) {
  Run* r = run(id);
  if (!r) return;
  if (r->status == status && r->statusMessage == message) return;
  r->status = status;
  r->statusMessage = message;
  Q_EMIT runChanged(id);
}

void RunStore::setVisible(int id, bool visible) {
  Run* r = run(id);
  if (!r || r->visible == visible) return;
  r->visible = visible;
  Q_EMIT runChanged(id);
}

void RunStore::setName(int id, const QString& name) {
  Run* r = run(id);
  if (!r || r->name == name || name.trimmed().isEmpty()) return;
  r->name = name.trimmed();
  Q_EMIT runChanged(id);
}

void RunStore::setReferences(int id, QVector<ReferenceMark> references, double targetAccuracy) {
  Run* r = run(id);
  if (!r) return;
  r->references = std::move(references);
  r->targetAccuracy = targetAccuracy;
  Q_EMIT runChanged(id);
}

QString runStatusText(core::experiment::RunStatus status) {
  using core::experiment::RunStatus;
  switch (status) {
    case RunStatus::NotStarted: return RunStore::tr("not started");
    case RunStatus::Running: return RunStore::tr("running");
    case RunStatus::Paused: return RunStore::tr("paused");
    case RunStatus::Finished: return RunStore::tr("finished");
    case RunStatus::Stopped: return RunStore::tr("stopped");
    case RunStatus::Diverged: return RunStore::tr("diverged");
    case RunStatus::Failed: return RunStore::tr("failed");
  }
  return RunStore::tr("unknown");
}

}  // namespace widgets
