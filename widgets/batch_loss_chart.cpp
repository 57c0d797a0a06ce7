#include "widgets/batch_loss_chart.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QSlider>
#include <cmath>
#include <limits>

#include "widgets/run_data.h"
#include "widgets/run_store.h"

namespace widgets {

QVector<double> debiasedEma(const QVector<double>& values, double smoothing) {
  smoothing = std::clamp(smoothing, 0.0, 0.999);
  QVector<double> out;
  out.reserve(values.size());
  double ema = 0;
  double weight = 0;   // 1 - b^t over the finite values seen so far
  for (double v : values) {
    if (!std::isfinite(v)) {   // a diverged step: leave a gap, keep the average
      out.push_back(std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    ema = smoothing * ema + (1 - smoothing) * v;
    weight = smoothing * weight + (1 - smoothing);
    out.push_back(ema / weight);
  }
  return out;
}

BatchLossChart::BatchLossChart(QWidget* parent)
    : ChartBase("batch_loss", tr("Loss per batch"), parent) {
  controls()->addWidget(new QLabel(tr("Smoothing"), this));
  m_slider = new QSlider(Qt::Horizontal, this);
  m_slider->setRange(0, 99);
  m_slider->setValue(static_cast<int>(std::lround(m_smoothing * 100)));
  m_slider->setMaximumWidth(160);
  m_slider->setToolTip(tr("Exponential moving average of the loss (debiased); 0 = raw"));
  controls()->addWidget(m_slider);
  m_sliderValue = new QLabel(QString::number(m_smoothing, 'f', 2), this);
  controls()->addWidget(m_sliderValue);
  connect(m_slider, &QSlider::valueChanged, this, [this](int v) { setSmoothing(v / 100.0); });
  enableLogYToggle();
  setExplanation(
      tr("Training loss of every batch on this machine (faint) and its smoothed trend. "
         "Smoothing is a debiased exponential moving average, so the start is not pulled "
         "towards zero. A curve that flattens early may want a larger learning rate; one "
         "that jumps or turns into gaps has diverged."));
  mainRect()->axis(QCPAxis::atBottom)->setLabel(tr("training step"));
  QSharedPointer<QCPAxisTickerFixed> steps(new QCPAxisTickerFixed);   // whole steps only
  steps->setTickStep(1);
  steps->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  mainRect()->axis(QCPAxis::atBottom)->setTicker(steps);
  mainRect()->axis(QCPAxis::atLeft)->setLabel(tr("loss"));
}

void BatchLossChart::setSmoothing(double smoothing) {
  smoothing = std::clamp(smoothing, 0.0, 0.99);
  if (smoothing == m_smoothing) return;
  m_smoothing = smoothing;
  {
    const QSignalBlocker block(m_slider);
    m_slider->setValue(static_cast<int>(std::lround(smoothing * 100)));
  }
  m_sliderValue->setText(QString::number(smoothing, 'f', 2));
  scheduleRefresh();
}

QVector<Series> BatchLossChart::series() const {
  QVector<Series> out;
  const auto runs = shownRuns();
  for (int ri = 0; ri < static_cast<int>(runs.size()); ++ri) {
    const Run& run = *runs[static_cast<std::size_t>(ri)];
    if (run.batches.empty()) continue;
    Series raw;
    raw.chartId = chartId();
    raw.runId = run.id;
    raw.runName = run.name;
    raw.name = "batch_loss";
    raw.label = runPrefix(run) + tr("loss per batch");
    raw.xUnit = "step";
    raw.yUnit = "";
    raw.source = SeriesSource::Measured;
    raw.color = run.color;
    raw.styleIndex = ri;
    raw.x.reserve(static_cast<qsizetype>(run.batches.size()));
    raw.y.reserve(static_cast<qsizetype>(run.batches.size()));
    for (const auto& b : run.batches) {
      raw.x.push_back(static_cast<double>(b.step));
      raw.y.push_back(b.loss);
    }
    Series smooth = raw;
    smooth.name = "batch_loss_smoothed";
    smooth.label = runPrefix(run) + tr("loss, smoothed %1").arg(m_smoothing, 0, 'f', 2);
    smooth.y = debiasedEma(raw.y, m_smoothing);
    out.push_back(raw);
    out.push_back(smooth);
  }
  return out;
}

void BatchLossChart::rebuild() {
  QCPAxis* x = mainRect()->axis(QCPAxis::atBottom);
  QCPAxis* y = mainRect()->axis(QCPAxis::atLeft);
  // A language model's cross-entropy is per token, in nats (the accuracy chart: bits per character).
  y->setLabel(languageModelView() ? tr("loss (nats per token)") : tr("loss"));
  const QVector<Series> all = series();
  int diverged = 0;
  for (const Series& s : all) {
    if (s.name == "batch_loss") {
      // The raw line follows its smoothed line's legend entry (same key).
      Series keyed = s;
      keyed.name = "batch_loss_smoothed";
      QCPGraph* g = addLine(keyed, x, y, /*faint=*/true);
      g->setScatterStyle(QCPScatterStyle::ssNone);
      for (double v : s.y)
        if (!std::isfinite(v)) ++diverged;
    } else {
      QCPGraph* g = addLine(s, x, y);
      g->setScatterStyle(QCPScatterStyle::ssNone);
    }
  }
  setNotes(diverged > 0 ? tr("%n step(s) produced a non-finite loss (divergence).", "", diverged)
                        : QString());
}

void BatchLossChart::adjustFit() {
  QCPAxis* x = mainRect()->axis(QCPAxis::atBottom);
  QCPAxis* y = mainRect()->axis(QCPAxis::atLeft);
  if (x->range().lower < 0) x->setRangeLower(0);
  if (y->scaleType() == QCPAxis::stLinear && y->range().lower < 0) y->setRangeLower(0);
}

QString BatchLossChart::emptyText() const {
  return tr("No training steps yet: runs that train on this machine show their loss here.");
}

}  // namespace widgets
