#pragma once
// CONTRACT between the charts (widgets/) and the app (app/gui/): every run the user made,
// with its settings, measured samples and simulated device results. GUI thread only.
// The app's session appends samples (drained from the trainer's MetricsChannel by a ~30 Hz
// timer) and simulator reports; charts listen to the signals and replot (queued, coalesced).
#include <QColor>
#include <QObject>
#include <QString>
#include <QVector>
#include <utility>
#include <vector>

#include "core/sim/sim_report.h"
#include "core/experiment/names.h"
#include "core/experiment/run_samples.h"
#include "core/experiment/train_config.h"

namespace widgets {

// One device's figures within a run: the host is MEASURED (its epoch times come from the
// engine), every other device is SIMULATED from its SimReport. Never mix the two.
struct DeviceResult {
  QString deviceId;            // "host", "v100", ...
  QString label;               // "4× V100 (simulated)", "this machine (measured)"
  int count = 1;
  int vcpus = 0;
  bool measured = false;
  QString errorBand;           // simulated: the simulator's measured error, "±9%" (empty: unknown)
  core::sim::SimReport report; // for the host: the simulator's PREDICTION (host check chart)
  QVector<double> epochSeconds;  // per completed epoch: measured (host) or simulated
};

// A published figure shown as a reference marker beside the app's own (from a preset).
// What x and value mean, per chart id:
//   "epoch_time"       x = epoch (1-based; NaN = every epoch: a horizontal line), value = s
//   "throughput"       x unused (the device's bar), value = images/s
//   "cost"             x unused (the device's bar), value = USD per run
//   "cost_per_million" x unused (the device's bar), value = USD per million images
//   "time_to_accuracy" x = seconds of training, value = accuracy (fraction 0..1)
//   "sweep"            x = global batch, value = images/s
struct ReferenceMark {
  ReferenceMark() = default;
  ReferenceMark(QString chartId, QString device, double xValue, double figure, QString text, QString what = {},
                double images = 0)
      : chart(std::move(chartId)), deviceId(std::move(device)), x(xValue), value(figure), label(std::move(text)),
        measures(std::move(what)), runImages(images) {}

  QString chart;       // one of the ids above
  QString deviceId;
  double x = 0;        // epoch, batch, … (chart-specific; NaN when not applicable)
  double value = 0;
  QString label;       // "published: ≈40 s (Colab 2018)"
  // What the figure measured. Empty: the chart's own quantity (a steady epoch, steady
  // images/s). "whole_run": a whole run's average, compilation and warm-up included, over
  // `runImages` images; the throughput chart draws the simulated device's figure for the
  // same run beside it.
  QString measures;
  double runImages = 0;
};

struct Run {
  int id = 0;
  QString key;                       // the run's file in the history folder (empty until saved)
  QString name;                      // "colab-cnn · fashion-mnist · b1024"
  QColor color;
  bool visible = true;
  core::experiment::TrainConfig config;
  core::experiment::RunStatus status = core::experiment::RunStatus::NotStarted;
  QString statusMessage;
  QString presetId;
  std::vector<core::experiment::BatchSample> batches;
  std::vector<core::experiment::EpochSample> epochs;
  QVector<DeviceResult> devices;
  QVector<ReferenceMark> references;
  double targetAccuracy = 0;         // fraction 0..1 (0 = none)
  std::vector<core::experiment::TextSample> texts;  // a language model's generated text, per evaluation
};

// A language-model run (char-gpt): its samples are sequences of tokensPerSample(run) tokens,
// its loss is shown in bits per character. 0 for the other runs.
int tokensPerSample(const Run& run);

// "finished", "diverged", … (translated, for the runs list and messages).
QString runStatusText(core::experiment::RunStatus status);

class RunStore : public QObject {
  Q_OBJECT
public:
  explicit RunStore(QObject* parent = nullptr);

  int addRun(Run run);               // assigns id (and a colour if invalid); returns the id
  void removeRun(int id);
  void clear();                      // removes every run (one runRemoved each)
  Run* run(int id);                  // nullptr when unknown
  const Run* run(int id) const;
  const std::vector<Run>& runs() const { return m_runs; }
  int currentRunId() const { return m_current; }
  void setCurrentRun(int id);

  // Mutations that charts must see: call these rather than editing Run in place.
  void appendSamples(int id, const std::vector<core::experiment::BatchSample>& batches,
                     const std::vector<core::experiment::EpochSample>& epochs);
  void appendTexts(int id, std::vector<core::experiment::TextSample> texts);
  void setDevices(int id, QVector<DeviceResult> devices);
  void setStatus(int id, core::experiment::RunStatus status, const QString& message = {});
  void setVisible(int id, bool visible);
  void setName(int id, const QString& name);   // ignored when blank
  void setReferences(int id, QVector<ReferenceMark> references, double targetAccuracy);

  int indexOf(int id) const;                   // position in runs(), -1 when unknown
  std::vector<const Run*> visibleRuns() const; // in runs() order
  // Mutations with an unknown id are ignored (a run may have been deleted meanwhile).

Q_SIGNALS:
  void runAdded(int id);
  void runAboutToBeRemoved(int id);  // still in runs(); runRemoved follows
  void runRemoved(int id);
  void runChanged(int id);           // samples, devices, status or visibility changed
  void textsAppended(int id);        // a language model's generated text (charts need not redraw)
  void currentRunChanged(int id);

private:
  std::vector<Run> m_runs;
  int m_nextId = 1;
  int m_current = 0;
};

}  // namespace widgets
