#pragma once
// CONTRACT: plain values a training run produces (the trainer writes them, the GUI, the CLI and
// the run history read them). No Qt, no threads.
#include <cstdint>
#include <string>

namespace core::experiment {

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
  double testLoss = 0, testAccuracy = 0;  // NaN when there was no test image to evaluate
  double hostSeconds = 0;          // training time of this epoch (evaluation excluded)
  double hostImagesPerSecond = 0;
  double evalSeconds = 0;
  std::int64_t images = 0;         // training images in this epoch
  double learningRate = 0;         // used for the epoch's last step
};

// A language model's generated text at an evaluation: the prompt the user typed and its
// continuation, greedy and temperature-sampled, with the validation bits per character then.
struct TextSample {
  std::int64_t step = 0;       // optimizer updates done
  double bitsPerChar = 0;      // validation
  std::string prompt, greedy, sampled;
  friend bool operator==(const TextSample&, const TextSample&) = default;
};

enum class RunStatus { NotStarted, Running, Paused, Finished, Stopped, Diverged, Failed };

}  // namespace core::experiment
