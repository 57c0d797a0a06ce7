#include "widgets/epoch_time_chart.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "widgets/palette.h"
#include "widgets/run_data.h"
#include "widgets/run_store.h"

namespace widgets {

EpochTimeChart::EpochTimeChart(QWidget* parent)
    : ChartBase("epoch_time", tr("Time per epoch"), parent) {
  enableLogYToggle();
  setExplanation(
      tr("Seconds per training epoch on each device: measured on this machine, simulated for "
         "the others. A high first point is compilation or warm-up (TPUs compile the graph "
         "in epoch 1). Use log y when devices differ by 10× or more."));
  QCPAxisRect* rect = mainRect();
  rect->axis(QCPAxis::atBottom)->setLabel(tr("epoch"));
  rect->axis(QCPAxis::atLeft)->setLabel(tr("seconds per epoch"));
  QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
  ticker->setTickStep(1);
  ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  rect->axis(QCPAxis::atBottom)->setTicker(ticker);
}

QVector<Series> EpochTimeChart::series() const {
  QVector<Series> out;
  const auto runs = shownRuns();
  for (int ri = 0; ri < static_cast<int>(runs.size()); ++ri) {
    const Run& run = *runs[static_cast<std::size_t>(ri)];
    for (const DeviceResult& d : run.devices) {
      Series s = deviceSeries(run, d, ri);
      s.name = "epoch_seconds";
      s.xUnit = "epoch";
      s.yUnit = "s";
      if (outOfMemory(d)) {
        s.note = tr("out of memory");
      } else {
        const QVector<double> secs = deviceEpochSeconds(run, d);
        for (int e = 0; e < secs.size(); ++e) {
          s.x.push_back(e + 1);
          s.y.push_back(secs[e]);
        }
      }
      out.push_back(s);
    }
  }
  out += referenceSeries(
      "epoch_time", [](const ReferenceMark& m, int) { return std::optional<double>(m.x); }, "epoch",
      "s");
  return out;
}

void EpochTimeChart::rebuild() {
  QCPAxis* x = mainRect()->axis(QCPAxis::atBottom);
  QCPAxis* y = mainRect()->axis(QCPAxis::atLeft);
  const QVector<Series> all = series();
  QStringList warmups, oom;
  m_maxEpoch = 1;
  for (const Series& s : all) {
    for (double e : s.x)
      if (std::isfinite(e)) m_maxEpoch = std::max(m_maxEpoch, e);
    if (s.source == SeriesSource::Reference) continue;
    // Overlaid runs of the same devices repeat the same figures: say each once.
    const QString device = s.label.mid(s.label.indexOf(QStringLiteral(" · ")) < 0
                                           ? 0
                                           : s.label.indexOf(QStringLiteral(" · ")) + 3);
    if (!s.note.isEmpty()) {
      Series marked = s;
      marked.label = s.label + tr(" — out of memory");
      addLine(marked, x, y);
      if (!oom.contains(device)) oom << device;
      continue;
    }
    addLine(s, x, y);
    // Compilation / warm-up: the first epoch well above the steady state.
    if (s.y.size() >= 2) {
      QVector<double> rest(s.y.begin() + 1, s.y.end());
      std::sort(rest.begin(), rest.end());
      const double median = rest[rest.size() / 2];
      const QString text =
          tr("%1 %2 → %3").arg(device, formatSeconds(s.y[0]), formatSeconds(median));
      if (median > 0 && s.y[0] > 1.3 * median && !warmups.contains(text)) warmups << text;
    }
  }
  QStringList notes;
  if (!warmups.isEmpty())
    notes << tr("First epoch includes compilation / warm-up: %1.").arg(warmups.join("; "));
  if (!oom.isEmpty())
    notes << tr("Does not fit in memory at this batch: %1.").arg(oom.join(", "));
  drawReferences(all, x, y);
  setNotes(notes.join('\n'));
}

void EpochTimeChart::adjustFit() {
  QCPAxis* x = mainRect()->axis(QCPAxis::atBottom);
  QCPAxis* y = mainRect()->axis(QCPAxis::atLeft);
  x->setRange(0.5, m_maxEpoch + 0.5);
  if (y->scaleType() == QCPAxis::stLinear) y->setRangeLower(0);
}

}  // namespace widgets
