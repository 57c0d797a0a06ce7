#include "widgets/chart_frame.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QHBoxLayout>
#include <QMap>
#include <QSettings>
#include <algorithm>
#include <cmath>
#include <typeinfo>

#include "core/util/numbers.h"
#include "widgets/chart_keys.h"

// ChartFrame's axes: the log-y toggle (by hand or by itself) and fitting the axes to the data.
namespace widgets {

using namespace chart_keys;

void ChartFrame::enableLogYToggle() {
  if (m_logYBox) return;
  m_logYBox = new QCheckBox(tr("Log y"), this);
  m_logYBox->setToolTip(tr("Logarithmic value axis: compare devices that differ 100×"));
  connect(m_logYBox, &QCheckBox::toggled, this, &ChartFrame::setLogY);
  // The user's own choice is remembered per chart, across restarts.
  connect(m_logYBox, &QCheckBox::clicked, this,
          [this](bool on) { QSettings().setValue("charts/" + m_chartId + "/log_y", on); });
  m_controls->addWidget(m_logYBox);
  if (const QVariant saved = QSettings().value("charts/" + m_chartId + "/log_y"); saved.isValid()) {
    m_logYChosen = true;
    m_logY = saved.toBool();
    const QSignalBlocker block(m_logYBox);
    m_logYBox->setChecked(m_logY);
  }
}

void ChartFrame::setLogY(bool on) {
  if (!supportsLogY()) return;
  m_logYChosen = true;
  if (m_logY == on) return;
  m_logY = on;
  {
    const QSignalBlocker block(m_logYBox);
    m_logYBox->setChecked(on);
  }
  applyLogY();
  fitToData();
}

void ChartFrame::autoLogY() {
  if (!supportsLogY() || m_logYChosen || !switchesToLogByItself()) return;
  // The widest span of any one value axis (the cost chart has two panels).
  QMap<QCPAxis*, QPair<double, double>> spans;
  for (int i = 0; i < m_plot->plottableCount(); ++i) {
    QCPAbstractPlottable* p = m_plot->plottable(i);
    if (!p->visible() || p->property(kKeyProperty).toString() == kReferenceKey) continue;
    if (p->valueAxis()->axisType() != QCPAxis::atLeft) continue;
    auto* iface = p->interface1D();
    if (!iface) continue;
    for (int k = 0; k < iface->dataCount(); ++k) {
      const double v = shownValue(p, k);
      if (!std::isfinite(v) || v <= 0) continue;
      auto it = spans.find(p->valueAxis());
      if (it == spans.end()) {
        spans.insert(p->valueAxis(), {v, v});
      } else {
        it->first = std::min(it->first, v);
        it->second = std::max(it->second, v);
      }
    }
  }
  if (spans.isEmpty()) return;
  double ratio = 1;
  for (const auto& [lo, hi] : spans) ratio = std::max(ratio, hi / lo);
  // Hysteresis: on above 30×, off again only below 10×, so live data does not flicker.
  const bool want = m_logY ? ratio > 10 : ratio > 30;
  if (want == m_logY) return;
  m_logY = want;
  const QSignalBlocker block(m_logYBox);
  m_logYBox->setChecked(want);
}

namespace {

// Tick labels by the one number rule (core::util::readableTick).
QString tickText(double v, double step) { return QString::fromStdString(core::util::readableTick(v, step)); }

class ReadableTicker : public QCPAxisTicker {
protected:
  QVector<double> createTickVector(double tickStep, const QCPRange& range) override {
    m_step = tickStep;
    return QCPAxisTicker::createTickVector(tickStep, range);
  }
  QString getTickLabel(double tick, const QLocale&, QChar, int) override { return tickText(tick, m_step); }

private:
  double m_step = 0;
};

// On a log axis spanning less than 300x, powers of ten alone leave one label or none (a series
// between 2,560 and 42,667 sat under a lone "10,000"): then 1, 2 and 5 times each power are
// labelled, and the sub-ticks between them left out; narrower still, evenly spaced ticks.
class ReadableLogTicker : public QCPAxisTickerLog {
protected:
  QString getTickLabel(double tick, const QLocale&, QChar, int) override { return tickText(tick, m_step); }
  int getSubTickCount(double tickStep) override { return m_fine ? 0 : QCPAxisTickerLog::getSubTickCount(tickStep); }
  QVector<double> createTickVector(double tickStep, const QCPRange& range) override {
    m_step = 0;
    m_fine = logBase() == 10 && range.lower > 0 && range.upper / range.lower < 300;
    if (!m_fine) return QCPAxisTickerLog::createTickVector(tickStep, range);
    QVector<double> ticks;
    for (double power = std::pow(10.0, std::floor(std::log10(range.lower))); power <= range.upper; power *= 10)
      for (const double m : {1.0, 2.0, 5.0})
        if (power * m >= range.lower * 0.999 && power * m <= range.upper * 1.001) ticks << power * m;
    if (ticks.size() >= 2) return ticks;
    // About five ticks a 1-2-5 step apart, counted by an integer (a step below the values'
    // own precision would never advance a sum), at most twelve.
    const double raw = (range.upper - range.lower) / 4;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    m_step = power * (raw / power < 2 ? 1 : raw / power < 5 ? 2 : 5);
    ticks.clear();
    const double first = std::ceil(range.lower / m_step - 1e-9), last = std::floor(range.upper / m_step + 1e-9);
    for (double k = first; k <= last && ticks.size() < 12; ++k) ticks << k * m_step;
    return ticks;
  }

private:
  bool m_fine = false;
  double m_step = 0;   // evenly spaced ticks: their step (0: a 1-2-5 progression)
};

}  // namespace

void ChartFrame::applyLogY() {
  if (supportsLogY()) setLogScale();
  // Every axis a chart left with a plain ticker (the LLM planner's values, the accuracy
  // chart's loss and time axes, the sweep's batches) labels by the same rule.
  for (QCPAxisRect* rect : m_plot->axisRects())
    for (QCPAxis* axis : rect->axes()) {
      const QCPAxisTicker* ticker = axis->ticker().data();
      if (typeid(*ticker) == typeid(QCPAxisTicker)) {
        axis->setTicker(QSharedPointer<QCPAxisTicker>(new ReadableTicker));
      } else if (typeid(*ticker) == typeid(QCPAxisTickerLog)) {
        const auto* log = static_cast<const QCPAxisTickerLog*>(ticker);
        QSharedPointer<QCPAxisTickerLog> readable(new ReadableLogTicker);
        readable->setLogBase(log->logBase());
        readable->setSubTickCount(log->subTickCount());
        readable->setTickCount(log->tickCount());
        axis->setTicker(readable);
      }
    }
}

void ChartFrame::setLogScale() {
  for (QCPAxisRect* rect : m_plot->axisRects()) {
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    // A chart's own ticker (a fixed step, a text axis) is kept while the scale stays.
    if (m_logY && y->scaleType() != QCPAxis::stLogarithmic) {
      y->setScaleType(QCPAxis::stLogarithmic);
      y->setTicker(QSharedPointer<QCPAxisTickerLog>(new ReadableLogTicker));
    } else if (!m_logY && y->scaleType() != QCPAxis::stLinear) {
      y->setScaleType(QCPAxis::stLinear);
      y->setTicker(QSharedPointer<QCPAxisTicker>(new ReadableTicker));
    }
  }
}

void ChartFrame::fitToData() {
  m_fitting = true;
  // Bars measure from 0 while fitting (their log-axis base follows the range afterwards).
  for (int i = 0; i < m_plot->plottableCount(); ++i)
    if (auto* bars = qobject_cast<QCPBars*>(m_plot->plottable(i)); bars && !bars->barBelow())
      rebaseBars(bars, 0);
  for (QCPAxisRect* rect : m_plot->axisRects()) {
    for (QCPAxis* axis : rect->axes()) {
      bool found = false;
      QCPRange range;
      for (QCPAbstractPlottable* p : axis->plottables()) {
        if (!p->visible()) continue;
        bool ok = false;
        const QCP::SignDomain sign =
            axis->scaleType() == QCPAxis::stLogarithmic ? QCP::sdPositive : QCP::sdBoth;
        QCPRange r = p->keyAxis() == axis ? p->getKeyRange(ok, sign) : p->getValueRange(ok, sign);
        if (p->valueAxis() == axis && sign == QCP::sdPositive && p->interface1D()) {
          // QCPBars always counts its base (0) in; on a log axis take the values alone.
          ok = false;
          for (int k = 0; k < p->interface1D()->dataCount(); ++k) {
            const double v = shownValue(p, k);
            if (!std::isfinite(v) || v <= 0) continue;
            r = ok ? QCPRange(std::min(r.lower, v), std::max(r.upper, v)) : QCPRange(v, v);
            ok = true;
          }
        }
        if (!ok) continue;
        if (!found) {
          range = r;
          found = true;
        } else {
          range.expand(r);
        }
      }
      for (const auto& [a, v] : m_fitExtras) {
        if (a != axis || !std::isfinite(v)) continue;
        if (axis->scaleType() == QCPAxis::stLogarithmic && v <= 0) continue;
        if (!found) {
          range = QCPRange(v, v);
          found = true;
        } else {
          range.expand(v);
        }
      }
      if (!found) continue;
      if (axis->scaleType() == QCPAxis::stLogarithmic) {
        range.lower /= 1.35;
        range.upper *= 1.35;
      } else {
        double span = range.size();
        if (span <= 0) span = std::abs(range.lower) > 0 ? std::abs(range.lower) * 0.2 : 1.0;
        range.lower -= span * 0.06;
        range.upper += span * 0.08;
      }
      axis->setRange(range);
    }
  }
  adjustFit();
  syncToRanges();
  m_autoFit = true;
  m_fitting = false;
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartFrame::includeInFit(QCPAxis* axis, double value) { m_fitExtras.push_back({axis, value}); }

}  // namespace widgets
