#include "widgets/chart_deck.h"

#include <QGridLayout>
#include <QScrollArea>
#include <QVBoxLayout>

#include "widgets/accuracy_chart.h"
#include "widgets/batch_loss_chart.h"
#include "widgets/breakdown_chart.h"
#include "widgets/cost_chart.h"
#include "widgets/epoch_time_chart.h"
#include "widgets/host_check_chart.h"
#include "widgets/sweep_chart.h"
#include "widgets/throughput_chart.h"

namespace widgets {

namespace {
constexpr int kColumns = 2;
constexpr int kChartMinHeight = 400;
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
  // Presentation (large fonts): one chart per row so each stays readable.
  const int columns = m_scale > 1.2 ? 1 : kColumns;
  for (int i = 0; i < m_charts.size(); ++i) {
    ChartBase* c = m_charts[i];
    c->setMinimumHeight(static_cast<int>(kChartMinHeight * std::max(1.0, m_scale)));
    c->setVisible(true);
    m_layout->addWidget(c, i / columns, i % columns);
  }
}

}  // namespace widgets
