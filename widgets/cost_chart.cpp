#include "widgets/cost_chart.h"

#include <qcustomplot.h>

#include <QLocale>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/sim/pricing.h"
#include "widgets/device_categories.h"
#include "widgets/palette.h"
#include "widgets/run_data.h"
#include "widgets/run_store.h"

namespace widgets {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// USD per million images and per run for one device of a run; NaN with a note when missing.
struct Cost {
  double perMillion = kNaN;
  double perRun = kNaN;
  QString note;
};

Cost costOf(const Run& run, const DeviceResult& d) {
  Cost c;
  if (outOfMemory(d)) {
    c.note = CostChart::tr("out of memory");
    return c;
  }
  if (!d.report.priceKnown || d.report.usdPerHour <= 0) {
    c.note = QString::fromStdString(core::sim::noPriceText(d.report.priceDate));  // "no price (none found as of ...)"
    return c;
  }
  // A language model is priced per million tokens (a sample is tokensPerSample of them).
  const double perSample = std::max(1, tokensPerSample(run));
  if (!d.measured) {
    c.perMillion = d.report.usdPerMillionImages / perSample;
    c.perRun = d.report.usdPerRun;
    return c;
  }
  // Measured device with a price: cost from the measured speed and time.
  const double ips = measuredImagesPerSecond(run) * perSample;
  if (std::isfinite(ips) && ips > 0) c.perMillion = d.report.usdPerHour / 3600.0 / ips * 1e6;
  double seconds = 0;
  for (double s : deviceEpochSeconds(run, d)) seconds += s;
  if (seconds > 0) c.perRun = d.report.usdPerHour * seconds / 3600.0;
  if (!std::isfinite(c.perMillion)) c.note = CostChart::tr("no data yet");
  return c;
}

}  // namespace

CostChart::CostChart(QWidget* parent) : BarChartBase("cost", tr("Cost"), parent) {
  enableLogYToggle();
  setExplanation(
      tr("What the training costs on rented hardware: USD per million images (left) and for "
         "the whole run (right), from each device's hourly price (on-demand or preemptible, as "
         "chosen, or the price you typed in the device table, marked \"your price\") and its "
         "speed. A faster device can be dearer per hour yet cheaper per image. Devices without a "
         "known price say so. Under the chart: each device's energy and CO₂e per run, estimates "
         "from its board power, the data centre's PUE and the grid's carbon intensity (world "
         "average and industry-average PUE unless set)."));
  // Row 1 of the plot layout holds both panels side by side.
  QCPAxisRect* left = mainRect();
  plot()->plotLayout()->take(left);
  auto* panels = new QCPLayoutGrid;
  plot()->plotLayout()->addElement(1, 0, panels);
  panels->addElement(0, 0, left);
  m_runRect = new QCPAxisRect(plot());
  panels->addElement(0, 1, m_runRect);
  panels->setColumnSpacing(static_cast<int>(12));
  left->axis(QCPAxis::atLeft)->setLabel(tr("USD per million images"));
  m_runRect->axis(QCPAxis::atLeft)->setLabel(tr("USD per run"));
  for (QCPAxis* a : m_runRect->axes()) a->setLayer("axes");
  m_runRect->axis(QCPAxis::atLeft)->grid()->setLayer("grid");
  m_runRect->axis(QCPAxis::atBottom)->grid()->setLayer("grid");
}

QVector<Series> CostChart::series() const {
  QVector<Series> out;
  const auto runs = shownRuns();
  const DeviceCategories cats = categories();
  for (int ri = 0; ri < static_cast<int>(runs.size()); ++ri) {
    const Run& run = *runs[static_cast<std::size_t>(ri)];
    for (const DeviceResult& d : run.devices) {
      const Cost c = costOf(run, d);
      Series s = deviceSeries(run, d, ri);
      s.yUnit = "USD";
      s.x = {kNaN};
      s.plotX = {cats.position(ri, d)};
      s.note = c.note;
      // A price the user typed is theirs, not the catalog's: the legend and the hover say so.
      if (!d.measured && d.report.priceKnown && d.report.priceKind == core::sim::PriceKind::User)
        s.label += tr(" (your price)");
      s.name = tokensPerSample(run) > 0 ? "usd_per_million_tokens" : "usd_per_million_images";
      s.y = {c.perMillion};
      out.push_back(s);
      s.name = "usd_per_run";
      s.y = {c.perRun};
      if (s.note.isEmpty() && !std::isfinite(c.perRun)) s.note = tr("no data yet");
      out.push_back(s);
    }
  }
  const auto place = [&](const ReferenceMark& m, int ri) { return cats.position(ri, m.deviceId); };
  QVector<Series> perMillion =
      referenceSeries("cost_per_million", place, "", "USD", 1.0, /*exportX=*/false);
  for (auto& s : perMillion) s.name = "published_usd_per_million_images";
  QVector<Series> perRun = referenceSeries("cost", place, "", "USD", 1.0, /*exportX=*/false);
  for (auto& s : perRun) s.name = "published_usd_per_run";
  return out + perMillion + perRun;
}

void CostChart::rebuild() {
  QCPAxisRect* left = mainRect();
  left->axis(QCPAxis::atLeft)->setLabel(languageModelView() ? tr("USD per million tokens") : tr("USD per million images"));
  const auto runs = shownRuns();
  const DeviceCategories cats = categories();
  const QVector<Series> all = series();
  QStringList notes;
  // Energy and CO2e sit beside the cost: an estimate per simulated device and run.
  for (const Run* run : runs)
    for (const DeviceResult& d : run->devices) {
      const auto& e = d.report.energy;
      if (d.measured || !e.known || outOfMemory(d)) continue;
      QString line = tr("%1: about %2 kWh").arg(d.deviceId, formatValue(e.kwh));
      if (d.report.config.energy.gridKgCo2ePerKwh > 0)
        line += tr(", %1 kg CO₂e").arg(formatValue(e.co2eKg));
      notes << line + tr(" per run (estimate: %1 × PUE %2)")
                          .arg(e.typicalDraw ? tr("training draw") : tr("board power"),
                               QLocale().toString(d.report.config.energy.pue, 'g', 3));
    }
  QVector<Series> leftRefs, rightRefs;
  for (const Series& s : all) {
    if (s.source == SeriesSource::Reference) {
      (s.name.contains("per_run") ? rightRefs : leftRefs).push_back(s);
      continue;
    }
    const bool perRun = s.name == "usd_per_run";
    QCPAxisRect* rect = perRun ? m_runRect : left;
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    // Both bars of a device share one key and one legend entry.
    Series keyed = s;
    keyed.name = "cost";
    QCPBars* bars = addBar(keyed, x, y, cats.barWidth());
    bars->setProperty("hoverName", s.label);
    if (perRun) bars->removeFromLegend();
    const double px = s.plotX.value(0);
    if (!s.note.isEmpty()) {
      addMissingLabel(px, s.note, x, y);
      if (!perRun && s.note != tr("no data yet"))
        notes << tr("%1: %2.").arg(s.label, s.note);
    } else {
      addValueLabel(px, s.y[0], formatMoney(s.y[0]), x, y, cats.barWidth());
    }
  }
  cats.applyTo(left->axis(QCPAxis::atBottom));
  cats.applyTo(m_runRect->axis(QCPAxis::atBottom));
  m_categories = cats.size();
  drawReferences(leftRefs, left->axis(QCPAxis::atBottom), left->axis(QCPAxis::atLeft));
  drawReferences(rightRefs, m_runRect->axis(QCPAxis::atBottom), m_runRect->axis(QCPAxis::atLeft));
  setNotes(notes.join('\n'));
}

void CostChart::adjustFit() {
  fitBars(mainRect(), m_categories);
  fitBars(m_runRect, m_categories);
}

}  // namespace widgets
