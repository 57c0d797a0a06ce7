#pragma once
// Chart 1: seconds per epoch per device (measured for the host, simulated for the rest);
// the first epoch's compilation / warm-up shows as a higher first point. Log-y toggle.
#include "widgets/chart_base.h"

namespace widgets {

class EpochTimeChart : public ChartBase {
  Q_OBJECT
public:
  explicit EpochTimeChart(QWidget* parent = nullptr);
  QVector<Series> series() const override;

protected:
  void rebuild() override;
  void adjustFit() override;

private:
  static void scaleToSubset(QVector<Series>& references, const Run& run);
  double m_maxEpoch = 1;
};

}  // namespace widgets
