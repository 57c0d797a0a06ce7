#pragma once
// Helpers shared by the bar charts (throughput, cost, breakdown): bars in device colours,
// runs told apart by fill pattern, value labels on top, and "out of memory" / "no price"
// written where a bar would be instead of a misleading zero.
#include "widgets/chart_base.h"
#include "widgets/device_categories.h"

class QCPBars;

namespace widgets {

class BarChartBase : public ChartBase {
  Q_OBJECT
public:
  using ChartBase::ChartBase;

protected:
  // Categories for every device of the shown runs (first pass done).
  DeviceCategories categories() const;
  // One bar (one point at s.plotX[0]) for a per-device series; key from the series.
  QCPBars* addBar(const Series& s, QCPAxis* keyAxis, QCPAxis* valueAxis, double width);
  // The value printed above a bar `width` (key units) wide. Shown only where it fits: beside
  // its neighbours and under the top of the plot (the hover and the CSV always have it).
  void addValueLabel(double x, double y, const QString& text, QCPAxis* keyAxis, QCPAxis* valueAxis, double width);
  // A note where the bar would stand (near the axis): "out of memory", "no price". Once per
  // category when several runs' bars there say the same; shortened to the plot's height.
  void addMissingLabel(double x, const QString& text, QCPAxis* keyAxis, QCPAxis* valueAxis);
  // Bars start at zero (linear) and categories get half a slot of margin.
  void fitBars(QCPAxisRect* rect, int categories);
  QString emptyText() const override;
  bool switchesToLogByItself() const override { return false; }
  // On a log axis bars grow from the bottom of the axis, not from 0 (which lies at minus
  // infinity and would be drawn outside the plot where clipping is lost, as in SVG). Category
  // names turn as far as they must not to overlap; labels are fitted to the room they have.
  void syncToRanges() override;
  // Value labels where they fit, missing-bar notes as long as the plot is tall.
  void fitToLayout() override;
};

}  // namespace widgets
