#pragma once
// Chart 4: cost per device — USD per million images (left) and USD per run (right).
// Devices without a price and devices that do not fit say so instead of showing zero.
#include "widgets/bar_chart_base.h"

namespace widgets {

class CostChart : public BarChartBase {
  Q_OBJECT
public:
  explicit CostChart(QWidget* parent = nullptr);
  QVector<Series> series() const override;

protected:
  void rebuild() override;
  void adjustFit() override;

private:
  QCPAxisRect* m_runRect = nullptr;   // the right-hand panel (USD per run)
  int m_categories = 0;
};

}  // namespace widgets
