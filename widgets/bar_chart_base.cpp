#include "widgets/bar_chart_base.h"

#include <qcustomplot.h>

#include <cmath>

#include "widgets/run_store.h"

namespace widgets {


void BarChartBase::syncToRanges() {
  // Category labels turn when they would run into each other.
  for (QCPAxisRect* rect : plot()->axisRects()) {
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    const auto ticker = x->ticker().dynamicCast<QCPAxisTickerText>();
    if (!ticker) continue;
    const QFontMetrics metrics(x->tickLabelFont());
    int needed = 0;
    for (const QString& label : ticker->ticks()) {
      int widest = 0;
      for (const QString& line : label.split('\n')) widest = std::max(widest, metrics.horizontalAdvance(line));
      needed += widest + metrics.horizontalAdvance(QStringLiteral("  "));
    }
    const double available = panelWidth() - 60;  // the value axis's labels and title take ~60 px
    x->setTickLabelRotation(needed > available ? -30 : 0);
  }

  for (int i = 0; i < plot()->plottableCount(); ++i) {
    auto* bars = qobject_cast<QCPBars*>(plot()->plottable(i));
    if (!bars || bars->barBelow()) continue;   // stacked bars rest on the one below
    QCPAxis* y = bars->valueAxis();
    rebaseBars(bars, y->scaleType() == QCPAxis::stLogarithmic ? y->range().lower : 0.0);
  }
}

DeviceCategories BarChartBase::categories() const {
  DeviceCategories cats;
  const auto runs = shownRuns();
  for (int ri = 0; ri < static_cast<int>(runs.size()); ++ri)
    for (const DeviceResult& d : runs[static_cast<std::size_t>(ri)]->devices) cats.add(ri, d);
  return cats;
}

QString BarChartBase::emptyText() const {
  return tr("No devices to show yet: choose devices and press Run, or tick a run in the runs list.");
}

QCPBars* BarChartBase::addBar(const Series& s, QCPAxis* keyAxis, QCPAxis* valueAxis,
                              double width) {
  auto* bars = new QCPBars(keyAxis, valueAxis);
  bars->setName(s.label);
  bars->setWidth(width * 0.92);
  const QColor color = readable(s.color.isValid() ? s.color : textColor());
  bars->setPen(QPen(color.darker(115), pen(1.0)));
  bars->setBrush(QBrush(color, brushStyleFor(s.styleIndex)));
  const double x = s.plotX.isEmpty() ? s.x.value(0) : s.plotX.value(0);
  if (!s.y.isEmpty() && std::isfinite(s.y[0])) bars->addData(x, s.y[0]);
  bars->setProperty("deviceId", s.deviceId);
  bars->setProperty("runId", s.runId);
  registerPlottable(bars, seriesKey(s), s.xUnit, s.yUnit);
  if (groupedLegend() && !s.deviceId.isEmpty()) {
    bars->removeFromLegend();
    if (hasValue(s)) {   // a run or device with no bar here is not in this chart's legend
      ensureDeviceEntry(s, keyAxis, valueAxis, true);
      ensureRunEntry(s.runId, s.styleIndex, keyAxis, valueAxis, true);
    }
  }
  return bars;
}

void BarChartBase::addValueLabel(double x, double y, const QString& text, QCPAxis* keyAxis,
                                 QCPAxis* valueAxis) {
  if (shownRuns().size() > 3) return;   // too many narrow bars to label; hover tells
  auto* label = new QCPItemText(plot());
  label->setClipAxisRect(keyAxis->axisRect());
  label->position->setAxes(keyAxis, valueAxis);
  label->position->setCoords(x, y);
  if (shownRuns().size() > 1) {
    // Overlaid runs make bars narrow: write the value upwards so neighbours never collide.
    label->setRotation(-90);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    label->setPadding(QMargins(static_cast<int>(3 * presentationScale()), 0, 0, 0));
  } else {
    label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    label->setPadding(QMargins(0, 0, 0, static_cast<int>(2 * presentationScale())));
  }
  label->setText(text);
  label->setColor(textColor());
  label->setFont(chartFont(presentationScale() * 0.85));
}

void BarChartBase::addMissingLabel(double x, const QString& text, QCPAxis* keyAxis,
                                   QCPAxis* valueAxis) {
  auto* label = new QCPItemText(plot());
  label->setClipAxisRect(keyAxis->axisRect());
  label->position->setTypeX(QCPItemPosition::ptPlotCoords);
  label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  label->position->setAxes(keyAxis, valueAxis);
  label->position->setAxisRect(keyAxis->axisRect());
  label->position->setCoords(x, 0.97);
  label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  label->setRotation(-90);
  label->setText(text);
  label->setColor(colors().warning);
  QFont f = chartFont(presentationScale() * 0.9, true);
  label->setFont(f);
}

void BarChartBase::fitBars(QCPAxisRect* rect, int categories) {
  rect->axis(QCPAxis::atBottom)->setRange(-0.6, std::max(0, categories - 1) + 0.6);
  QCPAxis* y = rect->axis(QCPAxis::atLeft);
  const bool upright = shownRuns().size() > 1;   // value labels written upwards need room
  if (y->scaleType() == QCPAxis::stLinear) {
    y->setRangeLower(0);
    if (y->range().upper <= 0) y->setRangeUpper(1);
    // Room above the tallest bar for its value label (a line of text, or one written upwards).
    y->setRangeUpper(y->range().upper * (upright ? 1.15 : 1.1));
  } else if (upright) {
    y->setRangeUpper(y->range().upper * 3);
  }
}

}  // namespace widgets
