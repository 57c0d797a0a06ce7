#pragma once
// Chart 3: training throughput (images/s) per device: bars, measured (host) or simulated.
// Out-of-memory devices show as such, not as zero. Log-y toggle.
#include "widgets/bar_chart_base.h"

namespace widgets {

class ThroughputChart : public BarChartBase {
  Q_OBJECT
public:
  explicit ThroughputChart(QWidget* parent = nullptr);
  QVector<Series> series() const override;

protected:
  void rebuild() override;
  void adjustFit() override;

private:
  int m_categories = 0;
};

}  // namespace widgets
