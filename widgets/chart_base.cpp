#include "widgets/chart_base.h"

#include <qcustomplot.h>

#include <QMap>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <limits>

#include "widgets/palette.h"
#include "widgets/chart_keys.h"
#include "widgets/run_comparison.h"
#include "widgets/run_data.h"
#include "widgets/run_store.h"

// ChartBase: the run store, streamed lines, overlaid runs' legend entries and references.
namespace widgets {

using namespace chart_keys;

void ChartBase::setStore(RunStore* store) {
  if (m_store == store) return;
  if (m_store) disconnect(m_store, nullptr, this, nullptr);
  m_store = store;
  if (m_store) {
    connect(m_store, &RunStore::runAdded, this, &ChartBase::scheduleRefresh);
    connect(m_store, &RunStore::runRemoved, this, &ChartBase::scheduleRefresh);
    connect(m_store, &RunStore::runChanged, this, &ChartBase::scheduleRefresh);
    connect(m_store, &RunStore::currentRunChanged, this, &ChartBase::scheduleRefresh);
    connect(m_store, &RunStore::destroyed, this, [this] { m_store = nullptr; });
  }
  scheduleRefresh();
}

void ChartBase::clearForRebuild() {
  m_reusableLines.clear();
  m_appendedPoints = 0;
  m_redrawnLines = 0;
  for (int i = plot()->plottableCount() - 1; i >= 0; --i) {
    QCPAbstractPlottable* p = plot()->plottable(i);
    const QString reuseKey = p->property(kReuseKeyProperty).toString();
    auto* graph = qobject_cast<QCPGraph*>(p);
    if (graph && !reuseKey.isEmpty()) m_reusableLines.insert(reuseKey, graph);
    else plot()->removePlottable(p);
  }
}

void ChartBase::afterRebuild() {
  QCustomPlot* plot = this->plot();
  for (QCPGraph* stale : std::as_const(m_reusableLines)) plot->removePlottable(stale);
  m_reusableLines.clear();
  // The legend in the order the plottables were made this time (as if drawn afresh).
  for (QCPAbstractPlottable* p : registeredPlottables()) {
    if (plot->legend->hasItemWithPlottable(p)) {
      p->removeFromLegend();
      p->addToLegend();
    }
  }
  // Run entries (overlaid runs) go after the device entries.
  for (int i = 0; i < plot->plottableCount(); ++i) {
    QCPAbstractPlottable* p = plot->plottable(i);
    if (p->property(kKeyProperty).toString().startsWith("run:")) {
      p->removeFromLegend();
      p->addToLegend();
    }
  }
  setLegendCaption(runCaption());
  if (const int left = hiddenByCap(); left > 0) {
    auto* text = new QCPItemText(plot);
    text->setClipToAxisRect(false);
    text->position->setType(QCPItemPosition::ptAxisRectRatio);
    text->position->setAxisRect(mainRect());
    text->position->setCoords(1.0, 0.0);
    text->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    text->setFont(chartFont(0.85 * presentationScale()));
    text->setText(tr("newest %1 runs drawn; %2 more ticked in Runs").arg(kMaxShownRuns).arg(left));
  }
}

QString ChartBase::emptyText() const {
  return tr("No runs to show yet: press Run, or tick a run in the runs list.");
}


QString ChartBase::seriesKey(const Series& s) {
  if (s.source == SeriesSource::Reference) return kReferenceKey;
  return QStringLiteral("%1/%2/%3").arg(s.runId).arg(s.name, s.deviceId);
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

bool ChartBase::hasValue(const Series& s) {
  return std::any_of(s.y.begin(), s.y.end(), [](double v) { return std::isfinite(v); });
}

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
    g = plot()->addGraph(keyAxis, valueAxis);
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
    g->setScatterStyle(QCPScatterStyle(shape, QPen(color, pen(1.5)), fill, 7 * presentationScale()));
  }
  g->setProperty("deviceId", s.deviceId);
  g->setProperty("runId", s.runId);
  registerPlottable(g, seriesKey(s), s.xUnit, s.yUnit);
  if (!faint && groupedLegend() && !s.deviceId.isEmpty() && s.source != SeriesSource::Reference) {
    g->removeFromLegend();
    if (hasValue(s)) {
      ensureDeviceEntry(s, keyAxis, valueAxis, false);
      ensureRunEntry(s.runId, s.styleIndex, keyAxis, valueAxis, false);
    }
  } else if (!hasValue(s)) {
    g->removeFromLegend();   // a line with nothing drawn (a run that diverged at once) names nothing
  }
  return g;
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
  if (findByKey(plot(), key)) return;
  static const QRegularExpression runPrefixRe(QStringLiteral("^#\\d+ · "));
  QString name = s.label;
  name.remove(runPrefixRe);   // the device once for every run
  name = name.section(QStringLiteral(" — "), 0, 0);
  const QColor color = readable(s.color.isValid() ? s.color : textColor());
  QCPAbstractPlottable* entry = nullptr;
  if (bars) {
    auto* b = new QCPBars(keyAxis, valueAxis);
    b->setBrush(QBrush(color));
    b->setPen(QPen(color.darker(115), pen(1.0)));
    entry = b;
  } else {
    auto* g = plot()->addGraph(keyAxis, valueAxis);
    g->setPen(QPen(color, pen(2.0)));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, 7 * presentationScale()));
    entry = g;
  }
  entry->setName(name);
  registerPlottable(entry, key, {}, {});
}

void ChartBase::ensureRunEntry(int runId, int styleIndex, QCPAxis* keyAxis, QCPAxis* valueAxis,
                               bool bars) {
  if (runId <= 0) return;  // a series of no run (the sweep's): no run entry in the legend
  const QString key = QStringLiteral("run:%1").arg(runId);
  if (findByKey(plot(), key)) return;
  // Named by its number; the legend's caption says what sets it apart (runCaption).
  const QString name = QStringLiteral("#%1").arg(runId);
  const QColor grey = readable(colors().axis);
  QCPAbstractPlottable* entry = nullptr;
  if (bars) {
    auto* b = new QCPBars(keyAxis, valueAxis);
    b->setBrush(QBrush(grey, brushStyleFor(styleIndex)));
    b->setPen(QPen(grey, pen(1.0)));
    entry = b;
  } else {
    auto* g = plot()->addGraph(keyAxis, valueAxis);
    QPen p(grey, pen(2.0));
    p.setStyle(penStyleFor(styleIndex));
    g->setPen(p);
    g->setScatterStyle(QCPScatterStyle(static_cast<QCPScatterStyle::ScatterShape>(scatterShapeFor(styleIndex)),
                                       QPen(grey, pen(1.5)), QBrush(colors().background), 7 * presentationScale()));
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
      s.chartId = chartId();
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



bool ChartBase::languageModelView() const {
  if (!m_store) return false;
  if (const Run* current = m_store->run(m_store->currentRunId())) return tokensPerSample(*current) > 0;
  const std::vector<const Run*> runs = m_store->visibleRuns();
  return !runs.empty() && tokensPerSample(*runs.back()) > 0;
}

bool ChartBase::someRunTrainedHere() const {
  const auto runs = shownRuns();
  if (runs.empty()) return true;
  return std::any_of(runs.begin(), runs.end(), [](const Run* r) {
    return !r->epochs.empty() || std::any_of(r->devices.begin(), r->devices.end(), [](const auto& d) { return d.measured; });
  });
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
  QStringList lines{ChartFrame::exportDescription()};
  for (const Run* run : shownRuns()) lines << runConfigurationText(*run);
  return lines.join('\n');
}

int ChartBase::hiddenByCap() const {
  if (!m_store) return 0;
  return std::max(0, static_cast<int>(m_store->visibleRuns().size()) - kMaxShownRuns);
}

QString ChartBase::runPrefix(const Run& run) const {
  if (shownRuns().size() < 2) return {};
  return QStringLiteral("#%1 · ").arg(run.id);
}

QStringList ChartBase::runCaption() const {
  const std::vector<const Run*> runs = shownRuns();
  if (runs.size() < 2) return {};
  // Only the runs the legend names (a run with nothing on this chart is not in it).
  QStringList legendNames;
  for (int i = 0; i < plot()->legend->itemCount(); ++i)
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot()->legend->item(i))) legendNames << item->plottable()->name();
  const QStringList differs = distinguishingNames(runs);
  QStringList parts;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const QString number = QStringLiteral("#%1").arg(runs[i]->id);
    const bool named = std::any_of(legendNames.begin(), legendNames.end(), [&](const QString& n) {
      return n == number || n.startsWith(number + QStringLiteral(" · "));
    });
    if (!named) continue;
    const QString& d = differs[static_cast<qsizetype>(i)];
    // Runs that differ in nothing the comparison shows are told by their names.
    parts << QStringLiteral("%1: %2").arg(number, d.isEmpty() ? runs[i]->name : d);
  }
  return parts;
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



}  // namespace widgets
