#pragma once
// The Hardware dock: the device catalog as a checklist. Each row: the device, how many
// (devices in data parallel, or vCPUs for a scalable CPU), the price kind, the precision it
// runs at, and an estimate the app fills in from the simulator (devices that would not fit
// in memory at this batch are flagged before the run). GUI thread only.
#include <QString>
#include <QVector>
#include <QWidget>
#include <optional>
#include <vector>

#include "core/experiment/experiment.h"
#include "core/hw/device_spec.h"
#include "core/util/precision.h"
#include "widgets/chart_theme.h"

class QComboBox;
class QTableWidget;
class QLabel;

namespace widgets {

// What the app says about a device at the current settings.
struct DeviceStatus {
  // NotApplicable: the chosen software stack does not describe this kind of device.
  enum class Kind { Ok, OutOfMemory, NotApplicable, Error };
  Kind kind = Kind::Ok;
  QString text;     // short: "≈ 12.4 s/epoch · $0.03/run", "out of memory"
  QString detail;   // tooltip: the whole story
};

class HardwarePanel : public QWidget {
  Q_OBJECT
public:
  explicit HardwarePanel(QWidget* parent = nullptr);

  // Rebuilds the rows, keeping the current choices where the ids still exist.
  void setCatalog(const std::vector<core::hw::DeviceSpec>& devices);
  QStringList deviceIds() const;

  // The checked devices, in catalog order.
  QVector<core::experiment::DeviceChoice> choices() const;
  // Checks exactly these devices with these settings; returns the ids not in the catalog.
  QStringList setChoices(const QVector<core::experiment::DeviceChoice>& choices);
  // The experiment's devices, checked with their settings; the host row is measured (checked
  // and locked) when the experiment trains here. No signal.
  void showExperiment(const core::experiment::Experiment& experiment);
  // Writes the checked devices into `experiment`, keeping what a row does not show (a
  // device's own stack).
  void applyTo(core::experiment::Experiment& experiment) const;
  // The row's settings whether checked or not (nullopt for an unknown id).
  std::optional<core::experiment::DeviceChoice> settings(const QString& deviceId) const;

  // When the host (the measured device, id "host") trains for real it is measured: its row
  // is checked and locked.
  void setHostMeasured(bool measured);
  bool hostMeasured() const { return m_hostMeasured; }

  void setDeviceStatus(const QString& deviceId, const DeviceStatus& status);
  DeviceStatus deviceStatus(const QString& deviceId) const;
  void setNote(const QString& text);  // under the table (catalog load problems)
  // The device swatches in the charts' colours for this theme.
  void setTheme(ChartTheme theme);

  static bool isScalableCpu(const core::hw::DeviceSpec& spec);
  static QString hostId() { return QString::fromLatin1(core::hw::kHostDeviceId); }

Q_SIGNALS:
  void choicesChanged();

private:
  void fitColumns();
  struct Row {
    core::hw::DeviceSpec spec;
    DeviceStatus status;
  };
  int rowOf(const QString& deviceId) const;
  void buildRow(int row, const core::hw::DeviceSpec& spec);
  void applyChoice(int row, const core::experiment::DeviceChoice& c, bool checked);
  core::experiment::DeviceChoice readRow(int row) const;
  void showVmPrice(int row);
  // The price the user typed (per device-hour): kept on the row's price box, shown italic as
  // "$1.80/h (yours)"; nullopt gives the catalog's back.
  static constexpr const char* kUserPriceProperty = "userUsdPerHour";
  static std::optional<double> parseUserPrice(const QString& text);
  static QString userPriceText(const QComboBox* price);
  void setUserPrice(QComboBox* price, std::optional<double> usdPerHour);

  QTableWidget* m_table = nullptr;
  QLabel* m_note = nullptr;
  std::vector<Row> m_rows;
  bool m_hostMeasured = false;
  ChartTheme m_theme = ChartTheme::Light;
  bool m_updating = false;
};

}  // namespace widgets
