#pragma once
// One training run in the background (PlotJuggler habit: a producer buffer and a coalesced
// GUI drain). The session owns the std::jthread that runs core::train::Trainer::run(); a
// ~30 Hz QTimer drains the trainer's MetricsChannel into the RunStore; rare events reach the
// GUI thread as queued calls carrying plain values. Simulated devices' epoch times are
// computed by the simulator per epoch as the run progresses; the host is measured.
// A simulation-only run fills every epoch at once. One run at a time.
#include <QObject>
#include <QString>
#include <QTimer>
#include <QVector>
#include <deque>
#include <memory>
#include <thread>

#include "core/train/trainer.h"
#include "widgets/hardware_panel.h"
#include "widgets/run_store.h"

namespace app::gui {

class SimService;

struct RunPlan {
  // What to run: its devices are simulated (the host is measured instead when it trains here)
  // and each carries the stack it runs under; with a compare stack every device is also
  // simulated under that one.
  core::experiment::Experiment experiment;
  QString name;                            // empty: made from the settings
  QString presetId;
  QVector<widgets::ReferenceMark> references;
  double targetAccuracy = 0;
  std::string prompt;                      // a language model's samples continue this (empty: a new fortune)
};

// Progress of the active run, for the status bar.
struct RunProgress {
  int runId = 0;
  double fraction = 0;          // 0..1 over all epochs
  double etaSeconds = -1;       // < 0: not known yet
  double imagesPerSecond = 0;   // recent, measured
  int epoch = 0;                // current (1-based)
  int epochs = 0;
  int tokensPerSample = 0;      // a language model: the rate is shown in tokens/s
};

class TrainingSession : public QObject {
  Q_OBJECT
public:
  TrainingSession(widgets::RunStore* store, const SimService* sim, QObject* parent = nullptr);
  ~TrainingSession() override;  // stops the run and joins the thread

  // Adds the run to the store and starts it; returns its id. Settings the trainer refuses
  // (batch 0, a batch larger than the data, …) add the run marked Failed, with the reason,
  // and emit finished(). Throws core::util::Error only when a run is already active.
  int start(const RunPlan& plan);
  // Why a plan cannot train (empty when it can): validation and batch vs data size.
  static QString checkPlan(const RunPlan& plan);
  void pause();
  void resume();
  void stop();     // asynchronous: finished() follows within one batch
  // A language model's prompt for the samples of its next evaluations (the Samples panel).
  void setPrompt(const std::string& prompt);
  // Stops and waits for the training thread (closing the window, destruction).
  void stopAndWait();

  bool isActive() const { return m_runId != 0; }
  bool isPaused() const { return m_paused; }
  int activeRunId() const { return m_runId; }
  RunProgress progress() const { return m_progress; }

  // Drain period (ms) — ~30 Hz.
  static constexpr int kDrainIntervalMs = 33;

Q_SIGNALS:
  void started(int runId);
  void epochCompleted(int runId, int epoch);
  void progressed(const app::gui::RunProgress& progress);
  void pausedChanged(bool paused);
  void finished(int runId, core::experiment::RunStatus status, const QString& message);
  // Something the user should know that does not stop the run (a device that could not
  // be simulated).
  void warning(const QString& message);

private:
  void drain();
  void onThreadFinished(int runId, const core::train::RunResult& result);
  void finish(core::experiment::RunStatus status, const QString& message);
  void recordEpoch(const core::experiment::EpochSample& epoch);
  void updateRate(const std::vector<core::experiment::BatchSample>& batches);
  QVector<widgets::DeviceResult> planDevices(const RunPlan& plan, QStringList& problems) const;
  void simulateAllEpochs(const RunPlan& plan);

  widgets::RunStore* m_store;
  const SimService* m_sim;
  QTimer m_drainTimer;
  int m_runId = 0;
  bool m_paused = false;
  RunProgress m_progress;
  std::deque<std::pair<double, std::int64_t>> m_recent;  // (wall s, images) of recent batches
  double m_lastWallSeconds = 0;
  std::unique_ptr<core::train::Trainer> m_trainer;
  std::string m_prompt;  // the Samples panel's, for runs that start later
  core::train::RunResult m_threadResult;  // written by the thread before it ends; read after join
  // Declared last: destroyed (joined) first, while everything it uses still exists.
  std::jthread m_thread;
};

}  // namespace app::gui

Q_DECLARE_METATYPE(app::gui::RunProgress)
