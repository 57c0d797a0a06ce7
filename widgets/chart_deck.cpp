#include "widgets/chart_deck.h"

#include <QGridLayout>
#include <QResizeEvent>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>
#include <algorithm>

#include "widgets/accuracy_chart.h"
#include "widgets/batch_loss_chart.h"
#include "widgets/breakdown_chart.h"
#include "widgets/cost_chart.h"
#include "widgets/epoch_time_chart.h"
#include "widgets/host_check_chart.h"
#include "widgets/run_store.h"
#include "widgets/sweep_chart.h"
#include "widgets/throughput_chart.h"

namespace widgets {

namespace {
constexpr int kColumns = 2;
constexpr int kChartMinHeight = 400;
// The least height a chart is squeezed to so a chosen set fits without scrolling: title,
// tick labels, axis titles and a one-row legend still fit (checked at 1280x800, 4 charts).
constexpr int kChartFitHeight = 250;
}  // namespace

ChartDeck::ChartDeck(RunStore* store, QWidget* parent) : QWidget(parent) {
  setObjectName("chartDeck");
  m_sweep = new SweepChart;
  m_charts = {new EpochTimeChart, new AccuracyChart, new BatchLossChart, new ThroughputChart,
              new CostChart,      new BreakdownChart, m_sweep,           new HostCheckChart};
  m_grid = new QWidget;
  m_layout = new QGridLayout(m_grid);
  m_layout->setContentsMargins(2, 2, 2, 2);
  m_layout->setSpacing(6);
  if (store) {
    connect(store, &RunStore::runAdded, this, &ChartDeck::onRunsChanged);
    connect(store, &RunStore::runRemoved, this, &ChartDeck::onRunsChanged);
    connect(store, &RunStore::runChanged, this, &ChartDeck::onRunsChanged);
    connect(store, &RunStore::currentRunChanged, this, &ChartDeck::onRunsChanged);
  }
  for (ChartBase* chart : m_charts) {
    chart->setParent(m_grid);
    chart->setStore(store);
    chart->setMinimumHeight(kChartMinHeight);
    connect(chart, &ChartBase::maximiseRequested, this,
            [this, chart](bool on) { maximise(on ? chart : nullptr); });
  }
  m_scroll = new QScrollArea(this);
  m_scroll->setWidgetResizable(true);
  m_scroll->setFrameShape(QFrame::NoFrame);
  m_scroll->setWidget(m_grid);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_scroll);
  m_measuredShown = m_charts.front()->someRunTrainedHere();
  relayout();
}

ChartBase* ChartDeck::chart(const QString& chartId) const {
  for (ChartBase* c : m_charts)
    if (c->chartId() == chartId) return c;
  return nullptr;
}

void ChartDeck::setTheme(ChartTheme theme) {
  for (ChartBase* c : m_charts) c->setTheme(theme);
}

void ChartDeck::setPresentationScale(double scale) {
  m_scale = scale;
  for (ChartBase* c : m_charts) c->setPresentationScale(scale);
  relayout();
}

void ChartDeck::refreshAll() {
  for (ChartBase* c : m_charts) c->refreshNow();
}

void ChartDeck::maximise(ChartBase* chart) {
  if (chart && !m_charts.contains(chart)) return;
  if (m_maximised == chart) return;
  m_maximised = chart;
  for (ChartBase* c : m_charts) c->setMaximised(c == chart);
  relayout();
  Q_EMIT maximisedChanged(chart);
}

void ChartDeck::setShownCharts(const QStringList& chartIds) {
  QList<ChartBase*> hidden;
  if (!chartIds.isEmpty())
    for (ChartBase* c : m_charts)
      if (!chartIds.contains(c->chartId())) hidden << c;
  if (hidden.size() == m_charts.size()) hidden.clear();  // nothing known: show everything
  if (hidden == m_hidden) return;
  m_hidden = hidden;
  if (m_maximised && m_hidden.contains(m_maximised)) maximise(nullptr);
  relayout();
  Q_EMIT shownChartsChanged(shownCharts());
}

QStringList ChartDeck::shownCharts() const {
  QStringList ids;
  for (ChartBase* c : m_charts)
    if (!m_hidden.contains(c)) ids << c->chartId();
  return ids;
}

bool ChartDeck::isShown(const ChartBase* chart) const {
  return std::find(m_hidden.begin(), m_hidden.end(), chart) == m_hidden.end();
}

bool ChartDeck::isInGrid(const ChartBase* chart) const {
  return isShown(chart) && (m_measuredShown || !chart->measuredOnly());
}

void ChartDeck::onRunsChanged() {
  const bool measured = m_charts.front()->someRunTrainedHere();
  if (measured == m_measuredShown) return;
  m_measuredShown = measured;
  relayout();
}

int ChartDeck::twoColumnWidth() const {
  int chart = 0;   // the widest least width of the charts the grid may show
  for (const ChartBase* c : m_charts)
    if (isInGrid(c)) chart = std::max(chart, c->minimumSizeHint().width());
  const QMargins m = m_layout->contentsMargins();
  return 2 * chart + m_layout->spacing() + m.left() + m.right() + m_scroll->verticalScrollBar()->sizeHint().width();
}

void ChartDeck::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  const bool wasTwo = event->oldSize().width() >= twoColumnWidth();
  const bool isTwo = event->size().width() >= twoColumnWidth();
  if (event->size().height() != event->oldSize().height() || wasTwo != isTwo) relayout();
}

void ChartDeck::relayout() {
  for (ChartBase* c : m_charts) m_layout->removeWidget(c);
  if (m_maximised) {
    for (ChartBase* c : m_charts) c->setVisible(c == m_maximised);
    m_maximised->setMinimumHeight(0);
    m_layout->addWidget(m_maximised, 0, 0);
    m_scroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    return;
  }
  m_scroll->setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  // Presentation (large fonts), or a deck narrower than two charts: one chart per row, so each
  // stays whole (never a sideways scroll bar over a cut chart).
  const int columns = m_scale > 1.2 || width() < twoColumnWidth() ? 1 : kColumns;
  QList<ChartBase*> shown;
  for (ChartBase* c : m_charts) {
    c->setVisible(isInGrid(c));
    if (isInGrid(c)) shown << c;
  }
  // Rows of the usual height; when the chosen charts would just miss the deck's height, they
  // are made shorter (never below kChartFitHeight) so the whole set is in view.
  const int rows = (static_cast<int>(shown.size()) + columns - 1) / columns;
  const double scale = std::max(1.0, m_scale);
  int minHeight = static_cast<int>(kChartMinHeight * scale);
  // The scroll area fills the deck (no frame, no margins), and the deck's own height is current
  // in its resizeEvent, before the viewport has followed.
  const int available = height() - m_layout->contentsMargins().top() -
                        m_layout->contentsMargins().bottom() - m_layout->spacing() * std::max(0, rows - 1);
  const int fitHeight = static_cast<int>(kChartFitHeight * scale);
  if (rows > 0 && rows * minHeight > available && rows * fitHeight <= available)
    minHeight = available / rows - 2;  // the grid rounds row heights up by a pixel or two
  for (int i = 0; i < shown.size(); ++i) {
    shown[i]->setMinimumHeight(minHeight);
    m_layout->addWidget(shown[i], i / columns, i % columns);
  }
}

}  // namespace widgets
