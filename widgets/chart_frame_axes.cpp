#include "widgets/chart_frame.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QHBoxLayout>
#include <QMap>
#include <QSettings>
#include <algorithm>
#include <cmath>

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

void ChartFrame::applyLogY() {
  if (!supportsLogY()) return;
  for (QCPAxisRect* rect : m_plot->axisRects()) {
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    if (m_logY && y->scaleType() != QCPAxis::stLogarithmic) {
      y->setScaleType(QCPAxis::stLogarithmic);
      y->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
      y->setNumberFormat("gb");
      y->setNumberPrecision(3);
    } else if (!m_logY && y->scaleType() != QCPAxis::stLinear) {
      y->setScaleType(QCPAxis::stLinear);
      y->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
      y->setNumberFormat("g");
      y->setNumberPrecision(6);
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
