// The Trainer end to end on small synthetic data: validation, reproducibility, stop, pause,
// divergence, data errors, and that a short run learns.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

#include "core/data/dataset.h"
#include "core/train/divergence.h"
#include "core/train/trainer.h"
#include "core/train/training_data.h"
#include "core/util/error.h"

using namespace core::train;
using core::util::Error;

namespace {

TrainConfig smallConfig() {
  TrainConfig c;
  c.datasetId = "synthetic";
  c.modelId = "mlp";
  c.batch = 32;
  c.epochs = 2;
  c.limit = 256;
  c.testLimit = 128;
  c.threads = 2;
  c.seed = 5;
  c.optimizer = OptimizerKind::Adam;
  c.learningRate = 1e-3;
  return c;
}

std::vector<BatchSample> batchesOf(Trainer& t) {
  std::vector<BatchSample> b;
  std::vector<EpochSample> e;
  t.metrics().drain(b, e);
  return b;
}

void expectInvalid(TrainConfig c, const std::string& fragment) {
  try {
    validate(c);
    ADD_FAILURE() << "accepted; expected an error mentioning " << fragment;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
  // run() never throws for bad input: the run fails with the same message.
  Trainer t(c);
  const RunResult r = t.run({});
  EXPECT_EQ(r.status, RunStatus::Failed);
  EXPECT_NE(r.message.find(fragment), std::string::npos) << r.message;
  EXPECT_EQ(t.status(), RunStatus::Failed);
}

TEST(TrainConfig, InvalidValuesNameTheField) {
  EXPECT_NO_THROW(validate(smallConfig()));
  auto c = smallConfig();
  c.batch = 0;
  expectInvalid(c, "batch");
  c = smallConfig();
  c.epochs = 0;
  expectInvalid(c, "epochs");
  c = smallConfig();
  c.learningRate = -0.1;
  expectInvalid(c, "learning_rate");
  c = smallConfig();
  c.momentum = 1.5;
  expectInvalid(c, "momentum");
  c = smallConfig();
  c.optimizer = OptimizerKind::SGD;
  c.momentum = 0;
  c.nesterov = true;
  expectInvalid(c, "Nesterov");
  c = smallConfig();
  c.weightDecay = -1;
  expectInvalid(c, "weight_decay");
  c = smallConfig();
  c.threads = -2;
  expectInvalid(c, "threads");
  c = smallConfig();
  c.limit = -5;
  expectInvalid(c, "limit");
  c = smallConfig();
  c.modelId = "mlpp";
  expectInvalid(c, "mlpp");
  c = smallConfig();
  c.datasetId = "fashionmnist";
  expectInvalid(c, "fashionmnist");
  c = smallConfig();
  c.datasetId = "imagenet";
  expectInvalid(c, "descriptor");
  // Seeds above 2^53 would be rounded by every JSON file that records the run.
  c = smallConfig();
  c.seed = (std::uint64_t{1} << 53) + 1;
  expectInvalid(c, "2^53");
  c.seed = std::uint64_t{1} << 53;
  EXPECT_NO_THROW(validate(c));
  // The error carries the field, so the CLI can name its flag and the GUI its widget.
  c = smallConfig();
  c.learningRate = 0;
  try {
    validate(c);
    ADD_FAILURE() << "accepted";
  } catch (const core::experiment::FieldError& e) {
    EXPECT_EQ(e.field(), "learning_rate");
    EXPECT_EQ(e.problem().rfind("must be", 0), 0u) << e.problem();
  }
}

TEST(Trainer, SameSeedAndThreadsGiveIdenticalLosses) {
  auto run = [](std::uint64_t seed) {
    auto c = smallConfig();
    c.seed = seed;
    Trainer t(c);
    EXPECT_EQ(t.run({}).status, RunStatus::Finished);
    std::vector<double> losses;
    for (const auto& b : batchesOf(t)) losses.push_back(b.loss);
    return losses;
  };
  const auto a = run(5), b = run(5), other = run(6);
  ASSERT_EQ(a.size(), 16u);  // 2 epochs x 256/32
  EXPECT_EQ(a, b);           // bit-identical
  EXPECT_NE(a, other);
}

TEST(Trainer, ShortRunLearnsAndReportsEpochs) {
  auto c = smallConfig();
  c.limit = 2000;
  c.testLimit = 500;
  c.batch = 64;
  Trainer t(c);
  const RunResult r = t.run({});
  ASSERT_EQ(r.status, RunStatus::Finished) << r.message;
  EXPECT_EQ(r.epochsCompleted, 2);
  EXPECT_DOUBLE_EQ(t.progress(), 1.0);
  std::vector<BatchSample> batches;
  std::vector<EpochSample> epochs;
  t.metrics().drain(batches, epochs);
  ASSERT_EQ(epochs.size(), 2u);
  ASSERT_EQ(batches.size(), 64u);  // 2 x ceil(2000/64): the last partial batch is kept
  EXPECT_EQ(batches.back().images, 4000);
  EXPECT_EQ(batches.back().step, 64);
  EXPECT_EQ(epochs[1].epoch, 2);
  EXPECT_EQ(epochs[1].images, 2000);
  EXPECT_GT(epochs[1].hostSeconds, 0);
  EXPECT_GT(epochs[1].hostImagesPerSecond, 0);
  EXPECT_LT(epochs[1].trainLoss, epochs[0].trainLoss);
  EXPECT_GT(epochs[1].testAccuracy, 0.8);  // chance is 0.1
  EXPECT_LT(epochs[1].testLoss, 1.0);       // chance is ln 10 = 2.3
}

TEST(Trainer, StopIsHonouredAtTheNextBatch) {
  Trainer t(smallConfig());
  std::stop_source source;
  t.setBatchObserver([&](const BatchSample& s) {
    if (s.step == 3) source.request_stop();
  });
  const RunResult r = t.run(source.get_token());
  EXPECT_EQ(r.status, RunStatus::Stopped);
  EXPECT_EQ(r.epochsCompleted, 0);
  EXPECT_EQ(batchesOf(t).size(), 3u);
  EXPECT_EQ(t.status(), RunStatus::Stopped);
}

TEST(Trainer, StopFromAnotherThreadEndsTheRun) {
  auto c = smallConfig();
  c.epochs = 1000;  // far longer than the test waits
  Trainer t(c);
  std::atomic<std::int64_t> steps{0};
  t.setBatchObserver([&](const BatchSample& s) { steps = s.step; });
  std::jthread worker([&](std::stop_token st) { t.run(st); });
  while (steps.load() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  worker.request_stop();
  worker.join();
  EXPECT_EQ(t.status(), RunStatus::Stopped);
}

TEST(Trainer, PauseHoldsTheRunAndResumeFinishesIt) {
  Trainer t(smallConfig());
  t.setBatchObserver([&](const BatchSample& s) {
    if (s.step == 2) t.pause();
  });
  RunResult result;
  std::jthread worker([&](std::stop_token st) { result = t.run(st); });
  while (t.status() != RunStatus::Paused) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(t.paused());
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_EQ(batchesOf(t).size(), 2u);  // nothing trained while paused
  t.resume();
  worker.join();
  EXPECT_EQ(result.status, RunStatus::Finished);
  EXPECT_EQ(batchesOf(t).size(), 14u);
}

TEST(Trainer, StopWhilePausedEndsTheRun) {
  Trainer t(smallConfig());
  t.setBatchObserver([&](const BatchSample& s) {
    if (s.step == 1) t.pause();
  });
  std::jthread worker([&](std::stop_token st) { t.run(st); });
  while (t.status() != RunStatus::Paused) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  worker.request_stop();
  worker.join();
  EXPECT_EQ(t.status(), RunStatus::Stopped);
}

TEST(Trainer, HugeLearningRateDivergesWithoutCrashing) {
  auto c = smallConfig();
  c.optimizer = OptimizerKind::SGD;
  c.momentum = 0.9;
  c.learningRate = 1e12;
  Trainer t(c);
  const RunResult r = t.run({});
  EXPECT_EQ(r.status, RunStatus::Diverged);
  EXPECT_NE(r.message.find("diverged"), std::string::npos) << r.message;
  EXPECT_EQ(t.status(), RunStatus::Diverged);
}

TEST(Trainer, DataErrorsFailTheRunWithTheLoaderMessage) {
  auto c = smallConfig();
  c.datasetId = "mnist";
  c.dataDir = "/nonexistent/accellab-mnist";
  Trainer t(c);
  const RunResult r = t.run({});
  EXPECT_EQ(r.status, RunStatus::Failed);
  EXPECT_NE(r.message.find("/nonexistent/accellab-mnist"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("train-images-idx3-ubyte"), std::string::npos) << r.message;

  auto big = smallConfig();
  big.batch = 512;  // limit is 256
  Trainer t2(big);
  const RunResult r2 = t2.run({});
  EXPECT_EQ(r2.status, RunStatus::Failed);
  EXPECT_NE(r2.message.find("larger than the training set"), std::string::npos) << r2.message;
}

TEST(Trainer, UsesDataItIsGiven) {
  auto c = smallConfig();
  auto data = std::make_shared<core::data::DatasetSplit>(loadTrainingData(c));
  data->train = data->train.limited(64, 1);
  Trainer t(c);
  t.setData(data);
  EXPECT_EQ(t.run({}).status, RunStatus::Finished);
  EXPECT_EQ(batchesOf(t).size(), 4u);  // 2 epochs x 64/32
}

TEST(Trainer, SyntheticDataTakesTheModelsInput) {
  auto c = smallConfig();
  c.modelId = "lenet5";
  EXPECT_EQ(loadOptionsFor(c).shape, (core::nn::Shape{1, 28, 28}));
  c.modelId = "resnet20";
  EXPECT_EQ(loadOptionsFor(c).shape, (core::nn::Shape{3, 32, 32}));
  c.modelId = "imdb-bilstm";  // its own sequence length (100), imdb's vocabulary and binary labels
  const auto text = loadOptionsFor(c);
  EXPECT_EQ(text.shape, (core::nn::Shape{1, 100, 1}));
  EXPECT_EQ(text.vocabulary, 20000);
  EXPECT_EQ(text.classes, 1);
}

TEST(Trainer, PreciseBatchNormStatisticsChangeOnlyTheEvaluation) {
  // resnet20 has batch norm: re-estimating its statistics after each epoch (from 32 or from 64
  // images) must leave the training itself (every batch loss, including the second epoch's)
  // exactly as it was, and change the evaluation.
  auto c = smallConfig();
  c.modelId = "resnet20";
  c.limit = 64;
  c.testLimit = 32;
  auto run = [](const TrainConfig& cfg, std::vector<BatchSample>& b, std::vector<EpochSample>& e) {
    Trainer t(cfg);
    const RunResult r = t.run({});
    ASSERT_EQ(r.status, RunStatus::Finished) << r.message;
    t.metrics().drain(b, e);
  };
  std::vector<BatchSample> fewB, moreB;
  std::vector<EpochSample> fewE, moreE;
  c.bnStatsSamples = 32;
  run(c, fewB, fewE);
  c.bnStatsSamples = 64;
  run(c, moreB, moreE);
  ASSERT_EQ(fewB.size(), moreB.size());
  for (std::size_t i = 0; i < fewB.size(); ++i) EXPECT_EQ(fewB[i].loss, moreB[i].loss) << "batch " << i;
  ASSERT_EQ(moreE.size(), 2u);
  EXPECT_NE(fewE.back().testLoss, moreE.back().testLoss);
  EXPECT_TRUE(std::isfinite(moreE.back().testLoss));
  c.bnStatsSamples = -1;
  expectInvalid(c, "bn_stats_samples");
}

TEST(Trainer, FewStepsPerEpochReEstimateBatchNormStatisticsAndSaySo) {
  // 64 images at batch 32 are 2 steps per epoch: a moving average (momentum 0.99) would still
  // be ~98% its initial statistics. The run uses precise statistics from all 64 images instead
  // (the same evaluation as asking for them) and its message says why.
  EXPECT_EQ(core::experiment::effectiveBnStatsSamples(smallConfig(), 300 * 32), 0);   // enough steps
  auto c = smallConfig();
  c.modelId = "resnet20";
  c.limit = 64;
  c.testLimit = 32;
  ASSERT_EQ(c.bnStatsSamples, 0);
  EXPECT_EQ(core::experiment::effectiveBnStatsSamples(c, 64), 64);
  Trainer automatic(c);
  const RunResult r = automatic.run({});
  ASSERT_EQ(r.status, RunStatus::Finished) << r.message;
  EXPECT_NE(r.message.find("too few for the moving average"), std::string::npos) << r.message;
  std::vector<BatchSample> ab, pb;
  std::vector<EpochSample> ae, pe;
  automatic.metrics().drain(ab, ae);
  c.bnStatsSamples = 64;
  Trainer precise(c);
  const RunResult p = precise.run({});
  ASSERT_EQ(p.status, RunStatus::Finished);
  EXPECT_TRUE(p.message.empty()) << p.message;   // asked for: nothing to explain
  precise.metrics().drain(pb, pe);
  ASSERT_EQ(ae.size(), pe.size());
  for (std::size_t i = 0; i < ae.size(); ++i) EXPECT_EQ(ae[i].testLoss, pe[i].testLoss) << "epoch " << i;
}

TEST(Trainer, TrainsATextModelOnSyntheticTokens) {
  auto c = smallConfig();
  c.modelId = "fasttext";
  c.batch = 128;  // few steps: each updates all ~61 M embedding parameters (dense Adam, as Keras)
  c.limit = 512;
  c.testLimit = 256;
  c.epochs = 3;
  c.learningRate = 0.01;
  Trainer t(c);
  const RunResult r = t.run({});
  ASSERT_EQ(r.status, RunStatus::Finished) << r.message;
  std::vector<BatchSample> b;
  std::vector<EpochSample> e;
  t.metrics().drain(b, e);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_GT(e.back().testAccuracy, 0.7);  // binary: chance is 0.5
}

TEST(MetricsChannel, DrainMovesEverythingOnce) {
  MetricsChannel ch;
  BatchSample b;
  b.step = 1;
  ch.push(b);
  b.step = 2;
  ch.push(b);
  EpochSample e;
  e.epoch = 1;
  ch.push(e);
  std::vector<BatchSample> bs{BatchSample{}};
  std::vector<EpochSample> es;
  ch.drain(bs, es);
  ASSERT_EQ(bs.size(), 3u);  // appended
  EXPECT_EQ(bs[2].step, 2);
  EXPECT_EQ(es.size(), 1u);
  ch.drain(bs, es);
  EXPECT_EQ(bs.size(), 3u);
  EXPECT_STREQ(runStatusName(RunStatus::Diverged), "diverged");
}

}  // namespace

TEST(Divergence, FiniteButHundredfoldLossForThreeEvaluationsIsDiverged) {
  core::train::DivergenceWatch w;
  EXPECT_EQ(w.observe(2.3), "");
  EXPECT_EQ(w.observe(500), "");   // one spike
  EXPECT_EQ(w.observe(1.0), "");   // recovered: the count starts again
  EXPECT_EQ(w.observe(1e10), "");
  EXPECT_EQ(w.observe(1e10), "");
  const std::string why = w.observe(1e10);
  EXPECT_NE(why.find("100x its first value"), std::string::npos) << why;
  core::train::DivergenceWatch nan;
  EXPECT_NE(nan.observe(std::nan("")).find("NaN"), std::string::npos);
}

TEST(Trainer, AdamAtLearningRateTenIsReportedDivergedNotFinished) {
  // Loss up to 1e10 while finite used to end as "finished".
  auto c = smallConfig();
  c.learningRate = 10;
  c.epochs = 3;
  Trainer t(c);
  const RunResult r = t.run({});
  EXPECT_EQ(r.status, RunStatus::Diverged) << r.message;
  EXPECT_NE(r.message.find("smaller learning rate"), std::string::npos) << r.message;
}

TEST(Trainer, NoTestImagesMeansNoTestFiguresNotZero) {
  auto c = smallConfig();
  auto data = std::make_shared<core::data::DatasetSplit>(loadTrainingData(c));
  const auto& test = data->test;
  data->test = core::data::Dataset(test.id(), test.shape(), test.classes(),
                                   Eigen::MatrixXf(test.samples().rows(), 0), {}, test.vocabulary());
  Trainer t(c);
  t.setData(data);
  ASSERT_EQ(t.run({}).status, RunStatus::Finished);
  std::vector<BatchSample> b;
  std::vector<EpochSample> e;
  t.metrics().drain(b, e);
  ASSERT_FALSE(e.empty());
  EXPECT_TRUE(std::isnan(e.back().testAccuracy));  // absent, written as null
  EXPECT_TRUE(std::isnan(e.back().testLoss));
  EXPECT_TRUE(std::isfinite(e.back().trainAccuracy));
}
