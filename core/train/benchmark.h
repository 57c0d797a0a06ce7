#pragma once
// Steady-state training throughput of a zoo model on this CPU, measured the way the PyTorch
// peer (shared/bench/torch_baseline.py) measures it: a fresh model, `warmup` steps
// discarded, then `steps` timed steps of forward + backward + optimizer update on real
// shuffled batches (a partial last batch is skipped). images/s comes from the total wall
// time of the timed steps (batch gathering included); the median-step figure from the
// median of the per-step times (gathering excluded), as the peer reports both.
#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>

#include "core/nn/fma_peak.h"
#include "core/nn/layer_stats.h"
#include "core/train/trainer.h"
#include "core/util/precision.h"

namespace core::train {

struct BenchConfig {
  std::string modelId = "mlp";
  int batch = 128;
  int threads = 0;  // 0 = all cores
  int steps = 50;
  int warmup = 10;
  // Not set: the peer's default for the model (SGD momentum 0.9 lr 0.01 for mlp, else Adam 1e-3).
  std::optional<OptimizerKind> optimizer;
  std::optional<double> learningRate;
  std::uint64_t seed = 0;
  util::Precision precision = util::Precision::FP32;
  std::string dataDir;  // where to look for the model's default dataset (empty = default)
};

// Throws core::util::Error naming the field.
void validate(const BenchConfig& c);

struct BenchResult {
  std::string modelId;
  std::string data;        // the dataset the batches came from, or "synthetic"
  std::string dataNote;    // why synthetic was used, when it was
  nn::Shape inputShape;
  int tokensPerSample = 0;  // language models: tokens one sequence trains (images/s are then sequences/s)
  int batch = 0;
  int threads = 0;
  int steps = 0;           // timed steps actually run (fewer when stopped)
  int warmup = 0;
  OptimizerKind optimizer = OptimizerKind::Adam;
  double learningRate = 0;
  std::int64_t params = 0;
  double wallSeconds = 0;  // the timed steps, batch gathering included
  double imagesPerSecond = 0;
  double imagesPerSecondMedianStep = 0;
  double stepSecondsMedian = 0, stepSecondsP10 = 0, stepSecondsP90 = 0;
  double forwardFlopsPerImage = 0;   // from the model's layer stats
  double trainFlopsPerImage = 0;     // forward + backward
  double gflops = 0;                 // achieved: trainFlopsPerImage x images/s
  double gflopsMedianStep = 0;
  double finalLoss = 0;              // last timed step's loss (a sanity figure)
  std::int64_t peakRssBytes = 0;     // the process's peak resident set (VmHWM) afterwards
  std::string gemmPath;              // what the GEMMs ran on, in words (nn::gemmPathText)
  bool bf16OnHardware = false;       // a bf16 run multiplied in bf16 hardware (else emulated)
  nn::FmaPeak peak;                  // the machine's measured multiply-add peak, same threads
  double peakFraction = 0;           // gflops / the peak of the path that ran (bf16 or fp32)
};

// Runs the benchmark on its own task_arena; honours `stop` between steps.
BenchResult runBenchmark(const BenchConfig& c, std::stop_token stop = {});

// The process's peak resident set size in bytes (Linux VmHWM), 0 when unknown.
std::int64_t peakRssBytes();

}  // namespace core::train
