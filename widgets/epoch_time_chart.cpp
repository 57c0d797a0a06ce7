#include "widgets/epoch_time_chart.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "core/data/dataset_info.h"
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
  QVector<Series> references = referenceSeries(
      "epoch_time", [](const ReferenceMark& m, int) { return std::optional<double>(m.x); }, "epoch",
      "s");
  QList<int> runIds;
  for (const Series& r : references)
    if (!runIds.contains(r.runId)) runIds << r.runId;
  for (int id : runIds)
    if (const Run* run = store() ? store()->run(id) : nullptr) scaleToSubset(references, *run);
  return out + references;
}

// A published epoch is the article's full pass over the data. On a subset a steady-state
// epoch time scales per image, so its line is drawn at the subset's size and says so. A
// first-epoch mark holds a warm-up (compilation) that does not scale: with the same device's
// steady figure it becomes that warm-up plus the scaled epoch; without one it keeps its value
// and says it measured a full epoch.
void EpochTimeChart::scaleToSubset(QVector<Series>& references, const Run& run) {
  const core::data::DatasetInfo* info = nullptr;
  for (const auto& d : core::data::datasetCatalog())
    if (d.id == run.config.datasetId) info = &d;
  const std::int64_t limit = run.config.limit;
  if (!info || limit <= 0 || info->trainSize <= 0 || limit >= info->trainSize) return;
  const double ratio = static_cast<double>(limit) / static_cast<double>(info->trainSize);
  auto steadyOf = [&](const QString& device) -> std::optional<double> {
    for (const Series& r : references)
      if (r.runId == run.id && r.deviceId == device && !r.y.isEmpty() && !std::isfinite(r.x.value(0))) return r.y[0];
    return std::nullopt;
  };
  QVector<double> scaled(references.size(), std::numeric_limits<double>::quiet_NaN());
  for (qsizetype i = 0; i < references.size(); ++i) {
    const Series& r = references[i];
    if (r.runId != run.id || r.y.isEmpty()) continue;
    if (!std::isfinite(r.x.value(0))) {
      scaled[i] = r.y[0] * ratio;
    } else if (const std::optional<double> steady = steadyOf(r.deviceId); steady && r.y[0] >= *steady) {
      scaled[i] = r.y[0] - *steady + *steady * ratio;   // the warm-up, then the subset's epoch
    }
  }
  for (qsizetype i = 0; i < references.size(); ++i) {
    Series& r = references[i];
    if (r.runId != run.id || r.y.isEmpty()) continue;
    if (!std::isfinite(scaled[i])) {
      r.label += tr(" (full epoch of %L1)").arg(info->trainSize);
      continue;
    }
    r.note = tr("published %1 for the full epoch of %L2 images, scaled per image to %L3")
                 .arg(formatSeconds(r.y[0])).arg(info->trainSize).arg(limit);
    r.label += tr(" → %1 at %L2 images").arg(formatSeconds(scaled[i])).arg(limit);
    r.y[0] = scaled[i];
  }
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
