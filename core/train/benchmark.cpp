#include "core/train/benchmark.h"

#include "core/data/text_corpus.h"
#include "core/train/lm_trainer.h"
#include "core/util/rng.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <oneapi/tbb/task_arena.h>

#include "core/data/batcher.h"
#include "core/data/dataset_info.h"
#include "core/data/dataset_loader.h"
#include "core/nn/gemm.h"
#include "core/nn/network.h"
#include "core/nn/zoo.h"
#include "core/train/optimizer.h"
#include "core/train/training_data.h"
#include "core/util/error.h"

namespace core::train {

using util::Error;

namespace {

using Clock = std::chrono::steady_clock;

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

// Distinct synthetic batches generated when no real data is available.
constexpr int kSyntheticBatches = 8;

}  // namespace

void validate(const BenchConfig& c) {
  nn::modelInfo(c.modelId);
  if (c.batch < 1) throw Error("batch must be at least 1, got " + std::to_string(c.batch));
  if (c.threads < 0 || c.threads > 1024) throw Error("threads must be between 0 (all cores) and 1024");
  if (c.steps < 1) throw Error("steps must be at least 1, got " + std::to_string(c.steps));
  if (c.warmup < 0) throw Error("warmup must not be negative, got " + std::to_string(c.warmup));
  if (c.learningRate && (!std::isfinite(*c.learningRate) || *c.learningRate <= 0))
    throw Error("learning rate must be a positive number");
}

std::int64_t peakRssBytes() {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == "VmHWM:") {
      std::int64_t kb = 0;
      in >> kb;
      return kb * 1024;
    }
    in.ignore(1 << 12, '\n');
  }
  return 0;
}

namespace {

// Throughputs and step-time percentiles from the timed steps (both benchmarks).
void finishResult(BenchResult& r, const std::vector<double>& stepSeconds, const BenchConfig& c) {
  const int batch = c.batch;
  r.steps = static_cast<int>(stepSeconds.size());
  if (r.steps > 0 && r.wallSeconds > 0) {
    r.imagesPerSecond = static_cast<double>(r.steps) * batch / r.wallSeconds;
    r.stepSecondsMedian = percentile(stepSeconds, 0.5);
    r.stepSecondsP10 = percentile(stepSeconds, 0.1);
    r.stepSecondsP90 = percentile(stepSeconds, 0.9);
    r.imagesPerSecondMedianStep = batch / r.stepSecondsMedian;
    r.gflops = r.trainFlopsPerImage * r.imagesPerSecond / 1e9;
    r.gflopsMedianStep = r.trainFlopsPerImage * r.imagesPerSecondMedianStep / 1e9;
  }
  r.peakRssBytes = peakRssBytes();
  r.gemmPath = nn::gemmPathText(c.precision);
  r.bf16OnHardware = c.precision == util::Precision::BF16 && nn::bf16OnHardware();
  // The machine's peak with the same threads, after the timed steps (it does not disturb them).
  r.peak = nn::measureFmaPeak(r.threads);
  const double peak = r.bf16OnHardware ? r.peak.bf16Gflops : r.peak.fp32Gflops;
  if (peak > 0) r.peakFraction = r.gflops / peak;
}

// The language model (char-gpt): the peer's update (AdamW on matrix weights, clipping at 1) on
// random 129-byte windows of fortunes, or of seeded random text when the package is missing.
BenchResult runLmBenchmark(const BenchConfig& c, std::stop_token stop) {
  BenchResult r;
  r.modelId = c.modelId;
  r.batch = c.batch;
  r.warmup = c.warmup;
  r.optimizer = OptimizerKind::Adam;  // AdamW, reported as its family
  r.learningRate = c.learningRate.value_or(1e-3);
  data::TextCorpus corpus;
  const std::string dir = c.dataDir.empty() ? data::kFortunesDir : c.dataDir;
  try {
    corpus = data::loadTextCorpus(dir);
    r.data = "fortunes";
  } catch (const util::Error& e) {
    util::Rng rng = util::makeRng(c.seed, 0x7e);
    std::uniform_int_distribution<int> byte(32, 126);
    corpus.train.resize(1 << 20);
    corpus.validation.resize(1 << 16);
    for (auto& b : corpus.train) b = static_cast<std::uint8_t>(byte(rng));
    for (auto& b : corpus.validation) b = static_cast<std::uint8_t>(byte(rng));
    r.data = "synthetic";
    r.dataNote = std::string(e.what()) + "; random printable bytes instead";
  }
  nn::ModelInput in;
  in.shape = {1, 128, 1};
  in.classes = in.vocabulary = 256;
  std::unique_ptr<nn::Network> net = nn::buildModel(c.modelId, in);
  const nn::NetworkStats stats = net->stats();
  r.inputShape = stats.input;
  r.tokensPerSample = 128;
  r.params = net->paramCount();
  r.forwardFlopsPerImage = stats.forwardFlops();
  r.trainFlopsPerImage = stats.forwardFlops() + stats.backwardFlops();
  net->initialize(c.seed);
  net->setPrecision(c.precision);
  TrainConfig tc;
  tc.threads = c.threads;
  r.threads = threadCountFor(tc);
  LmConfig lc;
  std::vector<double> stepSeconds;
  oneapi::tbb::task_arena arena(r.threads);
  arena.execute([&] {
    AdamW optimizer(lc.beta1, lc.beta2, lc.epsilon, lc.weightDecay, net->matrixWeightMask());
    util::Rng rng = util::makeRng(c.seed, 0x17);
    std::uniform_int_distribution<std::size_t> offset(0, corpus.train.size() - 129);
    Eigen::MatrixXf x(128, c.batch);
    std::vector<int> y(static_cast<std::size_t>(128) * c.batch);
    std::uint64_t step = 0;
    auto oneStep = [&](bool timed) {
      for (int b = 0; b < c.batch; ++b) {
        const std::size_t o = offset(rng);
        for (int t = 0; t < 128; ++t) {
          x(t, b) = corpus.train[o + static_cast<std::size_t>(t)];
          y[static_cast<std::size_t>(b) * 128 + static_cast<std::size_t>(t)] = corpus.train[o + static_cast<std::size_t>(t) + 1];
        }
      }
      const auto t0 = Clock::now();
      const nn::StepResult s = net->trainStep(x, y, stepSeed(c.seed, ++step));
      clipGradientNorm(net->grads(), lc.clipNorm);
      optimizer.step(net->params(), net->grads(), r.learningRate);
      if (timed) stepSeconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
      r.finalLoss = s.loss;
    };
    for (int i = 0; i < c.warmup && !stop.stop_requested(); ++i) oneStep(false);
    const auto start = Clock::now();
    for (int i = 0; i < c.steps && !stop.stop_requested(); ++i) oneStep(true);
    r.wallSeconds = std::chrono::duration<double>(Clock::now() - start).count();
  });
  finishResult(r, stepSeconds, c);
  return r;
}

}  // namespace

BenchResult runBenchmark(const BenchConfig& c, std::stop_token stop) {
  validate(c);
  if (c.modelId == "char-gpt") return runLmBenchmark(c, stop);
  BenchResult r;
  r.modelId = c.modelId;
  r.batch = c.batch;
  r.warmup = c.warmup;
  const bool peerMlp = c.modelId == "mlp";
  r.optimizer = c.optimizer.value_or(peerMlp ? OptimizerKind::SGD : OptimizerKind::Adam);
  r.learningRate = c.learningRate.value_or(r.optimizer == OptimizerKind::SGD ? 0.01 : 1e-3);

  // Data: the model's own dataset when its files are here, else synthetic of that shape.
  const nn::ModelInfo& model = nn::modelInfo(c.modelId);
  const std::string home = model.defaultDataset.empty() ? "fashion-mnist" : model.defaultDataset;
  const data::DatasetInfo& homeInfo = data::datasetInfo(home);
  TrainConfig tc;
  tc.modelId = c.modelId;
  tc.seed = c.seed;
  tc.dataDir = c.dataDir;
  tc.testLimit = 1;
  tc.threads = c.threads;
  const bool real = homeInfo.loadable && homeInfo.format != data::SampleFormat::Synthetic &&
                    data::datasetAvailable(home, c.dataDir);
  if (real) {
    tc.datasetId = home;
    r.data = home;
  } else {
    tc.datasetId = "synthetic";
    tc.limit = static_cast<std::int64_t>(c.batch) * kSyntheticBatches;
    r.data = "synthetic";
    r.dataNote = homeInfo.loadable && homeInfo.format != data::SampleFormat::Synthetic
                     ? "the " + home + " files were not found; synthetic batches of the same shape"
                     : home + " cannot be loaded (descriptor only); synthetic batches of the same shape";
  }
  const data::DatasetSplit split = loadTrainingData(tc);
  if (split.train.size() < c.batch)
    throw Error("batch " + std::to_string(c.batch) + " is larger than the " + r.data + " training set (" +
                std::to_string(split.train.size()) + " samples)");
  r.inputShape = split.train.shape();

  std::unique_ptr<nn::Network> net = nn::buildModel(c.modelId, modelInputFor(split.train));
  const nn::NetworkStats stats = net->stats();
  r.params = net->paramCount();
  r.forwardFlopsPerImage = stats.forwardFlops();
  r.trainFlopsPerImage = stats.forwardFlops() + stats.backwardFlops();
  net->initialize(c.seed);
  net->setPrecision(c.precision);
  OptimizerConfig oc;
  oc.kind = r.optimizer;
  oc.momentum = r.optimizer == OptimizerKind::SGD ? 0.9 : 0;
  const std::unique_ptr<Optimizer> optimizer = makeOptimizer(oc);
  data::Batcher batcher(split.train, c.batch, c.seed + 1);
  r.threads = threadCountFor(tc);

  std::vector<double> stepSeconds;
  stepSeconds.reserve(static_cast<std::size_t>(c.steps));
  oneapi::tbb::task_arena arena(r.threads);
  arena.execute([&] {
    Eigen::MatrixXf x;
    std::vector<int> y;
    int epoch = 0;
    std::int64_t next = 0, step = 0;
    auto oneStep = [&](bool timed) {
      // Full batches only, reshuffling when the epoch runs out (the peer does the same).
      if (next >= batcher.batchCount() || batcher.batchSamples(next) < c.batch) {
        batcher.startEpoch(++epoch);
        next = 0;
      }
      batcher.fetch(next++, x, y);
      const auto t0 = Clock::now();
      const nn::StepResult s = net->trainStep(x, y, stepSeed(c.seed, ++step));
      optimizer->step(net->params(), net->grads(), r.learningRate);
      if (timed) stepSeconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
      r.finalLoss = s.loss;
    };
    for (int i = 0; i < c.warmup && !stop.stop_requested(); ++i) oneStep(false);
    const auto start = Clock::now();
    for (int i = 0; i < c.steps && !stop.stop_requested(); ++i) oneStep(true);
    r.wallSeconds = std::chrono::duration<double>(Clock::now() - start).count();
  });

  finishResult(r, stepSeconds, c);
  return r;
}

}  // namespace core::train
