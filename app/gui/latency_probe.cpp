#include "app/gui/latency_probe.h"

#include <algorithm>

namespace app::gui {

LatencyProbe::LatencyProbe(int intervalMs, QObject* parent) : QObject(parent), m_interval(intervalMs) {
  m_timer.setTimerType(Qt::PreciseTimer);
  m_timer.setInterval(intervalMs);
  connect(&m_timer, &QTimer::timeout, this, [this] {
    const qint64 now = m_clock.nsecsElapsed();
    if (m_last >= 0) m_lateMs.push_back(std::max(0.0, static_cast<double>(now - m_last) / 1e6 - m_interval));
    m_last = now;
  });
}

void LatencyProbe::start() {
  m_clock.start();
  m_last = -1;
  m_lateMs.clear();
  m_timer.start();
}

void LatencyProbe::stop() { m_timer.stop(); }

double LatencyProbe::percentile(double p) const {
  if (m_lateMs.empty()) return -1;
  std::vector<double> v = m_lateMs;
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(std::clamp(p, 0.0, 1.0) * static_cast<double>(v.size()));
  return v[std::min(v.size() - 1, i)];
}

QString LatencyProbe::summary() const {
  return tr("p50 %1 ms, p99 %2 ms, max %3 ms over %4 ticks of a %5 ms timer")
      .arg(percentile(0.5), 0, 'f', 1)
      .arg(percentile(0.99), 0, 'f', 1)
      .arg(percentile(1.0), 0, 'f', 1)
      .arg(samples())
      .arg(m_interval);
}

}  // namespace app::gui
