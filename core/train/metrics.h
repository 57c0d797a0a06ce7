#pragma once
// CONTRACT: plain values the trainer produces and the GUI/CLI consume (no Qt).
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace core::train {

struct BatchSample {
  int epoch = 0;               // 1-based
  std::int64_t step = 0;       // global step, 1-based
  double loss = 0;
  double accuracy = 0;         // on this batch
  std::int64_t images = 0;     // images seen so far in the run
  double wallSeconds = 0;      // since the run started (training time, pauses excluded)
  double stepSeconds = 0;      // this step alone
  double learningRate = 0;     // used for this step (after the schedule)
};

struct EpochSample {
  int epoch = 0;
  double trainLoss = 0, trainAccuracy = 0;
  double testLoss = 0, testAccuracy = 0;
  double hostSeconds = 0;          // training time of this epoch (evaluation excluded)
  double hostImagesPerSecond = 0;
  double evalSeconds = 0;
  std::int64_t images = 0;         // training images in this epoch
  double learningRate = 0;         // used for the epoch's last step
};

enum class RunStatus { NotStarted, Running, Paused, Finished, Stopped, Diverged, Failed };
const char* runStatusName(RunStatus s);

// The producer buffer (PlotJuggler habit): the training thread appends, the GUI timer
// swaps everything out at ~30 Hz. Nothing is emitted per batch.
class MetricsChannel {
public:
  void push(const BatchSample& s);
  void push(const EpochSample& s);
  // Moves everything accumulated since the last drain into the outputs (appends).
  void drain(std::vector<BatchSample>& batches, std::vector<EpochSample>& epochs);

private:
  std::mutex m_mutex;
  std::vector<BatchSample> m_batches;
  std::vector<EpochSample> m_epochs;
};

}  // namespace core::train
