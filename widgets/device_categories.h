#pragma once
// The category axis of the bar charts: one category per device set-up (across the shown
// runs). Overlaid runs stand side by side inside a category; only the runs that have the
// device take a slot there, so no gaps are left for runs without it.
// Use in two passes: add() every (run, device), then ask positions.
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
  void add(int runIndex, const DeviceResult& d);
  // The bar's centre on the key axis; add() must have registered (run, device).
  double position(int runIndex, const DeviceResult& d) const;
  // The slot of a device id for a run (first category with that id), if registered.
  std::optional<double> position(int runIndex, const QString& deviceId) const;
  double barWidth() const;   // the same for every bar
  int size() const { return static_cast<int>(m_keys.size()); }
  // Adds a second line under a category's label ("memory-bound").
  void setSubLabel(double position, const QString& text);
  // Installs a text ticker with the labels; the axis shows every category.
  void applyTo(QCPAxis* axis) const;

  static QString keyOf(const DeviceResult& d);

private:
  double slot(int category, int runIndex) const;
  QStringList m_keys;
  QStringList m_labels;
  QStringList m_subLabels;
  QVector<QVector<int>> m_runs;             // per category: run indices, ascending
  QMap<QString, QString> m_firstKeyOfDevice;   // "run/deviceId" -> category key
};

}  // namespace widgets
