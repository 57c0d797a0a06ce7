#pragma once
// Chart 6: batch-size sweep — images/s or USD per million images against the global batch
// (log2 axis) for the chosen devices. Simulation only: the app computes the reports (it is
// instant) and hands them over; this chart never calls the simulator. Out-of-memory
// points are marked with a cross.
#include <optional>
#include <vector>

#include "core/experiment/train_config.h"
#include "core/sim/sim_report.h"
#include "widgets/chart_base.h"

class QComboBox;

namespace widgets {

class SweepChart : public ChartBase {
  Q_OBJECT
public:
  enum class Metric { ImagesPerSecond, UsdPerMillionImages };
  explicit SweepChart(QWidget* parent = nullptr);
  QVector<Series> series() const override;

  // One report per (device, count, batch); any order. Replaces the previous sweep. `train` is
  // the experiment the sweep varies the batch of: its settings go with the exported rows.
  void setReports(std::vector<core::sim::SimReport> reports,
                  std::optional<core::experiment::TrainConfig> train = std::nullopt);
  const std::vector<core::sim::SimReport>& reports() const { return m_reports; }
  void setMetric(Metric metric);
  Metric metric() const { return m_metric; }
  void setMarkedBatch(int batch);   // the current experiment's batch (vertical line); 0 = none

protected:
  void rebuild() override;
  void adjustFit() override;
  QString emptyText() const override;

private:
  void addOutOfMemoryKey(QCPAxis* x, QCPAxis* y);
  std::vector<core::sim::SimReport> m_reports;
  std::optional<core::experiment::TrainConfig> m_train;
  Metric m_metric = Metric::ImagesPerSecond;
  int m_markedBatch = 0;
  QComboBox* m_metricBox = nullptr;
};

}  // namespace widgets
