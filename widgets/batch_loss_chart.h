#pragma once
// Chart 2b: per-batch training loss against step, with a smoothing slider (debiased
// exponential moving average, as TensorBoard does); the raw line stays faint behind it.
#include "widgets/chart_base.h"

class QSlider;
class QLabel;

namespace widgets {

// Debiased EMA: s_t = b·s_{t-1} + (1-b)·x_t, reported as s_t / (1 - b^t). b in [0, 1).
QVector<double> debiasedEma(const QVector<double>& values, double smoothing);

class BatchLossChart : public ChartBase {
  Q_OBJECT
public:
  bool measuredOnly() const override { return true; }
  explicit BatchLossChart(QWidget* parent = nullptr);
  QVector<Series> series() const override;

  void setSmoothing(double smoothing);   // 0 … 0.99
  double smoothing() const { return m_smoothing; }

protected:
  void rebuild() override;
  void adjustFit() override;
  QString emptyText() const override;

private:
  double m_smoothing = 0.6;
  QSlider* m_slider = nullptr;
  QLabel* m_sliderValue = nullptr;
};

}  // namespace widgets
