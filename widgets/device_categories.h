#pragma once
// The category axis of the bar charts: one category per device (across the shown runs),
// with one bar slot per run inside it, so overlaid runs stand side by side.
#include <QMap>
#include <QString>
#include <QStringList>
#include <QVector>
#include <optional>

class QCPAxis;

namespace widgets {

struct DeviceResult;

class DeviceCategories {
public:
  explicit DeviceCategories(int runCount);

  // Registers (run, device) and returns the bar's centre on the key axis.
  double add(int runIndex, const DeviceResult& d);
  // Same, for an arbitrary category key and label (sweep-free uses).
  double add(int runIndex, const QString& key, const QString& label);
  double barWidth() const;
  int size() const { return static_cast<int>(m_keys.size()); }
  // The slot of a device id for a run (first category with that id), if drawn.
  std::optional<double> position(int runIndex, const QString& deviceId) const;
  // Adds a second line under a category's label ("memory-bound").
  void setSubLabel(double position, const QString& text);
  // Installs a text ticker with the labels; the axis shows every category.
  void applyTo(QCPAxis* axis) const;

  static QString keyOf(const DeviceResult& d);

private:
  double slot(int category, int runIndex) const;
  int m_runCount;
  QStringList m_keys;
  QStringList m_labels;
  QStringList m_subLabels;
  QMap<QString, QVector<double>> m_slotsByDevice;   // "run/deviceId" -> positions
};

}  // namespace widgets
