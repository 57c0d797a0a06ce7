#pragma once
// Chart 7, host check: this machine's measured seconds per training step (per epoch, and
// per batch faintly) against the simulator's prediction for it; the ratio in the notes.
#include "widgets/chart_base.h"

namespace widgets {

class HostCheckChart : public ChartBase {
  Q_OBJECT
public:
  bool measuredOnly() const override { return true; }
  explicit HostCheckChart(QWidget* parent = nullptr);
  QVector<Series> series() const override;

protected:
  void rebuild() override;
  void adjustFit() override;
  QString emptyText() const override;
};

}  // namespace widgets
