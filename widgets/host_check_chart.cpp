#include "widgets/host_check_chart.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "core/bridge/run_prediction.h"
#include "widgets/palette.h"
#include "widgets/run_data.h"
#include "widgets/run_store.h"

namespace widgets {

namespace {

const DeviceResult* measuredDevice(const Run& run) {
  for (const DeviceResult& d : run.devices)
    if (d.measured) return &d;
  return nullptr;
}

// Median step time of the run's batches, skipping the first few (warm-up) when there are
// enough of them. NaN when there are none.
double typicalStepSeconds(const Run& run) {
  std::vector<double> steps;
  for (const auto& b : run.batches)
    if (b.stepSeconds > 0) steps.push_back(b.stepSeconds);
  if (steps.empty()) return std::nan("");
  if (steps.size() > 6) steps.erase(steps.begin(), steps.begin() + 3);
  std::nth_element(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(steps.size() / 2),
                   steps.end());
  return steps[steps.size() / 2];
}

}  // namespace

HostCheckChart::HostCheckChart(QWidget* parent)
    : ChartBase("host_check", tr("Host check: predicted vs measured step time"), parent) {
  setExplanation(
      tr("The simulator's prediction for this machine (dashed) against what training "
         "measured here: every step (faint) and the mean of each epoch (markers). Close "
         "agreement on the one device we can measure is the reason to trust the simulated "
         "ones; the ratio is in the note."));
  mainRect()->axis(QCPAxis::atBottom)->setLabel(tr("training step"));
  QSharedPointer<QCPAxisTickerFixed> steps(new QCPAxisTickerFixed);   // whole steps only
  steps->setTickStep(1);
  steps->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  mainRect()->axis(QCPAxis::atBottom)->setTicker(steps);
  mainRect()->axis(QCPAxis::atLeft)->setLabel(tr("milliseconds per step"));
}

QVector<Series> HostCheckChart::series() const {
  QVector<Series> out;
  const auto runs = shownRuns();
  for (int ri = 0; ri < static_cast<int>(runs.size()); ++ri) {
    const Run& run = *runs[static_cast<std::size_t>(ri)];
    const DeviceResult* host = measuredDevice(run);
    if (!host) continue;
    Series base;
    base.chartId = chartId();
    base.runId = run.id;
    base.runName = run.name;
    base.deviceId = host->deviceId;
    base.xUnit = "step";
    base.yUnit = "ms";
    base.color = deviceColor(host->deviceId, theme());
    base.styleIndex = ri;

    Series steps = base;
    steps.name = "measured_step_ms";
    steps.label = runPrefix(run) + deviceShortName(*host) + tr(" (measured, every step)");
    steps.source = SeriesSource::Measured;
    for (const auto& b : run.batches) {
      steps.x.push_back(static_cast<double>(b.step));
      steps.y.push_back(b.stepSeconds * 1000.0);
    }

    Series epochs = base;
    epochs.name = "measured_epoch_mean_step_ms";
    epochs.label = runPrefix(run) + deviceShortName(*host) + tr(" (measured, epoch mean)");
    epochs.source = SeriesSource::Measured;
    const QVector<double> perEpoch = measuredStepSecondsPerEpoch(run);
    for (int i = 0; i < perEpoch.size(); ++i) {
      // Placed at the epoch's last step.
      const int epoch = run.epochs[static_cast<std::size_t>(i)].epoch;
      double lastStep = 0;
      for (const auto& b : run.batches)
        if (b.epoch == epoch) lastStep = std::max(lastStep, static_cast<double>(b.step));
      if (lastStep <= 0 && run.config.batch > 0)   // no batch samples: estimate
        lastStep = (i + 1) * std::ceil(static_cast<double>(run.epochs[static_cast<std::size_t>(i)].images) /
                                       run.config.batch);
      epochs.x.push_back(lastStep);
      epochs.y.push_back(perEpoch[i] * 1000.0);
    }

    Series predicted = base;
    predicted.name = "predicted_step_ms";
    predicted.label = runPrefix(run) + deviceShortName(*host) + tr(" (simulated prediction)");
    predicted.source = SeriesSource::Simulated;
    if (host->report.stepSeconds > 0) {
      double lastStep = 1;
      for (double v : steps.x) lastStep = std::max(lastStep, v);
      for (double v : epochs.x) lastStep = std::max(lastStep, v);
      predicted.x = {1, lastStep};
      predicted.y = {host->report.stepSeconds * 1000.0, host->report.stepSeconds * 1000.0};
    } else {
      predicted.note = tr("no prediction");
    }
    out << steps << epochs << predicted;
  }
  return out;
}

void HostCheckChart::rebuild() {
  QCPAxis* x = mainRect()->axis(QCPAxis::atBottom);
  QCPAxis* y = mainRect()->axis(QCPAxis::atLeft);
  const QVector<Series> all = series();
  for (const Series& s : all) {
    if (s.name == "measured_step_ms") {
      Series keyed = s;   // hides with the epoch means
      keyed.name = "measured_epoch_mean_step_ms";
      QCPGraph* g = addLine(keyed, x, y, /*faint=*/true);
      g->setLineStyle(QCPGraph::lsNone);
      const QColor col = faint(s.color);
      g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, col, 3 * presentationScale()));
    } else if (s.name == "predicted_step_ms") {
      QCPGraph* g = addLine(s, x, y);
      QPen p = g->pen();
      p.setStyle(Qt::DashLine);
      g->setPen(p);
      g->setScatterStyle(QCPScatterStyle::ssNone);
    } else {
      addLine(s, x, y);
    }
  }
  QStringList notes;
  for (const Run* run : shownRuns()) {
    const DeviceResult* host = measuredDevice(*run);
    if (!host) continue;
    const double measured = typicalStepSeconds(*run);
    const double predicted = host->report.stepSeconds;
    if (std::isfinite(measured) && measured > 0 && predicted > 0) {
      // The project's one sign: simulated throughput / measured throughput - 1, in words.
      const double error = measured / predicted - 1;
      notes << tr("%1%2 (%3%4%; median step %5 measured, %6 predicted, batch %7).")
                   .arg(runPrefix(*run), QString::fromStdString(core::bridge::errorInWords(error)))
                   .arg(error >= 0 ? "+" : "")
                   .arg(error * 100, 0, 'f', 1)
                   .arg(formatSeconds(measured), formatSeconds(predicted))
                   .arg(run->config.batch);
    }
  }
  if (!notes.isEmpty())
    notes << tr("The prediction rests on this machine's measured rates: Hardware > Re-measure This Machine takes them "
                "again (on an idle machine) for the runs after it.");
  setNotes(notes.join('\n'));
}

void HostCheckChart::adjustFit() {
  QCPAxis* x = mainRect()->axis(QCPAxis::atBottom);
  QCPAxis* y = mainRect()->axis(QCPAxis::atLeft);
  if (x->range().lower < 0) x->setRangeLower(0);
  y->setRangeLower(0);   // the gap between prediction and measurement at its true scale
}

QString HostCheckChart::emptyText() const {
  return tr("No run measured on this machine yet: this chart needs a run that trains here.");
}

}  // namespace widgets
