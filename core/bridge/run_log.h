#pragma once
// The bridge to real hardware, inward: the JSON-lines log an exported PyTorch job writes
// (core/bridge/torch_export.h), read back strictly. Every problem names the file, the line and
// the field: a truncated line, a missing or mistyped field, a file that is not such a log, or a
// log whose model is not the one its name says (its parameter count differs from the zoo's).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/sim/parallel_plan.h"

namespace core::bridge {

struct LoggedStep {
  int step = 0;
  int epoch = 0;
  double seconds = 0;     // wall time of the optimizer step (device synchronised)
  double samples = 0;     // global: images or sequences
  double tokens = 0;      // language models: samples x sequence length
  double perSecond = 0;   // the log's unit (images or tokens) per second
  double loss = 0;
  bool warmup = false;
  double peakMemoryBytes = 0; // a transformer job: the peak so far (device memory, or the host's RSS)
};

struct LoggedEpoch {
  int epoch = 0;
  double seconds = 0;
  double samples = 0;
  double trainLoss = 0;
  std::optional<double> testAccuracy;
};

struct LoggedEval {
  int step = 0;
  double valLoss = 0, valBitsPerChar = 0, tokensPerSecond = 0;
  std::string sample;
};

struct RunLog {
  std::string path;
  // The start record: what ran, where, under what software.
  std::string model, dataset, precision, unit;  // unit: "images" or "tokens"
  int batch = 0;                                // global
  int seqLen = 0;                               // token models
  std::uint64_t seed = 0;
  std::int64_t params = 0;
  std::string deviceType;                       // "cpu" or "cuda" (ROCm reports "cuda" too)
  std::string deviceName;                       // "NVIDIA H100 80GB HBM3", "AMD EPYC 7B13"
  int deviceCount = 1;
  std::string strategy;                         // "single", "ddp", "fsdp"
  std::string exportedForDevice;                // the catalog id it was exported for ("" = none)
  int exportedForCount = 1;
  std::string torchVersion, cudaVersion, hipVersion, pythonVersion, started;
  int threads = 0;
  // A transformer job (exported from a model description): the plan as it ran, fine-tuning, the
  // stack it stands for and whether torch.compile ran. Its model is in the log (model_spec) and
  // joins the known transformers when read, so a log of a config.json's model imports anywhere.
  std::optional<sim::ParallelPlan> plan;
  sim::Finetune finetune = sim::Finetune::Full;
  int loraRank = 0;
  std::string stackId;
  bool compiled = false;
  std::int64_t totalParams = 0;
  // What it measured.
  std::vector<LoggedStep> steps;
  std::vector<LoggedEpoch> epochs;
  std::vector<LoggedEval> evals;
  bool finished = false;                        // an end record was read
  double peakMemoryBytes = 0;
  std::string memoryKind;                       // "device" or "host_rss"
  std::string error;                            // the run's own error record, if any
};

// Throws core::util::Error "<path>:<line>: <field>: <what>" on the first problem. Checks the
// model against the zoo: an unknown id, or a parameter count that is not the zoo's for it.
RunLog parseRunLog(const std::string& text, const std::string& path);
RunLog readRunLog(const std::string& path);

// Steady state: the median step time over the steps not marked warm-up (the whole log's median
// when every step is). Throws naming the file when the log has no step at all.
struct SteadyState {
  double stepSeconds = 0;
  double perSecond = 0;      // the unit per second at that step time (global batch / step)
  double samplesPerSecond = 0;
  int steps = 0;             // steps the median is taken over
  int firstStep = 0, lastStep = 0;  // the window they come from
  bool warmupOnly = false;   // every logged step was warm-up
  // How much to trust the median (5 steps or more): the 10th-90th percentile spread as a share of
  // the median; two clusters (a jump of more than 2x in the sorted times, a tenth of the steps or
  // more on each side) with their typical times.
  double spread = 0;
  bool bimodal = false;
  int fastSteps = 0;
  double fastSeconds = 0, slowSeconds = 0;
  bool noisy = false;        // bimodal, or a spread over kNoisySpread
};
inline constexpr double kNoisySpread = 0.25;
SteadyState steadyState(const RunLog& log);
// One sentence on a noisy steady state ("two kinds of step: 12 near 4 ms and 8 near 390 ms ..."),
// "" when it is not.
std::string noiseWarning(const SteadyState& ss);

// A step shorter than this is not a step on any device (a kernel launch takes longer).
inline constexpr double kShortestStepSeconds = 1e-6;

// True when the text looks like a run log (its first non-empty line is a start record), so a
// caller can route .jsonl logs and reference CSVs apart.
bool looksLikeRunLog(const std::string& text);

}  // namespace core::bridge
