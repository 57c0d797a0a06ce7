#include "widgets/chart_base.h"

#include <qcustomplot.h>

#include <QMap>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <limits>

#include "widgets/palette.h"
#include "widgets/chart_base_keys.h"
#include "widgets/run_comparison.h"
#include "widgets/run_data.h"
#include "widgets/run_store.h"

// ChartBase's drawing helpers for subclasses: lines, references, horizontal lines, styles.
namespace widgets {

using namespace chart_keys;

// --- helpers for subclasses -------------------------------------------------------------

QString ChartBase::seriesKey(const Series& s) {
  if (s.source == SeriesSource::Reference) return kReferenceKey;
  return QStringLiteral("%1/%2/%3").arg(s.runId).arg(s.name, s.deviceId);
}

void ChartBase::registerPlottable(QCPAbstractPlottable* p, const QString& key,
                                  const QString& xUnit, const QString& yUnit) {
  m_frameOrder.push_back(p);
  p->setProperty(kKeyProperty, key);
  p->setProperty(kXUnitProperty, xUnit);
  p->setProperty(kYUnitProperty, yUnit);
  p->setSelectable(QCP::stNone);
}

namespace {

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// Appends what is new when the graph's points are the start of (xs, ys); else replaces them.
// Returns the points appended, or -1 when the whole series was set.
int streamInto(QCPGraph* g, const QVector<double>& xs, const QVector<double>& ys) {
  const auto& data = *g->data();
  const int n = data.size();
  const int m = static_cast<int>(std::min(xs.size(), ys.size()));
  // Every kept point is compared (a rescaled time axis changes old points too): a scan of
  // memory, far cheaper than making the graph and its data again.
  bool prefix = n > 0 && n <= m;
  for (int i = 0; prefix && i < n; ++i) prefix = same(data.at(i)->key, xs[i]) && same(data.at(i)->value, ys[i]);
  if (!prefix) {
    g->setData(xs, ys, true);
    return -1;
  }
  if (m > n) g->addData(xs.mid(n, m - n), ys.mid(n, m - n), true);
  return m - n;
}

}  // namespace

QCPGraph* ChartBase::addLine(const Series& s, QCPAxis* keyAxis, QCPAxis* valueAxis, bool faint) {
  const QVector<double>& xs = s.plotX.isEmpty() ? s.x : s.plotX;
  const QString reuseKey = seriesKey(s) + (faint ? QStringLiteral("|raw") : QString());
  QCPGraph* g = nullptr;
  for (auto it = m_reusableLines.find(reuseKey); it != m_reusableLines.end() && it.key() == reuseKey; ++it) {
    if ((*it)->keyAxis() == keyAxis && (*it)->valueAxis() == valueAxis) {
      g = *it;
      m_reusableLines.erase(it);
      break;
    }
  }
  if (g) {
    const int appended = streamInto(g, xs, s.y);
    if (appended < 0) ++m_redrawnLines;
    else m_appendedPoints += appended;
    g->addToLegend();   // no-op when it is there; the choices below take it out again
  } else {
    g = m_plot->addGraph(keyAxis, valueAxis);
    g->setData(xs, s.y, true);
    ++m_redrawnLines;
  }
  g->setProperty(kReuseKeyProperty, reuseKey);
  g->setName(s.label);
  QColor color = readable(s.color.isValid() ? s.color : textColor());
  if (faint) {
    g->setPen(QPen(this->faint(color), pen(1.0)));
    g->removeFromLegend();
    g->setProperty("hoverName", s.label + tr(" (raw)"));
  } else {
    QPen p(color, pen(2.0));
    p.setStyle(penStyleFor(s.styleIndex));
    g->setPen(p);
    const auto shape = static_cast<QCPScatterStyle::ScatterShape>(scatterShapeFor(s.styleIndex));
    // Measured points are filled; simulated ones hollow (the legend also says which).
    const QBrush fill = s.source == SeriesSource::Measured ? QBrush(color) : QBrush(colors().background);
    g->setScatterStyle(QCPScatterStyle(shape, QPen(color, pen(1.5)), fill, 7 * m_scale));
  }
  g->setProperty("deviceId", s.deviceId);
  g->setProperty("runId", s.runId);
  registerPlottable(g, seriesKey(s), s.xUnit, s.yUnit);
  if (!faint && groupedLegend() && !s.deviceId.isEmpty() && s.source != SeriesSource::Reference) {
    g->removeFromLegend();
    ensureDeviceEntry(s, keyAxis, valueAxis, false);
    ensureRunEntry(s.runId, s.styleIndex, keyAxis, valueAxis, false);
  }
  return g;
}

Qt::BrushStyle ChartBase::brushStyleFor(int styleIndex) {
  // Runs after the first are hatched (never a dense dot pattern: it reads as another colour).
  static const Qt::BrushStyle styles[] = {Qt::SolidPattern,   Qt::BDiagPattern,   Qt::FDiagPattern,
                                          Qt::DiagCrossPattern, Qt::CrossPattern,   Qt::HorPattern,
                                          Qt::VerPattern};
  return styles[styleIndex % 7];
}

namespace {

QCPAbstractPlottable* findByKey(QCustomPlot* plot, const QString& key) {
  for (int i = 0; i < plot->plottableCount(); ++i)
    if (plot->plottable(i)->property(kKeyProperty).toString() == key) return plot->plottable(i);
  return nullptr;
}

}  // namespace

void ChartBase::ensureDeviceEntry(const Series& s, QCPAxis* keyAxis, QCPAxis* valueAxis, bool bars) {
  const QString key = "device:" + s.deviceId;
  if (findByKey(m_plot, key)) return;
  static const QRegularExpression runPrefixRe(QStringLiteral("^#\\d+ · "));
  QString name = s.label;
  name.remove(runPrefixRe);
  name = name.section(QStringLiteral(" — "), 0, 0);
  const QColor color = readable(s.color.isValid() ? s.color : textColor());
  QCPAbstractPlottable* entry = nullptr;
  if (bars) {
    auto* b = new QCPBars(keyAxis, valueAxis);
    b->setBrush(QBrush(color));
    b->setPen(QPen(color.darker(115), pen(1.0)));
    entry = b;
  } else {
    auto* g = m_plot->addGraph(keyAxis, valueAxis);
    g->setPen(QPen(color, pen(2.0)));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, 7 * m_scale));
    entry = g;
  }
  entry->setName(name);
  registerPlottable(entry, key, {}, {});
}

void ChartBase::ensureRunEntry(int runId, int styleIndex, QCPAxis* keyAxis, QCPAxis* valueAxis,
                               bool bars) {
  if (runId <= 0) return;  // a series of no run (the sweep's): no run entry in the legend
  const QString key = QStringLiteral("run:%1").arg(runId);
  if (findByKey(m_plot, key)) return;
  const Run* run = m_store ? m_store->run(runId) : nullptr;
  // Named by what sets the run apart ("#3 (lr 10 · sgd)"), never elided there; runs that
  // differ in nothing shown keep a short form of their name.
  QString name = run ? runPrefix(*run) : QString();
  if (name.endsWith(QStringLiteral(" · "))) name.chop(3);
  if (!name.contains('(')) {
    const QFontMetrics metrics(chartFont(m_scale));
    name = metrics.elidedText(QStringLiteral("#%1 · %2").arg(runId).arg(run ? run->name : QString()), Qt::ElideRight,
                              static_cast<int>(170 * m_scale));
  }
  const QColor grey = readable(colors().axis);
  QCPAbstractPlottable* entry = nullptr;
  if (bars) {
    auto* b = new QCPBars(keyAxis, valueAxis);
    b->setBrush(QBrush(grey, brushStyleFor(styleIndex)));
    b->setPen(QPen(grey, pen(1.0)));
    entry = b;
  } else {
    auto* g = m_plot->addGraph(keyAxis, valueAxis);
    QPen p(grey, pen(2.0));
    p.setStyle(penStyleFor(styleIndex));
    g->setPen(p);
    g->setScatterStyle(QCPScatterStyle(static_cast<QCPScatterStyle::ScatterShape>(scatterShapeFor(styleIndex)),
                                       QPen(grey, pen(1.5)), QBrush(colors().background), 7 * m_scale));
    entry = g;
  }
  entry->setName(name);
  registerPlottable(entry, key, {}, {});
}


QVector<Series> ChartBase::referenceSeries(
    const QString& chart,
    const std::function<std::optional<double>(const ReferenceMark&, int runIndex)>& xOf,
    const QString& xUnit, const QString& yUnit, double valueScale, bool exportX) const {
  QVector<Series> out;
  // The published figures of one run only: the current run when shown, else the last shown
  // (overlaying every preset's figures would bury the chart in labels).
  const auto runs = shownRuns();
  int chosen = static_cast<int>(runs.size()) - 1;
  for (int ri = 0; ri < static_cast<int>(runs.size()); ++ri)
    if (m_store && runs[static_cast<std::size_t>(ri)]->id == m_store->currentRunId()) chosen = ri;
  for (int ri = std::max(0, chosen); ri <= chosen; ++ri) {
    const Run* run = runs[static_cast<std::size_t>(ri)];
    for (const ReferenceMark& m : run->references) {
      if (m.chart != chart) continue;
      // Runs of the same preset carry the same published figures: draw each once.
      const bool seen = std::any_of(out.cbegin(), out.cend(), [&](const Series& o) {
        return o.deviceId == m.deviceId && o.label == m.label && o.y.value(0) == m.value * valueScale;
      });
      if (seen) continue;
      const std::optional<double> x = xOf(m, ri);
      if (!x) continue;
      Series s;
      s.chartId = m_chartId;
      s.runId = run->id;
      s.runName = run->name;
      s.deviceId = m.deviceId;
      s.name = "published";
      s.label = m.label;
      s.xUnit = xUnit;
      s.yUnit = yUnit;
      s.source = SeriesSource::Reference;
      s.x = {exportX ? *x : std::numeric_limits<double>::quiet_NaN()};
      s.plotX = {*x};
      s.y = {m.value * valueScale};
      out.push_back(s);
    }
  }
  return out;
}

void ChartBase::drawReferences(const QVector<Series>& all, QCPAxis* keyAxis, QCPAxis* valueAxis) {
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
    // A light box keeps the label readable over bars and lines.
    QColor box = c.legendBackground;
    box.setAlpha(215);
    label->setBrush(QBrush(box));
    label->setFont(chartFont(m_scale * 0.9));
    label->setProperty(kKeyProperty, kReferenceKey);
    label->setProperty("referenceLabel", true);
    label->setProperty("referenceX", x);
    label->setProperty("referenceFlip", (marksAtX[x]++ % 2) == 1);
  }
}

void ChartBase::addHorizontalLine(double y, const QString& label, const QColor& color,
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
  text->position->setCoords(0.99, y);
  text->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
  text->setText(label);
  text->setColor(color);
  text->setFont(chartFont(m_scale * 0.9));
  if (style == Qt::DotLine) {
    line->setProperty(kKeyProperty, kReferenceKey);
    text->setProperty(kKeyProperty, kReferenceKey);
  }
}

bool ChartBase::languageModelView() const {
  if (!m_store) return false;
  if (const Run* current = m_store->run(m_store->currentRunId())) return tokensPerSample(*current) > 0;
  const std::vector<const Run*> runs = m_store->visibleRuns();
  return !runs.empty() && tokensPerSample(*runs.back()) > 0;
}

std::vector<const Run*> ChartBase::shownRuns() const {
  if (!m_store) return {};
  std::vector<const Run*> runs = m_store->visibleRuns();
  // Tokens and images do not share an axis: the charts show the current run's kind.
  const bool lm = languageModelView();
  std::erase_if(runs, [lm](const Run* r) { return (tokensPerSample(*r) > 0) != lm; });
  if (static_cast<int>(runs.size()) <= kMaxShownRuns) return runs;
  // A chart of hundreds of runs is unreadable and redrawing it would slow the run in progress:
  // the newest kMaxShownRuns visible runs are drawn, the current one always among them.
  std::vector<const Run*> out;
  const int current = m_store->currentRunId();
  int others = kMaxShownRuns;
  for (const Run* r : runs)
    if (r->id == current) --others;
  for (auto it = runs.rbegin(); it != runs.rend(); ++it)
    if ((*it)->id == current || others-- > 0) out.push_back(*it);
  std::reverse(out.begin(), out.end());
  return out;
}

QString ChartBase::exportDescription() const {
  QStringList lines{tr("AccelLab chart: %1 (%2)").arg(title(), chartId())};
  for (const Run* run : shownRuns()) lines << runConfigurationText(*run);
  return lines.join('\n');
}

int ChartBase::hiddenByCap() const {
  if (!m_store) return 0;
  return std::max(0, static_cast<int>(m_store->visibleRuns().size()) - kMaxShownRuns);
}

QString ChartBase::runPrefix(const Run& run) const {
  const std::vector<const Run*> runs = shownRuns();
  if (runs.size() < 2) return {};
  // Runs are told apart by what differs between them: "#3 (lr 10 · sgd) · ".
  const QStringList names = distinguishingNames(runs);
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (runs[i] == &run && !names[static_cast<qsizetype>(i)].isEmpty())
      return QStringLiteral("#%1 (%2) · ").arg(run.id).arg(names[static_cast<qsizetype>(i)]);
  return QStringLiteral("#%1 · ").arg(run.id);
}

Series ChartBase::deviceSeries(const Run& run, const DeviceResult& d, int styleIndex) const {
  Series s;
  s.chartId = chartId();
  s.runId = run.id;
  s.runName = run.name;
  s.deviceId = d.deviceId;
  s.label = runPrefix(run) + deviceLabel(d);
  s.source = d.measured ? SeriesSource::Measured : SeriesSource::Simulated;
  s.color = deviceColor(d.deviceId, theme());
  s.styleIndex = styleIndex;
  return s;
}

Qt::PenStyle ChartBase::penStyleFor(int styleIndex) {
  static const Qt::PenStyle styles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine,
                                        Qt::DashDotDotLine};
  return styles[styleIndex % 5];
}

int ChartBase::scatterShapeFor(int styleIndex) {
  static const QCPScatterStyle::ScatterShape shapes[] = {
      QCPScatterStyle::ssCircle, QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle,
      QCPScatterStyle::ssDiamond, QCPScatterStyle::ssTriangleInverted, QCPScatterStyle::ssCrossCircle,
      QCPScatterStyle::ssPlusSquare, QCPScatterStyle::ssCross, QCPScatterStyle::ssPlus};
  // 9 shapes × 5 pen styles: the first 45 runs all look different.
  return shapes[styleIndex % 9];
}

}  // namespace widgets
