#pragma once
// Chart 2: accuracy and loss (train/test) against epoch, or test accuracy against each
// device's simulated (host: measured) seconds — time to accuracy — with the target line and
// "reached at" per device in the legend.
#include "widgets/chart_base.h"

class QCheckBox;
class QComboBox;

namespace widgets {

struct EpochLineStyle;

class AccuracyChart : public ChartBase {
  Q_OBJECT
public:
  bool measuredOnly() const override { return true; }
  enum class Axis { Epoch, Seconds };
  explicit AccuracyChart(QWidget* parent = nullptr);
  QVector<Series> series() const override;

  void setAxis(Axis axis);
  Axis axis() const { return m_axis; }
  // Time axis on a log scale (devices 100× apart); only in the Seconds view.
  void setLogTime(bool on);
  bool logTime() const { return m_logTime; }
  // The epoch view's line for a series (see EpochLineStyle).
  static EpochLineStyle epochLineStyle(const Series& s);

protected:
  void rebuild() override;
  void adjustFit() override;
  QString emptyText() const override;

private:
  QVector<Series> epochSeries() const;
  QVector<Series> timeSeries() const;
  static QString deviceLabelFromSeries(const Series& s);
  Axis m_axis = Axis::Epoch;
  bool m_logTime = false;
  QComboBox* m_axisBox = nullptr;
  QCheckBox* m_logTimeBox = nullptr;
};

// How a line of the epoch view is drawn, so train and test never differ by shade alone: test
// solid with filled markers, train dashed with hollow ones; loss (right axis) thinner than
// accuracy, with the run's second marker shape. Exposed for tests.
struct EpochLineStyle {
  Qt::PenStyle pen = Qt::SolidLine;
  double width = 2.0;   // before the presentation scale
  int shape = 0;        // QCPScatterStyle::ScatterShape
  bool filled = true;
};
// Time (s) at which `accuracy` (fraction) first reaches `target`, with the epoch's
// cumulative seconds; NaN when never reached. Exposed for tests.
double reachedAtSeconds(const QVector<double>& cumulativeSeconds, const QVector<double>& accuracy,
                        double target);

}  // namespace widgets
