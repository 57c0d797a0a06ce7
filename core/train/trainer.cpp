#include "core/train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <new>
#include <oneapi/tbb/task_arena.h>
#include <sstream>

#include "core/data/batcher.h"
#include "core/data/dataset_info.h"
#include "core/nn/graph_network.h"
#include "core/nn/network.h"
#include "core/nn/zoo.h"
#include "core/train/divergence.h"
#include "core/train/optimizer.h"
#include "core/train/training_data.h"
#include "core/util/error.h"

namespace core::train {

using util::Error;

namespace {

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Test-set evaluation runs in slices of this many samples, checking for a stop between them.
constexpr std::int64_t kEvalSlice = 1024;

std::string number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace

Trainer::Trainer(TrainConfig config) : m_config(std::move(config)) {}
Trainer::~Trainer() = default;

void Trainer::setData(std::shared_ptr<const data::DatasetSplit> data) { m_data = std::move(data); }
void Trainer::setBatchObserver(std::function<void(const BatchSample&)> observer) { m_onBatch = std::move(observer); }

void Trainer::pause() {
  const std::lock_guard lock(m_pauseMutex);
  m_paused = true;
}

void Trainer::resume() {
  {
    const std::lock_guard lock(m_pauseMutex);
    m_paused = false;
  }
  m_pauseCv.notify_all();
}

void Trainer::setPrompt(std::string prompt) {
  const std::lock_guard lock(m_promptMutex);
  m_prompt = std::move(prompt);
}

std::string Trainer::prompt() const {
  const std::lock_guard lock(m_promptMutex);
  return m_prompt;
}

bool Trainer::paused() const {
  const std::lock_guard lock(m_pauseMutex);
  return m_paused;
}

bool Trainer::waitWhilePaused(const std::stop_token& stop) {
  std::unique_lock lock(m_pauseMutex);
  if (m_paused) {
    m_status = RunStatus::Paused;
    m_pauseCv.wait(lock, stop, [this] { return !m_paused; });
    m_status = RunStatus::Running;
  }
  return !stop.stop_requested();
}

RunResult Trainer::run(std::stop_token stop) {
  RunResult result;
  m_status = RunStatus::Running;
  m_progress = 0;
  try {
    validate(m_config);
    if (experiment::isLanguageModel(m_config.modelId)) {
      trainLanguageModel(stop, result);
      m_status = result.status;
      return result;
    }
    std::shared_ptr<const data::DatasetSplit> data = m_data;
    if (!data) data = std::make_shared<const data::DatasetSplit>(loadTrainingData(m_config));
    if (data->train.empty()) throw Error("dataset '" + m_config.datasetId + "': the training set is empty");
    if (m_config.batch > data->train.size())
      throw Error("batch " + std::to_string(m_config.batch) + " is larger than the training set (" +
                  std::to_string(data->train.size()) + " samples" + (m_config.limit > 0 ? " after the limit" : "") + ")");
    oneapi::tbb::task_arena arena(threadCountFor(m_config));
    arena.execute([&] { trainEpochs(stop, *data, result); });
  } catch (const Error& e) {
    result.status = RunStatus::Failed;
    result.message = e.what();
  } catch (const std::bad_alloc&) {
    result.status = RunStatus::Failed;
    result.message = "out of memory: the model, batch or dataset does not fit in this machine's RAM";
  } catch (const std::exception& e) {
    result.status = RunStatus::Failed;
    result.message = std::string("internal error: ") + e.what();
  }
  m_status = result.status;
  return result;
}

void Trainer::trainEpochs(const std::stop_token& stop, const data::DatasetSplit& data, RunResult& result) {
  const TrainConfig& c = m_config;
  std::unique_ptr<nn::Network> net = nn::buildModel(c.modelId, modelInputFor(data.train));
  net->initialize(c.seed);
  if (c.fileWeights) nn::loadInitialValues(*net, nn::fileWeights(c.modelId));
  net->setPrecision(c.precision);
  const std::unique_ptr<Optimizer> optimizer = makeOptimizer(optimizerConfig(c));
  data::Batcher batcher(data.train, c.batch, c.seed);
  const LrSchedule schedule(c.schedule, c.learningRate, c.epochs, batcher.batchCount());

  // Batch-norm statistics: the moving average only where an epoch has the steps it needs.
  const std::int64_t bnSamples = net->hasBatchNorm() ? experiment::effectiveBnStatsSamples(c, data.train.size()) : 0;
  if (net->hasBatchNorm() && c.bnStatsSamples == 0 && bnSamples > 0)
    result.message = "batch-norm statistics re-estimated from " + std::to_string(bnSamples) +
                     " training images after each epoch: " + std::to_string(batcher.batchCount()) +
                     " steps per epoch are too few for the moving average (it needs about " +
                     std::to_string(experiment::kMovingAverageMinSteps) + ")";

  Eigen::MatrixXf x;
  std::vector<int> y;
  std::int64_t step = 0, images = 0;
  double wallSeconds = 0;
  DivergenceWatch divergence;
  auto stopped = [&] {
    result.status = RunStatus::Stopped;
    result.message = "stopped by the user after " + std::to_string(step) + " steps";
  };

  for (int epoch = 0; epoch < c.epochs; ++epoch) {
    batcher.startEpoch(epoch);
    // Train loss/accuracy of an epoch: the sample-weighted mean over its batches, measured
    // during training (dropout on), as Keras and PyTorch loops report it.
    double lossSum = 0, epochSeconds = 0;
    std::int64_t correct = 0, seen = 0;
    for (std::int64_t b = 0; b < batcher.batchCount(); ++b) {
      if (!waitWhilePaused(stop)) return stopped();
      const auto t0 = Clock::now();
      batcher.fetch(b, x, y);
      const nn::StepResult r = net->trainStep(x, y, stepSeed(c.seed, step + 1));
      const double lr = schedule.rate(epoch, b);
      if (const std::string why = divergence.observe(r.loss); !why.empty()) {
        result.status = RunStatus::Diverged;
        result.message = "training diverged: " + why + " at epoch " + std::to_string(epoch + 1) + ", step " +
                         std::to_string(step + 1) + " (learning rate " + number(lr) + "); try a smaller learning rate";
        return;
      }
      optimizer->step(net->params(), net->grads(), lr);
      const double dt = secondsSince(t0);
      wallSeconds += dt;
      epochSeconds += dt;
      ++step;
      images += r.samples;
      lossSum += r.loss * static_cast<double>(r.samples);
      correct += r.correct;
      seen += r.samples;

      BatchSample s;
      s.epoch = epoch + 1;
      s.step = step;
      s.loss = r.loss;
      s.accuracy = r.samples > 0 ? static_cast<double>(r.correct) / static_cast<double>(r.samples) : 0;
      s.images = images;
      s.wallSeconds = wallSeconds;
      s.stepSeconds = dt;
      s.learningRate = lr;
      m_metrics.push(s);
      m_progress = (epoch + static_cast<double>(b + 1) / static_cast<double>(batcher.batchCount())) / c.epochs;
      if (m_onBatch) m_onBatch(s);
    }

    const auto e0 = Clock::now();
    // Precise batch-norm statistics: the first training batches of this epoch's order again,
    // forward only, with the final weights (whole batches of the training size).
    if (bnSamples > 0) {
      const std::int64_t full = data.train.size() / c.batch;
      const std::int64_t n = std::clamp<std::int64_t>((bnSamples + c.batch - 1) / c.batch, 1, std::max<std::int64_t>(full, 1));
      for (std::int64_t k = 0; k < n; ++k) {
        if (stop.stop_requested()) return stopped();
        batcher.fetch(k, x, y);
        net->accumulateBatchNormStatistics(x, static_cast<int>(k));
      }
    }
    // Test-set evaluation (inference mode), in slices so a stop is honoured quickly.
    double testLossSum = 0;
    std::int64_t testCorrect = 0, testSeen = 0;
    for (std::int64_t begin = 0; begin < data.test.size(); begin += kEvalSlice) {
      if (stop.stop_requested()) return stopped();
      data.test.slice(begin, std::min(data.test.size(), begin + kEvalSlice), x, y);
      const nn::StepResult r = net->evaluate(x, y);
      testLossSum += r.loss * static_cast<double>(r.samples);
      testCorrect += r.correct;
      testSeen += r.samples;
    }
    EpochSample es;
    es.epoch = epoch + 1;
    es.trainLoss = seen > 0 ? lossSum / static_cast<double>(seen) : 0;
    es.trainAccuracy = seen > 0 ? static_cast<double>(correct) / static_cast<double>(seen) : 0;
    // No test images: no test figures (NaN, written as null), never a 0 that reads as measured.
    const double absent = std::numeric_limits<double>::quiet_NaN();
    es.testLoss = testSeen > 0 ? testLossSum / static_cast<double>(testSeen) : absent;
    es.testAccuracy = testSeen > 0 ? static_cast<double>(testCorrect) / static_cast<double>(testSeen) : absent;
    es.hostSeconds = epochSeconds;
    es.hostImagesPerSecond = epochSeconds > 0 ? static_cast<double>(seen) / epochSeconds : 0;
    es.evalSeconds = secondsSince(e0);
    es.images = seen;
    es.learningRate = schedule.rate(epoch, batcher.batchCount() - 1);
    if (testSeen > 0 && !std::isfinite(es.testLoss)) {
      result.status = RunStatus::Diverged;
      result.message = "training diverged: the test loss is not finite after epoch " + std::to_string(epoch + 1) +
                       "; try a smaller learning rate";
      return;
    }
    m_metrics.push(es);
    result.epochsCompleted = epoch + 1;
  }
  m_progress = 1;
  result.status = RunStatus::Finished;
}

}  // namespace core::train
