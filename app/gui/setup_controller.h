#pragma once
// Keeps everything that depends on the current settings up to date, before any run: the
// hardware panel's per-device estimate (and out-of-memory flags), the batch-size sweep chart,
// and the guide's published-vs-AccelLab comparisons. The simulator is instant, so this runs
// on every settings change (coalesced into one update per event-loop pass).
#include <QObject>
#include <QTimer>

#include "widgets/hardware_panel.h"

namespace widgets {
class ExperimentPanel;
class HardwarePanel;
class SweepChart;
}  // namespace widgets

namespace app::gui {

class GuidePanel;
class SimService;
struct Preset;

class SetupController : public QObject {
  Q_OBJECT
public:
  SetupController(const SimService* sim, widgets::ExperimentPanel* experiment, widgets::HardwarePanel* hardware,
                  widgets::SweepChart* sweep, GuidePanel* guide, QObject* parent = nullptr);

  // The preset whose comparisons the guide shows (nullptr: none). Not owned; must outlive
  // the next setPreset call.
  void setPreset(const Preset* preset);
  // Runs the pending update now (tests, before an export).
  void updateNow();

  // Batches the sweep chart covers: 1 … 4096, powers of two.
  static std::vector<int> sweepBatches();

Q_SIGNALS:
  void updated();

private:
  // The Experiment panel's software choice applied to a device row without its own.
  widgets::DeviceChoice withStack(widgets::DeviceChoice choice) const;
  void schedule();
  void updateHardware();
  void updateSweep();
  void updateGuide();

  const SimService* m_sim;
  widgets::ExperimentPanel* m_experiment;
  widgets::HardwarePanel* m_hardware;
  widgets::SweepChart* m_sweep;
  GuidePanel* m_guide;
  const Preset* m_preset = nullptr;
  QTimer m_timer;
};

}  // namespace app::gui
