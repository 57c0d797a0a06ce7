#include "widgets/breakdown_chart.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <cmath>
#include <limits>

#include "widgets/device_categories.h"
#include "widgets/run_data.h"
#include "widgets/run_store.h"

namespace widgets {

namespace {

struct Component {
  const char* name;
  QString label;
  QColor color;
  double core::sim::StepBreakdown::*seconds;
};

const QVector<Component>& components() {
  static const QVector<Component> list = {
      {"compute", BreakdownChart::tr("compute"), QColor(0x00, 0x72, 0xB2),
       &core::sim::StepBreakdown::computeSeconds},
      {"memory", BreakdownChart::tr("memory"), QColor(0xE6, 0x9F, 0x00),
       &core::sim::StepBreakdown::memorySeconds},
      {"overhead", BreakdownChart::tr("overhead"), QColor(0x99, 0x99, 0x99),
       &core::sim::StepBreakdown::overheadSeconds},
      {"input", BreakdownChart::tr("input"), QColor(0x00, 0x9E, 0x73),
       &core::sim::StepBreakdown::inputSeconds},
      {"communication", BreakdownChart::tr("communication"), QColor(0xCC, 0x79, 0xA7),
       &core::sim::StepBreakdown::communicationSeconds},
  };
  return list;
}

// The step's seconds over every component (0: nothing was simulated).
double stepTotal(const core::sim::StepBreakdown& b) {
  double total = 0;
  for (const Component& c : components()) total += b.*c.seconds;
  return total;
}

QString boundText(core::sim::Bound b) {
  using core::sim::Bound;
  switch (b) {
    case Bound::Compute: return BreakdownChart::tr("compute-bound");
    case Bound::Memory: return BreakdownChart::tr("memory-bound");
    case Bound::Overhead: return BreakdownChart::tr("overhead-bound");
    case Bound::Input: return BreakdownChart::tr("input-bound");
    case Bound::Communication: return BreakdownChart::tr("communication-bound");
  }
  return {};
}

}  // namespace

BreakdownChart::BreakdownChart(QWidget* parent)
    : BarChartBase("breakdown", tr("Why: where a training step's time goes"), parent) {
  m_shareBox = new QCheckBox(tr("Share of step"), this);
  m_shareBox->setToolTip(tr("Show each part as a percentage of the step time"));
  m_shareBox->setChecked(m_share);
  controls()->addWidget(m_shareBox);
  connect(m_shareBox, &QCheckBox::toggled, this, &BreakdownChart::setShowShare);
  setExplanation(
      tr("The simulator splits each device's step time into compute (arithmetic at the "
         "achievable rate), memory (moving tensors), overhead (kernel launches, host work), "
         "input (feeding data) and communication (synchronising devices). The largest part "
         "binds: speeding up anything else barely helps. For this machine it is the "
         "prediction; see the host check for how it compares with measurement."));
  mainRect()->axis(QCPAxis::atLeft)->setLabel(tr("share of step time (%)"));
}

void BreakdownChart::setShowShare(bool share) {
  if (m_share == share) return;
  m_share = share;
  {
    const QSignalBlocker block(m_shareBox);
    m_shareBox->setChecked(share);
  }
  mainRect()->axis(QCPAxis::atLeft)
      ->setLabel(share ? tr("share of step time (%)") : tr("milliseconds per step"));
  fitToData();
  refreshNow();
}

QVector<Series> BreakdownChart::series() const {
  QVector<Series> out;
  const auto runs = shownRuns();
  const DeviceCategories cats = categories();
  for (int ri = 0; ri < static_cast<int>(runs.size()); ++ri) {
    const Run& run = *runs[static_cast<std::size_t>(ri)];
    for (const DeviceResult& d : run.devices) {
      const double px = cats.position(ri, d);
      const auto& b = d.report.breakdown;
      const double total = stepTotal(b);
      for (const Component& c : components()) {
        Series s;
        s.chartId = chartId();
        s.runId = run.id;
        s.runName = run.name;
        s.deviceId = d.deviceId;
        s.name = QStringLiteral("%1_%2").arg(c.name, m_share ? "share" : "ms");
        s.label = c.label;
        s.yUnit = m_share ? "%" : "ms";
        // The host's breakdown is the simulator's prediction for it, not a measurement.
        s.source = SeriesSource::Simulated;
        s.color = c.color;
        s.styleIndex = ri;
        s.x = {std::numeric_limits<double>::quiet_NaN()};
        s.plotX = {px};
        const double v = b.*c.seconds;
        s.y = {m_share ? (total > 0 ? 100.0 * v / total : std::numeric_limits<double>::quiet_NaN())
                       : v * 1000.0};
        if (outOfMemory(d)) s.note = tr("out of memory");
        if (total <= 0) s.note = tr("no simulation");
        out.push_back(s);
      }
    }
  }
  return out;
}

void BreakdownChart::rebuild() {
  QCPAxis* x = mainRect()->axis(QCPAxis::atBottom);
  QCPAxis* y = mainRect()->axis(QCPAxis::atLeft);
  const auto runs = shownRuns();
  DeviceCategories cats = categories();
  QStringList notes;
  for (int ri = 0; ri < static_cast<int>(runs.size()); ++ri) {
    const Run& run = *runs[static_cast<std::size_t>(ri)];
    for (const DeviceResult& d : run.devices) {
      const double px = cats.position(ri, d);
      QString sub;
      if (stepTotal(d.report.breakdown) <= 0 && !outOfMemory(d)) {
        sub = tr("not simulated");   // nothing predicted: no bound to name
      } else {
        sub = d.measured ? tr("predicted, ") : QString();
        sub += outOfMemory(d) ? tr("out of memory") : boundText(d.report.bound);
      }
      cats.setSubLabel(px, sub);
      if (!d.report.explanation.empty())
        notes << QStringLiteral("%1%2: %3").arg(runPrefix(run), deviceShortName(d),
                                                QString::fromStdString(d.report.explanation));
    }
  }
  const QVector<Series> all = series();
  // One bars object per (run, component), stacked in component order.
  const int nComp = static_cast<int>(components().size());
  for (int ri = 0; ri < static_cast<int>(runs.size()); ++ri) {
    if (groupedLegend()) ensureRunEntry(runs[static_cast<std::size_t>(ri)]->id, ri, x, y, true);
    QCPBars* below = nullptr;
    for (int ci = 0; ci < nComp; ++ci) {
      const Component& c = components()[ci];
      auto* bars = new QCPBars(x, y);
      bars->setName(c.label);
      bars->setWidth(cats.barWidth() * 0.92);
      const QColor color = readable(c.color);
      bars->setPen(QPen(color.darker(120), pen(1.0)));
      bars->setBrush(QBrush(color, brushStyleFor(ri)));
      bars->setStackingGap(0);
      if (below) bars->moveAbove(below);
      below = bars;
      // The legend lists each part once; clicking it hides the part in every run.
      if (ri > 0) bars->removeFromLegend();
      registerPlottable(bars, QStringLiteral("0/breakdown_%1/").arg(c.name), "", m_share ? "%" : "ms");
      for (const Series& s : all) {
        if (s.styleIndex != ri || !s.name.startsWith(c.name)) continue;
        if (!s.y.isEmpty() && std::isfinite(s.y[0])) bars->addData(s.plotX[0], s.y[0]);
      }
    }
  }
  // The step time on top of each stack (in ms also in the share view).
  for (int ri = 0; ri < static_cast<int>(runs.size()); ++ri) {
    for (const DeviceResult& d : runs[static_cast<std::size_t>(ri)]->devices) {
      const double ms = d.report.stepSeconds * 1000.0;
      double stackMs = 0;
      for (const Component& c : components()) stackMs += d.report.breakdown.*c.seconds * 1000.0;
      if (ms <= 0 || stackMs <= 0) continue;
      // The parts may overlap in time (the step is less than their sum): label the step.
      addValueLabel(cats.position(ri, d), m_share ? 100.0 : stackMs, formatValue(ms) + tr(" ms"), x, y, cats.barWidth());
    }
  }
  cats.applyTo(x);
  m_categories = cats.size();
  setNotes(notes.join('\n'));
}

void BreakdownChart::adjustFit() {
  fitBars(mainRect(), m_categories);
  if (m_share) mainRect()->axis(QCPAxis::atLeft)->setRange(0, shownRuns().size() > 1 ? 125 : 108);
}

}  // namespace widgets
