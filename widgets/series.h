#pragma once
// The data a chart shows, as plain series: the charts draw them and the exports write them
// (one tidy CSV / JSON: chart, run, device, series, x, y, units, measured|simulated), so a
// figure and its data file can never disagree.
#include <QColor>
#include <QString>
#include <QVector>
#include <optional>
#include <vector>

#include "core/experiment/train_config.h"
#include "core/sim/sim_report.h"

namespace widgets {

enum class SeriesSource { Measured, Simulated, Reference };
QString seriesSourceName(SeriesSource s);   // "measured", "simulated", "reference"

struct Series {
  QString chartId;      // "epoch_time", …
  int runId = 0;        // 0 for series not tied to a run (the batch sweep)
  QString runName;
  QString deviceId;     // empty for run-level series (loss, accuracy vs epoch)
  QString name;         // machine name: "epoch_seconds", "test_accuracy", …
  QString label;        // legend text: "4× V100 (simulated)"
  QString xUnit;        // "epoch", "s", "step", "batch", "" (categorical: the device)
  QString yUnit;        // "s", "%", "images/s", "USD", "ms"
  SeriesSource source = SeriesSource::Measured;
  QVector<double> x;    // NaN = not applicable (one value per device)
  QVector<double> y;    // NaN = no value (see note)
  QString note;         // "out of memory", "no price", …: why y is missing, if it is
  // A series of no run (the batch sweep's): the settings it was simulated for and, per point,
  // the report it came from, so its exported rows carry the whole configuration as a run's do.
  std::optional<core::experiment::TrainConfig> train;
  std::vector<core::sim::SimReport> pointReports;   // one per x, in order; empty for run series
  // Drawing hints (not exported).
  QColor color;
  int styleIndex = 0;   // which visible run: line style / marker
  QVector<double> plotX;  // where to draw when x is not a coordinate (bar positions)
};

}  // namespace widgets
