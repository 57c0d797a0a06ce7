#include "widgets/bar_chart_base.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "widgets/run_store.h"

namespace widgets {


void BarChartBase::syncToRanges() {
  // Category names turn when they would run into each other: as little as keeps neighbours
  // apart (turned by θ, names a slot apart are slot × sin θ apart across their lines).
  for (QCPAxisRect* rect : plot()->axisRects()) {
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    const auto ticker = x->ticker().dynamicCast<QCPAxisTickerText>();
    if (!ticker || ticker->ticks().isEmpty()) continue;
    const QFontMetrics metrics(x->tickLabelFont());
    int needed = 0, lines = 1;
    for (const QString& label : ticker->ticks()) {
      int widest = 0;
      for (const QString& line : label.split('\n')) widest = std::max(widest, metrics.horizontalAdvance(line));
      needed += widest + metrics.horizontalAdvance(QStringLiteral("  "));
      lines = std::max(lines, static_cast<int>(label.count('\n')) + 1);
    }
    const double available = panelWidth() - 60;  // the value axis's labels and title take ~60 px
    const double slot = available / ticker->ticks().size();
    const double across = lines * metrics.height();
    double rotation = 0;
    if (needed > available) rotation = slot * 0.5 >= across ? -30 : slot * 0.87 >= across ? -60 : -90;
    x->setTickLabelRotation(rotation);
  }

  for (int i = 0; i < plot()->plottableCount(); ++i) {
    auto* bars = qobject_cast<QCPBars*>(plot()->plottable(i));
    if (!bars || bars->barBelow()) continue;   // stacked bars rest on the one below
    QCPAxis* y = bars->valueAxis();
    rebaseBars(bars, y->scaleType() == QCPAxis::stLogarithmic ? y->range().lower : 0.0);
  }
}

namespace {

// A bar's value above the bar: written upwards (overlaid runs' narrow bars) from just over its
// top, or level and centred on it.
void placeAboveBar(QCPItemText* label, bool upright, double scale) {
  label->setPositionAlignment(upright ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignHCenter | Qt::AlignBottom);
  label->setPadding(upright ? QMargins(static_cast<int>(3 * scale), 0, 0, 0) : QMargins(0, 0, 0, static_cast<int>(2 * scale)));
  label->setBrush(Qt::NoBrush);
}

}  // namespace

void BarChartBase::fitToLayout() {
  const QVector<QRectF> stars = markerRects();   // a bar's value is not written over a star
  const double scale = presentationScale();
  for (int i = 0; i < plot()->itemCount(); ++i) {
    auto* label = qobject_cast<QCPItemText*>(plot()->item(i));
    if (!label || !label->clipAxisRect()) continue;
    QCPAxisRect* rect = label->clipAxisRect();
    const QFontMetrics metrics(label->font());
    if (label->property("missingLabel").toBool()) {
      // Written upwards from near the axis: no longer than the plot is tall.
      elideLabel(label, std::max(20, static_cast<int>(rect->height() * 0.95) - 4));
      continue;
    }
    if (!label->property("valueLabel").toBool()) continue;
    QCPAxis* keyAxis = label->position->keyAxis();
    QCPAxis* valueAxis = label->position->valueAxis();
    if (!keyAxis || !valueAxis) continue;
    const bool upright = label->rotation() != 0;
    // Above the bar, as addValueLabel placed it (a previous layout may have moved it inside).
    label->position->setCoords(label->position->key(), label->property("barValue").toDouble());
    placeAboveBar(label, upright, scale);
    // Along the text: its advance and padding; across it: a line. Upright labels need the
    // bar's width across and the room above the bar along; level ones the slot's width (bars
    // fill 92% of it) along and the room above across.
    auto along = [&] { return metrics.horizontalAdvance(label->text()) + label->padding().left() + label->padding().right(); };
    auto across = [&] { return metrics.height() + label->padding().top() + label->padding().bottom(); };
    const double barPixels = std::abs(keyAxis->coordToPixel(label->property("barWidth").toDouble()) - keyAxis->coordToPixel(0));
    const double room = valueAxis->coordToPixel(label->position->value()) - rect->top();
    const bool fits = upright ? barPixels >= 0.9 * metrics.height() && room >= along()
                              : barPixels / 0.92 >= along() && room >= across();
    label->setVisible(fits);
    auto starUnder = [&]() -> const QRectF* {
      const QRectF r = itemTextRect(label);
      for (const QRectF& star : stars)
        if (star.intersects(r)) return &star;
      return nullptr;
    };
    const QRectF* star = fits ? starUnder() : nullptr;
    if (!star) continue;
    // …or, where a published star stands there, inside the bar, under its top and under the
    // star, on a box.
    const double top = std::max(valueAxis->coordToPixel(label->position->value()), star->bottom() + 1);
    label->position->setCoords(label->position->key(), valueAxis->pixelToCoord(top));
    label->setPositionAlignment(upright ? Qt::AlignRight | Qt::AlignVCenter : Qt::AlignHCenter | Qt::AlignTop);
    label->setPadding(upright ? QMargins(2, 0, static_cast<int>(3 * scale), 0) : QMargins(2, static_cast<int>(2 * scale), 2, 0));
    label->setBrush(labelBox());
    const double below = valueAxis->coordToPixel(valueAxis->range().lower) - top;
    label->setVisible(below >= (upright ? along() : across()) && !starUnder());
  }
  ChartFrame::fitToLayout();   // the published labels, clear of the value labels kept
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
                                 QCPAxis* valueAxis, double width) {
  if (shownRuns().size() > 3) return;   // too many narrow bars to label; hover tells
  auto* label = new QCPItemText(plot());
  label->setProperty("valueLabel", true);
  label->setProperty("barWidth", width);
  label->setProperty("barValue", y);   // where it starts at every layout (fitToLayout may move it)
  label->setClipAxisRect(keyAxis->axisRect());
  label->position->setAxes(keyAxis, valueAxis);
  label->position->setCoords(x, y);
  // Overlaid runs make bars narrow: the value is written upwards so neighbours never collide.
  const bool upright = shownRuns().size() > 1;
  if (upright) label->setRotation(-90);
  placeAboveBar(label, upright, presentationScale());
  label->setText(text);
  label->setColor(textColor());
  label->setFont(chartFont(presentationScale() * 0.85));
}

void BarChartBase::addMissingLabel(double x, const QString& text, QCPAxis* keyAxis,
                                   QCPAxis* valueAxis) {
  // Several runs' bars of one category (a slot of 1 around the integer) saying the same: one
  // label, in the middle of theirs.
  for (int i = 0; i < plot()->itemCount(); ++i) {
    auto* other = qobject_cast<QCPItemText*>(plot()->item(i));
    if (!other || !other->property("missingLabel").toBool() || other->clipAxisRect() != keyAxis->axisRect() ||
        other->text() != text || std::lround(other->position->key()) != std::lround(x))
      continue;
    const int merged = other->property("merged").toInt() + 1;
    other->setProperty("merged", merged);
    other->position->setCoords((other->position->key() * merged + x) / (merged + 1), other->position->value());
    return;
  }
  auto* label = new QCPItemText(plot());
  label->setProperty("missingLabel", true);
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
