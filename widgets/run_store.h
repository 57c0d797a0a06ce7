#pragma once
// CONTRACT between the charts (widgets/) and the app (app/gui/): every run the user made,
// with its settings, measured samples and simulated device results. GUI thread only.
// The app's session appends samples (drained from core::train::MetricsChannel by a ~30 Hz
// timer) and simulator reports; charts listen to the signals and replot (queued, coalesced).
#include <QColor>
#include <QObject>
#include <QString>
#include <QVector>
#include <vector>

#include "core/sim/sim_report.h"
#include "core/train/metrics.h"
#include "core/train/trainer.h"

namespace widgets {

// One device's figures within a run: the host is MEASURED (its epoch times come from the
// engine), every other device is SIMULATED from its SimReport. Never mix the two.
struct DeviceResult {
  QString deviceId;            // "host", "v100", ...
  QString label;               // "4× V100 (simulated)", "this machine (measured)"
  int count = 1;
  int vcpus = 0;
  bool measured = false;
  core::sim::SimReport report; // for the host: the simulator's PREDICTION (host check chart)
  QVector<double> epochSeconds;  // per completed epoch: measured (host) or simulated
};

// A published figure shown as a reference marker beside the app's own (from a preset).
struct ReferenceMark {
  QString chart;       // "epoch_time", "throughput", "cost", "time_to_accuracy", "sweep"
  QString deviceId;
  double x = 0;        // epoch, batch, … (chart-specific; NaN when not applicable)
  double value = 0;
  QString label;       // "published: ≈40 s (Colab 2018)"
};

struct Run {
  int id = 0;
  QString name;                      // "colab-cnn · fashion-mnist · b1024"
  QColor color;
  bool visible = true;
  core::train::TrainConfig config;
  core::train::RunStatus status = core::train::RunStatus::NotStarted;
  QString statusMessage;
  QString presetId;
  std::vector<core::train::BatchSample> batches;
  std::vector<core::train::EpochSample> epochs;
  QVector<DeviceResult> devices;
  QVector<ReferenceMark> references;
  double targetAccuracy = 0;         // 0 = none
};

class RunStore : public QObject {
  Q_OBJECT
public:
  explicit RunStore(QObject* parent = nullptr);

  int addRun(Run run);               // assigns id (and a colour if invalid); returns the id
  void removeRun(int id);
  void clear();
  Run* run(int id);                  // nullptr when unknown
  const Run* run(int id) const;
  const std::vector<Run>& runs() const { return m_runs; }
  int currentRunId() const { return m_current; }
  void setCurrentRun(int id);

  // Mutations that charts must see: call these rather than editing Run in place.
  void appendSamples(int id, const std::vector<core::train::BatchSample>& batches,
                     const std::vector<core::train::EpochSample>& epochs);
  void setDevices(int id, QVector<DeviceResult> devices);
  void setStatus(int id, core::train::RunStatus status, const QString& message = {});
  void setVisible(int id, bool visible);

Q_SIGNALS:
  void runAdded(int id);
  void runRemoved(int id);
  void runChanged(int id);           // samples, devices, status or visibility changed
  void currentRunChanged(int id);

private:
  std::vector<Run> m_runs;
  int m_nextId = 1;
  int m_current = 0;
};

}  // namespace widgets
