#include "app/gui/experiment_model.h"

#include <algorithm>

#include "widgets/experiment_panel.h"
#include "widgets/hardware_panel.h"

namespace app::gui {

using core::experiment::Experiment;

ExperimentModel::ExperimentModel(widgets::ExperimentPanel* experimentPanel, widgets::HardwarePanel* hardwarePanel,
                                 QObject* parent)
    : QObject(parent), m_experimentPanel(experimentPanel), m_hardwarePanel(hardwarePanel) {
  // What the panels show at start-up is the first experiment.
  m_experimentPanel->applyTo(m_experiment);
  m_hardwarePanel->applyTo(m_experiment);
  connect(m_experimentPanel, &widgets::ExperimentPanel::configChanged, this, &ExperimentModel::pullFromPanels);
  connect(m_hardwarePanel, &widgets::HardwarePanel::choicesChanged, this, &ExperimentModel::pullFromPanels);
  connect(m_experimentPanel, &widgets::ExperimentPanel::dataFolderChosen, this,
          [this](const QString& dir) { m_userChosenDataDir = dir; });
}

QStringList ExperimentModel::set(Experiment experiment) {
  QStringList unknown;
  const QStringList known = knownDeviceIds();
  std::erase_if(experiment.devices, [&](const core::experiment::DeviceChoice& d) {
    const QString id = QString::fromStdString(d.deviceId);
    if (known.contains(id)) return false;
    unknown << id;
    return true;
  });
  m_experiment = std::move(experiment);
  showInPanels();
  Q_EMIT changed();
  return unknown;
}

QStringList ExperimentModel::knownDeviceIds() const { return m_hardwarePanel->deviceIds(); }

void ExperimentModel::update(const std::function<void(Experiment&)>& change) {
  Experiment e = m_experiment;
  change(e);
  set(std::move(e));
}

void ExperimentModel::pullFromPanels() {
  if (m_showing) return;
  Experiment e = m_experiment;
  m_experimentPanel->applyTo(e);
  if (m_hardwarePanel->hostMeasured() != e.trainHere) {  // the host row follows Execution
    m_showing = true;
    m_hardwarePanel->setHostMeasured(e.trainHere);
    m_showing = false;
  }
  m_hardwarePanel->applyTo(e);
  if (e == m_experiment) return;
  m_experiment = std::move(e);
  Q_EMIT changed();
}

void ExperimentModel::showInPanels() {
  m_showing = true;
  m_experimentPanel->showExperiment(m_experiment);
  m_hardwarePanel->showExperiment(m_experiment);
  m_showing = false;
  // A panel may not hold every value (a dataset only simulated cannot train here): what it
  // shows is what runs.
  Experiment shown = m_experiment;
  m_experimentPanel->applyTo(shown);
  m_hardwarePanel->applyTo(shown);
  m_experiment = std::move(shown);
}

}  // namespace app::gui
