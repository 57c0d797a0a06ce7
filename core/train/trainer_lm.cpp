// The trainer's language-model runs (char-gpt on a byte corpus): the loop of lm_trainer, read
// as epochs so the app's charts, history and simulator see a run like any other.
//   an epoch    `limit` windows of 128+1 bytes (0: as many as the corpus' training split holds),
//               ceil(windows / batch) updates, then an evaluation;
//   BatchSample one per update: loss (nats/token), next-byte accuracy, sequences so far;
//   EpochSample one per evaluation: train and validation loss and next-byte accuracy;
//   TextSample  one per evaluation: the prompt (setPrompt) continued, greedy and sampled.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/data/text_corpus.h"
#include "core/nn/network.h"
#include "core/nn/zoo.h"
#include "core/train/divergence.h"
#include "core/train/lm_trainer.h"
#include "core/train/trainer.h"
#include "core/util/error.h"

namespace core::train {

void Trainer::trainLanguageModel(const std::stop_token& stop, RunResult& result) {
  const TrainConfig& c = m_config;
  const bool fortunes = c.dataDir.empty();
  const std::string path = fortunes ? data::kFortunesDir : c.dataDir;
  const data::TextCorpus corpus = data::loadTextCorpus(path, 129, fortunes ? data::kFortunesInstallHint : "");
  nn::ModelInput in;
  in.shape = {1, 128, 1};
  in.classes = 256;
  in.vocabulary = 256;
  std::unique_ptr<nn::Network> net = nn::buildModel(c.modelId, in);
  net->initialize(c.seed);
  net->setPrecision(c.precision);
  const int T = net->inputShape().h;

  const std::int64_t windows = c.limit > 0 ? c.limit : std::max<std::int64_t>(1, static_cast<std::int64_t>(corpus.train.size()) / T);
  const std::int64_t perEpoch = (windows + c.batch - 1) / c.batch;
  if (perEpoch * c.epochs > 10'000'000) throw util::Error("epochs: more than 10,000,000 updates in all");
  LmConfig lc;
  lc.steps = static_cast<int>(perEpoch * c.epochs);
  lc.evalEvery = static_cast<int>(perEpoch);
  lc.batch = c.batch;
  lc.learningRate = c.learningRate;
  lc.minLearningRate = std::min(lc.minLearningRate, c.learningRate);
  lc.warmupSteps = std::min(lc.warmupSteps, std::max(1, lc.steps / 10));
  lc.weightDecay = c.weightDecay;
  lc.seed = c.seed;
  lc.threads = c.threads;

  std::int64_t sequences = 0, lastEvalStep = 0;
  double wallSeconds = 0, lastEvalSeconds = 0;
  DivergenceWatch divergence;
  std::string diverged;
  LmHooks hooks;
  hooks.prompt = [this] { return prompt(); };
  hooks.onStep = [&](const LmStep& s) {
    if (const std::string why = divergence.observe(s.loss); !why.empty()) {
      diverged = "training diverged: " + why + " at update " + std::to_string(s.step) + "; try a smaller learning rate";
      return false;
    }
    sequences += c.batch;
    wallSeconds += s.seconds;
    BatchSample b;
    b.epoch = static_cast<int>((s.step - 1) / perEpoch) + 1;
    b.step = s.step;
    b.loss = s.loss;
    b.accuracy = s.accuracy;
    b.images = sequences;
    b.wallSeconds = wallSeconds;
    b.stepSeconds = s.seconds;
    b.learningRate = s.learningRate;
    m_metrics.push(b);
    m_progress = static_cast<double>(s.step) / lc.steps;
    if (m_onBatch) m_onBatch(b);
    return waitWhilePaused(stop);
  };
  hooks.onEvaluation = [&](const LmEvaluation& e) {
    EpochSample es;
    es.epoch = static_cast<int>((e.step + perEpoch - 1) / perEpoch);
    es.trainLoss = e.trainLoss;
    es.trainAccuracy = e.trainAccuracy;
    es.testLoss = e.validationLoss;
    es.testAccuracy = e.validationAccuracy;
    es.hostSeconds = e.trainSeconds - lastEvalSeconds;
    es.images = (e.step - lastEvalStep) * c.batch;
    es.hostImagesPerSecond = es.hostSeconds > 0 ? static_cast<double>(es.images) / es.hostSeconds : 0;
    es.learningRate = lmLearningRate(lc, e.step - 1, lc.steps);
    lastEvalSeconds = e.trainSeconds;
    lastEvalStep = e.step;
    // The text first: whoever sees the epoch finds its text already there.
    m_metrics.push(TextSample{e.step, e.validationBitsPerChar, e.prompt, e.sampleGreedy, e.sampleTemperature});
    m_metrics.push(es);
    result.epochsCompleted = es.epoch;
  };
  const LmResult r = core::train::trainLanguageModel(*net, corpus, lc, hooks, stop);
  if (!diverged.empty()) {
    result.status = RunStatus::Diverged;
    result.message = diverged;
  } else if (!r.ok) {
    result.status = r.error.find("diverged") != std::string::npos ? RunStatus::Diverged : RunStatus::Failed;
    result.message = r.error;
  } else if (r.stopped || stop.stop_requested()) {
    result.status = RunStatus::Stopped;
    result.message = "stopped by the user after " + std::to_string(r.stepLosses.size()) + " updates";
  } else {
    m_progress = 1;
    result.status = RunStatus::Finished;
  }
}

}  // namespace core::train
