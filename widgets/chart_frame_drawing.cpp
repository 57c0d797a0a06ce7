#include "widgets/chart_frame.h"

#include <qcustomplot.h>

#include <QFontMetrics>
#include <QMap>
#include <cmath>

#include "widgets/chart_keys.h"

// ChartFrame's drawing helpers for subclasses: registering plottables, published reference
// marks, horizontal lines, line and fill styles; and the export description.
namespace widgets {

using namespace chart_keys;

QString ChartFrame::exportDescription() const {
  return tr("AccelLab chart: %1 (%2)").arg(title(), chartId());
}

void ChartFrame::registerPlottable(QCPAbstractPlottable* p, const QString& key,
                                  const QString& xUnit, const QString& yUnit) {
  m_frameOrder.push_back(p);
  p->setProperty(kKeyProperty, key);
  p->setProperty(kXUnitProperty, xUnit);
  p->setProperty(kYUnitProperty, yUnit);
  p->setSelectable(QCP::stNone);
}

void ChartFrame::drawReferences(const QVector<Series>& all, QCPAxis* keyAxis, QCPAxis* valueAxis) {
  const ChartColors c = colors();
  bool inLegend = false;
  QMap<double, int> marksAtX;   // several marks on one bar: labels alternate sides
  for (const Series& s : all) {
    if (s.source != SeriesSource::Reference || s.y.isEmpty()) continue;
    const double x = s.plotX.isEmpty() ? s.x.value(0) : s.plotX.value(0);
    const double y = s.y[0];
    const QFontMetrics metrics(chartFont(m_scale * 0.9));
    const QString shortLabel = metrics.elidedText(s.label, Qt::ElideRight, static_cast<int>(420 * m_scale));
    if (!std::isfinite(x)) {
      addHorizontalLine(y, shortLabel, c.reference, keyAxis, valueAxis, Qt::DotLine);
      continue;
    }
    // One graph per mark, so hovering a star names its source; one legend entry for all.
    QCPGraph* point = m_plot->addGraph(keyAxis, valueAxis);
    point->setName(tr("published (reference)"));
    point->setLineStyle(QCPGraph::lsNone);
    point->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssStar, QPen(c.reference, pen(2.0)),
                                           QBrush(c.reference), 13 * m_scale));
    point->setProperty("hoverName", s.label);
    point->setProperty("deviceId", s.deviceId);
    registerPlottable(point, kReferenceKey, s.xUnit, s.yUnit);
    if (inLegend) point->removeFromLegend();
    inLegend = true;
    point->addData(x, y);
    // An invisible anchor at the point; the label sits a few pixels beside it (the side is
    // chosen in placeReferenceLabels so it stays inside the plot).
    auto* anchor = new QCPItemTracer(m_plot);
    anchor->setStyle(QCPItemTracer::tsNone);
    anchor->setClipAxisRect(keyAxis->axisRect());
    anchor->position->setAxes(keyAxis, valueAxis);
    anchor->position->setCoords(x, y);
    auto* label = new QCPItemText(m_plot);
    label->setClipAxisRect(keyAxis->axisRect());
    label->position->setParentAnchor(anchor->position);
    label->position->setCoords(9 * m_scale, 0);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    label->setPadding(QMargins(3, 1, 3, 1));
    label->setText(shortLabel);
    label->setColor(c.reference);
    label->setBrush(labelBox());
    label->setFont(chartFont(m_scale * 0.9));
    label->setProperty(kKeyProperty, kReferenceKey);
    label->setProperty("referenceLabel", true);
    label->setProperty("referenceX", x);
    label->setProperty("referenceFlip", (marksAtX[x]++ % 2) == 1);
  }
}

QRectF ChartFrame::itemTextRect(QCPItemText* item) {
  QPolygonF corners;
  for (QCPItemAnchor* a : {item->topLeft, item->topRight, item->bottomRight, item->bottomLeft}) corners << a->pixelPosition();
  return corners.boundingRect();
}

QBrush ChartFrame::labelBox() const {
  QColor box = colors().legendBackground;
  box.setAlpha(215);
  return QBrush(box);
}

QString ChartFrame::wholeLabelText(QCPItemText* item) {
  if (item->property("fullText").isNull()) item->setProperty("fullText", item->text());
  return item->property("fullText").toString();
}

void ChartFrame::elideLabel(QCPItemText* item, int width) {
  item->setText(QFontMetrics(item->font()).elidedText(wholeLabelText(item), Qt::ElideRight, width));
}

QVector<QRectF> ChartFrame::markerRects() const {
  QVector<QRectF> out;
  for (int i = 0; i < m_plot->graphCount(); ++i) {
    QCPGraph* g = m_plot->graph(i);
    if (!g->visible() || g->lineStyle() != QCPGraph::lsNone || g->scatterStyle().isNone()) continue;
    const double r = g->scatterStyle().size() / 2 + 1;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
      const QPointF at = g->coordsToPixels(it->key, it->value);
      out << QRectF(at.x() - r, at.y() - r, 2 * r, 2 * r);
    }
  }
  return out;
}

void ChartFrame::addHorizontalLine(double y, const QString& label, const QColor& color,
                                  QCPAxis* keyAxis, QCPAxis* valueAxis, Qt::PenStyle style) {
  auto* line = new QCPItemStraightLine(m_plot);
  line->setClipAxisRect(keyAxis->axisRect());
  line->point1->setTypeX(QCPItemPosition::ptAxisRectRatio);
  line->point1->setTypeY(QCPItemPosition::ptPlotCoords);
  line->point2->setTypeX(QCPItemPosition::ptAxisRectRatio);
  line->point2->setTypeY(QCPItemPosition::ptPlotCoords);
  line->point1->setAxes(keyAxis, valueAxis);
  line->point2->setAxes(keyAxis, valueAxis);
  line->point1->setAxisRect(keyAxis->axisRect());
  line->point2->setAxisRect(keyAxis->axisRect());
  line->point1->setCoords(0, y);
  line->point2->setCoords(1, y);
  line->setPen(QPen(color, pen(1.5), style));
  includeInFit(valueAxis, y);
  if (label.isEmpty()) return;
  auto* text = new QCPItemText(m_plot);
  text->setClipAxisRect(keyAxis->axisRect());
  text->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
  text->position->setTypeY(QCPItemPosition::ptPlotCoords);
  text->position->setAxes(keyAxis, valueAxis);
  text->position->setAxisRect(keyAxis->axisRect());
  text->position->setCoords(0.985, y);
  text->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
  text->setText(label);
  text->setColor(color);
  text->setFont(chartFont(m_scale * 0.9));
  // Clear of the right axis' tick labels; no box: a box over a line's end (E5's TPU at 1.2 s
  // under "published ≈1 s/epoch") hides data.
  text->setPadding(QMargins(3, 1, 3, 1));
  if (style == Qt::DotLine) {
    line->setProperty(kKeyProperty, kReferenceKey);
    text->setProperty(kKeyProperty, kReferenceKey);
  }
}

Qt::PenStyle ChartFrame::penStyleFor(int styleIndex) {
  static const Qt::PenStyle styles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine,
                                        Qt::DashDotDotLine};
  return styles[styleIndex % 5];
}

Qt::BrushStyle ChartFrame::brushStyleFor(int styleIndex) {
  // Runs after the first are hatched (never a dense dot pattern: it reads as another colour).
  static const Qt::BrushStyle styles[] = {Qt::SolidPattern,   Qt::BDiagPattern,   Qt::FDiagPattern,
                                          Qt::DiagCrossPattern, Qt::CrossPattern,   Qt::HorPattern,
                                          Qt::VerPattern};
  return styles[styleIndex % 7];
}

int ChartFrame::scatterShapeFor(int styleIndex) {
  static const QCPScatterStyle::ScatterShape shapes[] = {
      QCPScatterStyle::ssCircle, QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle,
      QCPScatterStyle::ssDiamond, QCPScatterStyle::ssTriangleInverted, QCPScatterStyle::ssCrossCircle,
      QCPScatterStyle::ssPlusSquare, QCPScatterStyle::ssCross, QCPScatterStyle::ssPlus};
  // 9 shapes × 5 pen styles: the first 45 runs all look different.
  return shapes[styleIndex % 9];
}

}  // namespace widgets
