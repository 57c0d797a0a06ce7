#pragma once
// The app's one door to the hardware catalog and the simulator: it turns the experiment's
// settings and a device choice into a SimConfig, runs the (instant) simulator, and scales
// its report to the work a run really does (a subset of the data). GUI thread only.
#include <QString>
#include <QStringList>
#include <QVector>
#include <memory>
#include <optional>
#include <vector>

#include "core/hw/device_catalog.h"
#include "core/hw/stack_catalog.h"
#include "core/sim/error_band.h"
#include "core/sim/sim_report.h"
#include "core/experiment/experiment.h"
#include "widgets/hardware_panel.h"

namespace core::sim { class Simulator; }

namespace app::gui {

class SimService {
public:
  // Loads the default catalog (shipped devices, the user's, and the measured host).
  SimService();
  SimService(core::hw::DeviceCatalog catalog, core::hw::StackCatalog stacks);
  ~SimService();

  const core::hw::DeviceCatalog& catalog() const { return m_catalog; }
  // Re-reads the device folders (a device the editor saved) and simulates on them from now
  // on. References into the old catalog are invalid afterwards.
  void reloadDevices();
  const core::hw::StackCatalog& stacks() const { return m_stacks; }
  // The PUE and grid of the energy and CO2e estimates (resources/energy/grid.json's defaults).
  const core::sim::EnergySettings& energySettings() const { return m_energy; }
  // The grid regions and PUE choices (empty when grid.json could not be read), and the user's
  // choice among them (Simulate > Energy estimate); an unknown id keeps the current setting.
  const core::sim::EnergyCatalog& energyCatalog() const { return m_energyCatalog; }
  bool setEnergyChoice(const std::string& regionId, const std::string& pueId);
  // The simulator's held-out error for a stack on a device (core/sim/error_band.h: "±12%", and
  // text() saying on which rows, or that it is uncalibrated); unknown (rows 0) without the
  // shipped held-out errors or for a measured device.
  core::sim::ErrorBand errorBand(const core::sim::SimReport& report) const;
  core::sim::ErrorBand errorBand(const std::string& modelId, const std::string& stackId, const std::string& deviceId) const;
  // The shipped held-out errors (nullptr when unreadable).
  const core::sim::HeldOutErrors* heldOutErrors() const { return m_heldOut.get(); }
  // Device files that failed validation ("file: key: what" each).
  QStringList loadErrors() const;

  // The experiment's configuration on a device: core::experiment::simConfigFor (the one
  // mapping and precision policy the CLI, the presets and import-run use too) at this
  // catalog and the user's energy settings.
  core::sim::SimConfig simConfig(const core::experiment::TrainConfig& config, const core::experiment::DeviceChoice& choice) const;

  // The simulator on this catalog (core's evaluations that need one: preset comparisons).
  const core::sim::Simulator& simulator() const;

  // Throws core::util::Error (unknown device, impossible values).
  core::sim::SimReport simulate(const core::sim::SimConfig& config) const;
  // simulate(simConfig(...)): a subset (the config's limit) makes shorter epochs.
  core::sim::SimReport simulateRun(const core::experiment::TrainConfig& config,
                                   const core::experiment::DeviceChoice& choice) const;

  // Training images one epoch reads with this config (core::experiment::imagesPerEpoch).
  static std::int64_t imagesPerEpoch(const core::experiment::TrainConfig& config);
  // Seconds of epoch `epoch` (1-based) on a simulated device for `images` images: the
  // steady step time per batch, plus the first epoch's compilation / warm-up.
  static double epochSeconds(const core::sim::SimReport& report, int epoch, std::int64_t images);

  // Every device × every batch in `batches`, for the sweep chart; errors are skipped.
  std::vector<core::sim::SimReport> sweep(const core::experiment::TrainConfig& config,
                                          const QVector<core::experiment::DeviceChoice>& choices,
                                          const std::vector<int>& batches) const;

  // Legend text for a choice: "4× V100", "16 vCPUs cpu-skylake", "this machine".
  QString choiceLabel(const core::experiment::DeviceChoice& choice) const;

private:
  core::hw::DeviceCatalog m_catalog;
  core::hw::StackCatalog m_stacks;
  std::shared_ptr<const core::sim::HeldOutErrors> m_heldOut;  // read once
  core::sim::EnergyCatalog m_energyCatalog;
  core::sim::EnergySettings m_energy;  // resources/energy/grid.json defaults until the user chooses
  std::unique_ptr<core::sim::Simulator> m_simulator;
};

}  // namespace app::gui
