#pragma once
// Chart 5, "why": the simulated step time split into compute / memory / overhead / input /
// communication as stacked bars per device, the binding part under each bar and the
// simulator's sentence in the notes. Optional "share of step" (percent) view.
#include "widgets/bar_chart_base.h"

class QCheckBox;

namespace widgets {

class BreakdownChart : public BarChartBase {
  Q_OBJECT
public:
  explicit BreakdownChart(QWidget* parent = nullptr);
  QVector<Series> series() const override;

  void setShowShare(bool share);
  bool showShare() const { return m_share; }

protected:
  void rebuild() override;
  void adjustFit() override;

private:
  bool m_share = true;
  QCheckBox* m_shareBox = nullptr;
  int m_categories = 0;
};

}  // namespace widgets
