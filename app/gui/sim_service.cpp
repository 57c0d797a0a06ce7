#include "app/gui/sim_service.h"

#include <QObject>
#include <algorithm>
#include <cmath>

#include "core/experiment/sim_config.h"
#include "core/sim/simulator.h"
#include "core/sim/row_readings.h"
#include "core/sim/error_band.h"

namespace app::gui {

SimService::SimService() : SimService(core::hw::DeviceCatalog::loadDefault(), core::hw::StackCatalog::loadDefault()) {}

SimService::SimService(core::hw::DeviceCatalog catalog, core::hw::StackCatalog stacks)
    : m_catalog(std::move(catalog)),
      m_stacks(std::move(stacks)),
      m_simulator(std::make_unique<core::sim::Simulator>(m_catalog, m_stacks)) {
  try {
    m_heldOut = std::make_shared<const core::sim::HeldOutErrors>(
        core::sim::readHeldOutErrors(core::sim::shippedHeldOutErrorsPath(), m_catalog));
  } catch (const std::exception&) {
    // no band shown: the shipped held-out errors are missing or unreadable
  }
  // Energy and CO2e at the grid file's defaults (world grid, industry-average PUE); without
  // the file, energy at PUE 1 and no CO2e.
  try {
    m_energyCatalog = core::sim::loadDefaultEnergyCatalog();
    m_energy = m_energyCatalog.settings();
  } catch (const std::exception&) {
  }
}

core::sim::ErrorBand SimService::errorBand(const core::sim::SimReport& report) const {
  return errorBand(report.config.modelId, report.config.stackId, report.config.deviceId);
}

core::sim::ErrorBand SimService::errorBand(const std::string& modelId, const std::string& stackId,
                                           const std::string& deviceId) const {
  const core::hw::DeviceSpec* spec = m_catalog.find(deviceId);
  if (!m_heldOut || !spec) return {};
  return core::sim::errorBandFor(*m_heldOut, modelId, stackId, *spec);
}

SimService::~SimService() = default;

bool SimService::setEnergyChoice(const std::string& regionId, const std::string& pueId) {
  try {
    m_energy = m_energyCatalog.settings(regionId, pueId);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

void SimService::reloadDevices() {
  // The simulator holds its own copy of the catalog: it is rebuilt on the new one. The
  // calibration band stays the start's: it rests on the shipped devices.
  m_catalog = core::hw::DeviceCatalog::loadDefault(core::hw::HostMeasure::Cached);  // never measures on the GUI thread
  m_simulator = std::make_unique<core::sim::Simulator>(m_catalog, m_stacks);
}

QStringList SimService::loadErrors() const {
  QStringList out;
  for (const auto& e : m_catalog.loadErrors()) out << QString::fromStdString(e);
  for (const auto& e : m_stacks.loadErrors()) out << QString::fromStdString(e);
  return out;
}

core::sim::SimConfig SimService::simConfig(const core::experiment::TrainConfig& config,
                                           const core::experiment::DeviceChoice& choice) const {
  return core::experiment::simConfigFor(config, choice, m_catalog.find(choice.deviceId), m_energy);
}

const core::sim::Simulator& SimService::simulator() const { return *m_simulator; }

core::sim::SimReport SimService::simulate(const core::sim::SimConfig& config) const {
  return m_simulator->simulate(config);
}

std::int64_t SimService::imagesPerEpoch(const core::experiment::TrainConfig& config) {
  return core::experiment::imagesPerEpoch(config);
}

core::sim::SimReport SimService::simulateRun(const core::experiment::TrainConfig& config,
                                             const core::experiment::DeviceChoice& choice) const {
  return simulate(simConfig(config, choice));
}

double SimService::epochSeconds(const core::sim::SimReport& report, int epoch, std::int64_t images) {
  const int batch = std::max(1, report.config.batch);
  const auto steps = static_cast<double>((images + batch - 1) / batch);
  const double eval = report.config.evalEachEpoch ? report.evalSecondsPerEpoch : 0.0;
  return steps * report.stepSeconds + eval + (epoch == 1 ? report.compileSeconds : 0.0);
}

std::vector<core::sim::SimReport> SimService::sweep(const core::experiment::TrainConfig& config,
                                                    const QVector<core::experiment::DeviceChoice>& choices,
                                                    const std::vector<int>& batches) const {
  std::vector<core::sim::SimReport> out;
  out.reserve(static_cast<std::size_t>(choices.size()) * batches.size());
  for (const auto& choice : choices) {
    for (int b : batches) {
      core::experiment::TrainConfig c = config;
      c.batch = b;
      try {
        out.push_back(simulate(simConfig(c, choice)));
      } catch (const std::exception&) {
        // An impossible point (e.g. a batch the device count cannot split) is left out.
      }
    }
  }
  return out;
}

QString SimService::choiceLabel(const core::experiment::DeviceChoice& choice) const {
  const core::hw::DeviceSpec* spec = m_catalog.find(choice.deviceId);
  if (spec && spec->measured) return QObject::tr("this machine");
  const QString id = QString::fromStdString(choice.deviceId);
  if (choice.vcpus > 0) return QObject::tr("%1 · %2 vCPUs").arg(id).arg(choice.vcpus);
  if (choice.count > 1) return QStringLiteral("%1× %2").arg(choice.count).arg(id);
  return id;
}

}  // namespace app::gui
