#pragma once
// CONTRACT: the trainer runs one training run on its own tbb::task_arena. The caller owns
// the thread (std::jthread in the CLI, the GUI's session object) and calls run() on it.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>

#include "core/experiment/train_config.h"
#include "core/train/metrics.h"

namespace core::nn { class Network; }
namespace core::data {
class Dataset;
struct DatasetSplit;
}

namespace core::train {

// The value types of a run live in core/experiment (the GUI and the CLI share them without
// depending on the trainer); the trainer names them as its own.
using experiment::OptimizerKind;
using experiment::Schedule;
using experiment::TrainConfig;
using experiment::validate;

struct RunResult {
  RunStatus status = RunStatus::NotStarted;
  std::string message;          // why it failed / diverged
  int epochsCompleted = 0;
};

class Trainer {
public:
  explicit Trainer(TrainConfig config);
  ~Trainer();

  // Blocking: loads data, builds the model, trains. Honours `stop` within one batch.
  // Never throws for data or numeric problems: they come back as Failed / Diverged.
  RunResult run(std::stop_token stop);

  void pause();
  void resume();
  bool paused() const;

  // Optional, before run(): train on these data instead of loading config().datasetId
  // (tests and tools that already hold the data). The config's limits are not re-applied.
  void setData(std::shared_ptr<const data::DatasetSplit> data);
  // Optional, before run(): called on the training thread after every batch (after the
  // sample went into metrics()). Keep it short; it may call pause() or a stop_source.
  void setBatchObserver(std::function<void(const BatchSample&)> observer);

  // A language model's prompt for the generated text of the next evaluations (any thread; the
  // GUI's Samples field). Empty: a new fortune ("%\n").
  void setPrompt(std::string prompt);

  MetricsChannel& metrics() { return m_metrics; }
  const TrainConfig& config() const { return m_config; }
  RunStatus status() const { return m_status.load(); }
  // Progress 0..1 over all epochs, readable from any thread.
  double progress() const { return m_progress.load(); }

private:
  // The epochs themselves, on the caller's arena; fills `result`.
  void trainEpochs(const std::stop_token& stop, const data::DatasetSplit& data, RunResult& result);
  // A language model (isLanguageModel): updates on random windows of a byte corpus, an
  // evaluation (bits per character, generated text) per epoch (trainer_lm.cpp).
  void trainLanguageModel(const std::stop_token& stop, RunResult& result);
  std::string prompt() const;
  // Waits while paused; returns false when a stop was requested meanwhile.
  bool waitWhilePaused(const std::stop_token& stop);

  TrainConfig m_config;
  std::shared_ptr<const data::DatasetSplit> m_data;
  std::function<void(const BatchSample&)> m_onBatch;
  MetricsChannel m_metrics;
  std::atomic<RunStatus> m_status{RunStatus::NotStarted};
  std::atomic<double> m_progress{0};
  mutable std::mutex m_pauseMutex;
  std::condition_variable_any m_pauseCv;
  bool m_paused = false;  // guarded by m_pauseMutex
  mutable std::mutex m_promptMutex;
  std::string m_prompt;   // guarded by m_promptMutex
};

}  // namespace core::train
