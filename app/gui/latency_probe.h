#pragma once
// How responsive the GUI thread is: a precise 10 ms timer notes how late each tick fires
// while something else happens (a run trains, charts redraw). p99 of that lateness is the
// "event-loop latency" the dashboard's benchmark reports (`accellab --measure-latency`).
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <vector>

namespace app::gui {

class LatencyProbe : public QObject {
  Q_OBJECT
public:
  explicit LatencyProbe(int intervalMs = 10, QObject* parent = nullptr);

  void start();   // clears earlier ticks
  void stop();
  bool running() const { return m_timer.isActive(); }

  // Lateness in ms at quantile p (0.5, 0.99, 1 = max); -1 before any tick.
  double percentile(double p) const;
  std::size_t samples() const { return m_lateMs.size(); }
  int intervalMs() const { return m_interval; }
  // "p50 0.2 ms, p99 7.9 ms, max 31.0 ms over 4120 ticks of a 10 ms timer"
  QString summary() const;

private:
  int m_interval;
  QTimer m_timer;
  QElapsedTimer m_clock;
  qint64 m_last = -1;
  std::vector<double> m_lateMs;
};

}  // namespace app::gui
