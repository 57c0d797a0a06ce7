#pragma once
// Keeps everything that depends on the current settings up to date, before any run: the
// hardware panel's per-device estimate (and out-of-memory flags), the batch-size sweep chart,
// and the guide's published-vs-AccelLab comparisons. The simulator is instant, so this runs
// on every settings change (coalesced into one update per event-loop pass).
#include <QObject>
#include <QTimer>
#include <optional>

#include "app/gui/preset.h"
#include "widgets/hardware_panel.h"

namespace widgets {
class HardwarePanel;
class SweepChart;
}  // namespace widgets

namespace widgets {
class RunStore;
}

namespace app::gui {

class ExperimentModel;
class GuidePanel;
class SimService;

class SetupController : public QObject {
  Q_OBJECT
public:
  SetupController(const SimService* sim, const ExperimentModel* experiment, widgets::HardwarePanel* hardware,
                  widgets::SweepChart* sweep, GuidePanel* guide, QObject* parent = nullptr);

  // The preset whose comparisons the guide shows (none: the user's own set-up).
  void setPreset(const std::optional<Preset>& preset);
  // The runs the charts draw: the Guide's This-run column reads the current one (and says
  // when it is not this preset's).
  void setStore(const widgets::RunStore* store);
  // Runs the pending update now (tests, before an export).
  void updateNow();

  // Batches the sweep chart covers: 1 … 4096, powers of two.
  static std::vector<int> sweepBatches();

Q_SIGNALS:
  void updated();

private:
  // The Experiment panel's software choice applied to a device row without its own.
  // A device row's settings with what the table does not show (the VM's RAM) from the experiment.
  std::optional<core::experiment::DeviceChoice> rowChoice(const QString& id) const;
  core::experiment::DeviceChoice withStack(core::experiment::DeviceChoice choice) const;
  void schedule();
  void updateHardware();
  void updateSweep();
  void updateGuide();
  void updateGuideRun();

  const SimService* m_sim;
  const ExperimentModel* m_experiment;
  widgets::HardwarePanel* m_hardware;
  widgets::SweepChart* m_sweep;
  GuidePanel* m_guide;
  std::optional<Preset> m_preset;
  const widgets::RunStore* m_store = nullptr;
  QTimer m_timer;
};

}  // namespace app::gui
