#include "widgets/throughput_chart.h"

#include <qcustomplot.h>

#include <cmath>
#include <limits>

#include "widgets/device_categories.h"
#include "widgets/palette.h"
#include "widgets/run_data.h"
#include "widgets/run_store.h"

namespace widgets {

ThroughputChart::ThroughputChart(QWidget* parent)
    : BarChartBase("throughput", tr("Training throughput"), parent) {
  enableLogYToggle();
  setExplanation(
      tr("Images per second while training, per device: measured on this machine (steady "
         "epochs, warm-up excluded), simulated for the others (all devices of a multi-device "
         "set-up together). Devices that cannot hold the batch are marked, not drawn as zero."));
  mainRect()->axis(QCPAxis::atLeft)->setLabel(tr("images per second"));
}

QVector<Series> ThroughputChart::series() const {
  QVector<Series> out;
  const auto runs = shownRuns();
  const DeviceCategories cats = categories();
  for (int ri = 0; ri < static_cast<int>(runs.size()); ++ri) {
    const Run& run = *runs[static_cast<std::size_t>(ri)];
    for (const DeviceResult& d : run.devices) {
      Series s = deviceSeries(run, d, ri);
      // A language model counts tokens: a sample is a sequence of tokensPerSample tokens.
      const int tokens = tokensPerSample(run);
      s.name = tokens > 0 ? "tokens_per_second" : "images_per_second";
      s.yUnit = tokens > 0 ? "tokens/s" : "images/s";
      s.x = {std::numeric_limits<double>::quiet_NaN()};
      s.plotX = {cats.position(ri, d)};
      double v = std::numeric_limits<double>::quiet_NaN();
      if (outOfMemory(d)) {
        s.note = tr("out of memory");
      } else {
        v = d.measured ? measuredImagesPerSecond(run) : d.report.imagesPerSecond;
        if (tokens > 0) v *= tokens;
        if (!std::isfinite(v) || v <= 0) {
          v = std::numeric_limits<double>::quiet_NaN();
          s.note = tr("no data yet");
        }
      }
      s.y = {v};
      out.push_back(s);
    }
  }
  // A published whole-run average (compilation included) is set beside the same quantity,
  // simulated for a run of the same images: N / (warm-up + N / steady images/s).
  for (int ri = 0; ri < static_cast<int>(runs.size()); ++ri) {
    const Run& run = *runs[static_cast<std::size_t>(ri)];
    for (const ReferenceMark& m : run.references) {
      if (m.chart != "throughput" || m.measures != "whole_run" || m.runImages <= 0) continue;
      for (const DeviceResult& d : run.devices) {
        if (d.deviceId != m.deviceId || d.measured || outOfMemory(d) || d.report.imagesPerSecond <= 0) continue;
        const double warmUp = std::max(0.0, d.report.firstEpochSeconds - d.report.epochSeconds);
        Series s = deviceSeries(run, d, ri);
        s.name = "whole_run_images_per_second";
        s.label = tr("%1: whole run of %L2 images incl. compile (simulated)").arg(deviceShortName(d)).arg(m.runImages, 0, 'f', 0);
        s.yUnit = "images/s";
        s.x = {std::numeric_limits<double>::quiet_NaN()};
        s.plotX = {cats.position(ri, d)};
        s.y = {m.runImages / (warmUp + m.runImages / d.report.imagesPerSecond)};
        s.note = tr("for comparison with the published whole-run figure");
        out.push_back(s);
      }
    }
  }
  out += referenceSeries(
      "throughput",
      [&](const ReferenceMark& m, int ri) { return cats.position(ri, m.deviceId); },
      "", "images/s", 1.0, /*exportX=*/false);
  return out;
}

void ThroughputChart::rebuild() {
  QCPAxis* x = mainRect()->axis(QCPAxis::atBottom);
  QCPAxis* y = mainRect()->axis(QCPAxis::atLeft);
  y->setLabel(languageModelView() ? tr("tokens per second") : tr("images per second"));
  const auto runs = shownRuns();
  const DeviceCategories cats = categories();
  const QVector<Series> all = series();
  bool wholeRunInLegend = false;
  for (const Series& s : all) {
    if (s.source == SeriesSource::Reference) continue;
    if (s.name == QLatin1String("whole_run_images_per_second")) {
      // A diamond on the bar: the simulated whole-run average the published star compares with.
      auto* g = plot()->addGraph(x, y);
      g->setLineStyle(QCPGraph::lsNone);
      const QColor c = readable(textColor());
      g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(c, pen(1.5)), QBrush(c), 10 * presentationScale()));
      g->setName(tr("simulated whole run incl. compile"));
      g->setProperty("hoverName", s.label);
      // Beside the published star (which sits at the bar's centre), not under it.
      g->addData(s.plotX.value(0) - 0.22 * cats.barWidth(), s.y.value(0));
      g->setLayer(QStringLiteral("axes"));   // above the published label's box
      registerPlottable(g, seriesKey(s), {}, s.yUnit);
      if (wholeRunInLegend) g->removeFromLegend();
      wholeRunInLegend = true;
      continue;
    }
    addBar(s, x, y, cats.barWidth());
    const double px = s.plotX.value(0);
    if (!s.note.isEmpty()) {
      addMissingLabel(px, s.note, x, y);
    } else {
      addValueLabel(px, s.y[0], formatValue(s.y[0]), x, y, cats.barWidth());
    }
  }
  cats.applyTo(x);
  m_categories = cats.size();
  drawReferences(all, x, y);
  // A published label beside its star would cover the diamond on one side or the other:
  // it goes above the pair instead (placeReferenceLabels reads the property).
  for (const Series& s : all) {
    if (s.name != QLatin1String("whole_run_images_per_second")) continue;
    for (int i = 0; i < plot()->itemCount(); ++i) {
      QCPAbstractItem* label = plot()->item(i);
      if (label->property("referenceLabel").toBool() && label->property("referenceX").toDouble() == s.plotX.value(0))
        label->setProperty("referenceAbove", true);
    }
  }
}

void ThroughputChart::adjustFit() { fitBars(mainRect(), m_categories); }

}  // namespace widgets
