#pragma once
// CONTRACT: the one experiment the window is set up for (core::experiment::Experiment),
// owned by the app. The Experiment and Hardware panels overlay the fields they show when the
// user edits them, and show it again whenever it changes from elsewhere (a preset, the
// settings, a script). Controllers read experiment() and observe changed(). GUI thread only.
#include <QObject>
#include <QStringList>
#include <functional>

#include "core/experiment/experiment.h"

namespace widgets {
class ExperimentPanel;
class HardwarePanel;
}  // namespace widgets

namespace app::gui {

class ExperimentModel : public QObject {
  Q_OBJECT
public:
  ExperimentModel(widgets::ExperimentPanel* experimentPanel, widgets::HardwarePanel* hardwarePanel,
                  QObject* parent = nullptr);

  const core::experiment::Experiment& experiment() const { return m_experiment; }
  // Replaces the experiment and shows it. Returns the device ids the hardware catalog does not
  // know: they cannot be shown or simulated, so they are dropped (the caller says so).
  QStringList set(core::experiment::Experiment experiment);
  // The device ids the hardware catalog knows.
  QStringList knownDeviceIds() const;
  // The data folder the user last typed or browsed to in the Experiment panel themselves
  // (empty when none): one of the data folders a preset may point into without asking.
  QString userChosenDataDir() const { return m_userChosenDataDir; }
  void setUserChosenDataDir(const QString& dir) { m_userChosenDataDir = dir; }
  // Changes some fields (and shows them).
  void update(const std::function<void(core::experiment::Experiment&)>& change);

Q_SIGNALS:
  void changed();

private:
  void pullFromPanels();  // the user edited a panel
  void showInPanels();

  widgets::ExperimentPanel* m_experimentPanel;
  widgets::HardwarePanel* m_hardwarePanel;
  core::experiment::Experiment m_experiment;
  bool m_showing = false;
  QString m_userChosenDataDir;
};

}  // namespace app::gui
