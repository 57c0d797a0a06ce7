// The steady-state benchmark: counts, figures derived consistently, data source named.
#include <gtest/gtest.h>

#include <cmath>

#include "core/train/benchmark.h"
#include "core/util/error.h"

using namespace core::train;

namespace {

TEST(Benchmark, FallsBackToSyntheticBatchesAndSaysSo) {
  BenchConfig c;
  c.modelId = "lenet5";
  c.batch = 16;
  c.threads = 2;
  c.steps = 4;
  c.warmup = 1;
  c.dataDir = "/nonexistent/accellab-bench";
  const BenchResult r = runBenchmark(c);
  EXPECT_EQ(r.data, "synthetic");
  EXPECT_NE(r.dataNote.find("fashion-mnist"), std::string::npos) << r.dataNote;
  EXPECT_EQ(r.steps, 4);
  EXPECT_EQ(r.threads, 2);
  EXPECT_EQ(r.inputShape, (core::nn::Shape{1, 28, 28}));
  EXPECT_EQ(r.optimizer, OptimizerKind::Adam);  // the peer's default for lenet5
  EXPECT_EQ(r.params, 61706);
  EXPECT_GT(r.imagesPerSecond, 0);
  EXPECT_NEAR(r.imagesPerSecond, 4 * 16 / r.wallSeconds, 1e-6 * r.imagesPerSecond);
  EXPECT_NEAR(r.imagesPerSecondMedianStep, 16 / r.stepSecondsMedian, 1e-6 * r.imagesPerSecondMedianStep);
  EXPECT_LE(r.stepSecondsP10, r.stepSecondsMedian);
  EXPECT_LE(r.stepSecondsMedian, r.stepSecondsP90);
  EXPECT_GT(r.trainFlopsPerImage, 2 * r.forwardFlopsPerImage);  // backward costs about twice the forward
  EXPECT_NEAR(r.gflops, r.trainFlopsPerImage * r.imagesPerSecond / 1e9, 1e-9 * r.gflops + 1e-12);
  EXPECT_TRUE(std::isfinite(r.finalLoss));
  EXPECT_GT(peakRssBytes(), 0);
}

TEST(Benchmark, MlpDefaultsToThePeersSgd) {
  BenchConfig c;
  c.modelId = "mlp";
  c.batch = 8;
  c.steps = 1;
  c.warmup = 0;
  c.dataDir = "/nonexistent/accellab-bench";
  const BenchResult r = runBenchmark(c);
  EXPECT_EQ(r.optimizer, OptimizerKind::SGD);
  EXPECT_DOUBLE_EQ(r.learningRate, 0.01);
}

TEST(Benchmark, InvalidConfigIsAnError) {
  BenchConfig c;
  c.steps = 0;
  EXPECT_THROW(runBenchmark(c), core::util::Error);
  c.steps = 1;
  c.batch = 0;
  EXPECT_THROW(runBenchmark(c), core::util::Error);
  c.batch = 1;
  c.modelId = "nope";
  EXPECT_THROW(runBenchmark(c), core::util::Error);
}

}  // namespace
