// The Network: flat parameters, loss heads, train/eval modes, reproducibility, learning.
#include <gtest/gtest.h>

#include <oneapi/tbb/task_arena.h>

#include <cmath>
#include <random>

#include "core/nn/batch_norm.h"
#include "core/nn/conv2d.h"
#include "core/nn/dense.h"
#include "core/nn/dropout.h"
#include "core/nn/embedding.h"
#include "core/nn/network.h"
#include "core/nn/pooling.h"
#include "core/nn/shape_layers.h"
#include "core/nn/zoo.h"
#include "core/util/error.h"

namespace core::nn {
namespace {

std::unique_ptr<Network> smallMlp(int classes, Shape in = {6, 1, 1}) {
  auto net = std::make_unique<Network>("test-mlp", in, classes);
  net->add(std::make_unique<Dense>(DenseOptions{8, Activation::Tanh, true, Init::GlorotUniform}));
  net->add(std::make_unique<Dense>(DenseOptions{classes, Activation::Linear, true, Init::GlorotUniform}));
  return net;
}

std::unique_ptr<Network> smallCnn() {
  auto net = std::make_unique<Network>("test-cnn", Shape{1, 8, 8}, 4);
  net->add(std::make_unique<BatchNorm>());
  Conv2DOptions c;
  c.filters = 6;
  c.padding = Padding::same();
  c.activation = Activation::ELU;
  net->add(std::make_unique<Conv2D>(c));
  net->add(std::make_unique<MaxPool2D>(PoolOptions{}));
  net->add(std::make_unique<Dropout>(0.25f));
  net->add(std::make_unique<Flatten>());
  net->add(std::make_unique<Dense>(DenseOptions{16, Activation::ReLU, true, Init::GlorotUniform}));
  net->add(std::make_unique<Dropout>(0.5f));
  net->add(std::make_unique<Dense>(DenseOptions{4, Activation::Linear, true, Init::GlorotUniform}));
  return net;
}

Eigen::MatrixXf randomMatrix(Eigen::Index rows, Eigen::Index cols, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> n(0, 1);
  Eigen::MatrixXf m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = n(rng);
  return m;
}

// A learnable synthetic task: class k images carry a bright k-th quadrant plus noise.
void quadrantData(int n, std::uint32_t seed, Eigen::MatrixXf& x, std::vector<int>& y) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0, 0.6f);
  x.resize(64, n);
  y.resize(static_cast<std::size_t>(n));
  for (int s = 0; s < n; ++s) {
    const int k = s % 4;
    y[static_cast<std::size_t>(s)] = k;
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 8; ++c) {
        const bool bright = (r / 4) * 2 + (c / 4) == k;
        x(r * 8 + c, s) = (bright ? 1.0f : 0.0f) + noise(rng);
      }
  }
}

void checkNetworkGradient(Network& net, const Eigen::MatrixXf& x, const std::vector<int>& labels) {
  net.trainStep(x, labels, 5);
  const Eigen::VectorXf g = net.grads();
  Eigen::VectorXf& p = net.params();
  const float h = 1e-2f;
  for (Eigen::Index i = 0; i < p.size(); i += 3) {
    const float saved = p[i];
    p[i] = saved + h;
    const double up = net.trainStep(x, labels, 5).loss;
    p[i] = saved - h;
    const double down = net.trainStep(x, labels, 5).loss;
    p[i] = saved;
    const double numeric = (up - down) / (2.0 * h);
    EXPECT_NEAR(g[i], numeric, 2e-3 + 2e-2 * std::abs(numeric)) << "param " << i;
  }
}

TEST(Network, SoftmaxCrossEntropyGradientMatchesFiniteDifferences) {
  auto net = smallMlp(5);
  net->initialize(3);
  checkNetworkGradient(*net, randomMatrix(6, 7, 1), {0, 1, 2, 3, 4, 0, 2});
}

TEST(Network, SigmoidBinaryCrossEntropyForOneOutput) {
  auto net = smallMlp(1);
  net->initialize(3);
  const Eigen::MatrixXf x = randomMatrix(6, 6, 2);
  const std::vector<int> y = {0, 1, 1, 0, 1, 0};
  checkNetworkGradient(*net, x, y);
  // The loss is the mean binary cross-entropy of the sigmoid of the logit.
  const Eigen::MatrixXf p = net->predict(x);
  ASSERT_EQ(p.rows(), 1);
  double bce = 0;
  for (int s = 0; s < 6; ++s) bce -= y[static_cast<std::size_t>(s)] ? std::log(p(0, s)) : std::log(1 - p(0, s));
  EXPECT_NEAR(net->evaluate(x, y).loss, bce / 6, 1e-5);
  EXPECT_THROW(net->evaluate(x, {0, 1, 2, 0, 1, 0}), util::Error);  // label 2 for a binary head
}

TEST(Network, PredictGivesProbabilitiesAndEvaluateSlicesLargeBatches) {
  auto net = smallMlp(3);
  net->initialize(9);
  const Eigen::MatrixXf x = randomMatrix(6, 700, 4);  // more than one inference slice
  std::vector<int> y(700);
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = static_cast<int>(i % 3);
  const Eigen::MatrixXf p = net->predict(x);
  ASSERT_EQ(p.cols(), 700);
  EXPECT_LT((p.colwise().sum().array() - 1.0f).abs().maxCoeff(), 1e-5f);
  double loss = 0;
  std::int64_t correct = 0;
  for (int s = 0; s < 700; ++s) {
    Eigen::Index arg;
    p.col(s).maxCoeff(&arg);
    correct += arg == y[static_cast<std::size_t>(s)];
    loss -= std::log(static_cast<double>(p(y[static_cast<std::size_t>(s)], s)));
  }
  const StepResult r = net->evaluate(x, y);
  EXPECT_EQ(r.samples, 700);
  EXPECT_EQ(r.correct, correct);
  EXPECT_NEAR(r.loss, loss / 700, 1e-4);
}

TEST(Network, SameSeedAndThreadsGiveBitIdenticalTraining) {
  Eigen::MatrixXf x;
  std::vector<int> y;
  quadrantData(64, 7, x, y);
  auto run = [&](int threads) {
    std::vector<double> losses;
    Eigen::VectorXf params;
    tbb::task_arena arena(threads);
    arena.execute([&] {
      auto net = smallCnn();
      net->initialize(123);
      for (int step = 0; step < 6; ++step) {
        losses.push_back(net->trainStep(x, y, 1000 + static_cast<std::uint64_t>(step)).loss);
        net->params() -= 0.05f * net->grads();
      }
      params = net->params();
    });
    return std::make_pair(losses, params);
  };
  const auto a = run(2), b = run(2);
  EXPECT_EQ(a.first, b.first);
  EXPECT_TRUE(a.second == b.second);
  const auto c = run(1), d = run(1);
  EXPECT_EQ(c.first, d.first);
  // Different thread counts agree up to rounding.
  for (std::size_t i = 0; i < a.first.size(); ++i) EXPECT_NEAR(a.first[i], c.first[i], 1e-4);
}

TEST(Network, DifferentSeedsGiveDifferentInitAndDropout) {
  auto a = smallCnn(), b = smallCnn();
  a->initialize(1);
  b->initialize(2);
  EXPECT_FALSE(a->params() == b->params());
  Eigen::MatrixXf x;
  std::vector<int> y;
  quadrantData(16, 1, x, y);
  const double l1 = a->trainStep(x, y, 1).loss, l2 = a->trainStep(x, y, 2).loss, l1again = a->trainStep(x, y, 1).loss;
  EXPECT_NE(l1, l2);  // another dropout mask
  EXPECT_EQ(l1, l1again);
}

TEST(Network, ShortTrainingOnSyntheticDataLearns) {
  Eigen::MatrixXf x, xt;
  std::vector<int> y, yt;
  quadrantData(512, 11, x, y);
  quadrantData(256, 12, xt, yt);
  auto net = smallCnn();
  net->initialize(5);
  const double before = static_cast<double>(net->evaluate(xt, yt).correct) / 256;
  Eigen::VectorXf velocity = Eigen::VectorXf::Zero(net->paramCount());
  std::uint64_t step = 0;
  for (int epoch = 0; epoch < 3; ++epoch)
    for (int b = 0; b < 512; b += 32) {
      std::vector<int> yb(y.begin() + b, y.begin() + b + 32);
      net->trainStep(x.middleCols(b, 32), yb, ++step);
      velocity = 0.9f * velocity - 0.05f * net->grads();
      net->params() += velocity;
    }
  const StepResult after = net->evaluate(xt, yt);
  EXPECT_LT(before, 0.5);
  EXPECT_GT(static_cast<double>(after.correct) / 256, 0.9) << "loss " << after.loss;
}

TEST(Network, BatchNormRunningStatisticsAndEvalMode) {
  auto net = std::make_unique<Network>("bn", Shape{2, 1, 1}, 2);
  net->add(std::make_unique<BatchNorm>(BatchNormOptions{1e-3f, 0.99f, true, true}));
  net->initialize(0);
  Eigen::MatrixXf x(2, 4);
  x << 1, 2, 3, 6,  //
      -1, -1, -1, -1;
  net->trainStep(x, {0, 1, 0, 1}, 0);
  ASSERT_EQ(net->state().size(), 4);
  EXPECT_NEAR(net->state()[0], 0.01f * 3.0f, 1e-6);          // running mean of feature 0
  EXPECT_NEAR(net->state()[1], 0.01f * -1.0f, 1e-6);
  EXPECT_NEAR(net->state()[2], 0.99f + 0.01f * (14.0f / 3), 1e-5);  // unbiased variance 14/3
  EXPECT_NEAR(net->state()[3], 0.99f, 1e-6);
  // Inference normalises with the running statistics, not the batch's.
  const Eigen::MatrixXf p = net->predict(x);
  const float z0 = (1 - 0.03f) / std::sqrt(net->state()[2] + 1e-3f), z1 = (-1 + 0.01f) / std::sqrt(0.99f + 1e-3f);
  EXPECT_NEAR(p(0, 0), 1 / (1 + std::exp(z1 - z0)), 1e-5);
}

TEST(Network, BatchNormStatisticsPassAveragesBatchesWithDropoutOff) {
  // Dropout in front of batch norm: a statistics pass must see the data as inference will
  // (dropout off), and average the batches' statistics instead of the moving average.
  auto net = std::make_unique<Network>("bn-stats", Shape{2, 1, 1}, 2);
  net->add(std::make_unique<Dropout>(0.5f));
  net->add(std::make_unique<BatchNorm>(BatchNormOptions{1e-3f, 0.99f, true, true}));
  net->initialize(0);
  EXPECT_TRUE(net->hasBatchNorm());
  EXPECT_FALSE(smallMlp(2)->hasBatchNorm());
  Eigen::MatrixXf a(2, 4), b(2, 4);
  a << 1, 2, 3, 6,  //
      0, 0, 0, 0;
  b << 3, 4, 5, 8,  //
      2, 2, 2, 2;
  net->trainStep(a, {0, 1, 0, 1}, 7);  // leaves moving-average statistics behind
  const Eigen::VectorXf params = net->params();
  net->accumulateBatchNormStatistics(a, 0);
  net->accumulateBatchNormStatistics(b, 1);
  EXPECT_EQ(net->params(), params);                  // parameters untouched
  EXPECT_NEAR(net->state()[0], (3.0f + 5.0f) / 2, 1e-5);  // mean of the two batch means
  EXPECT_NEAR(net->state()[1], (0.0f + 2.0f) / 2, 1e-5);
  EXPECT_NEAR(net->state()[2], 14.0f / 3, 1e-4);     // both batches: unbiased variance 14/3
  EXPECT_NEAR(net->state()[3], 0.0f, 1e-6);
  // Pass 0 starts over: the earlier statistics are discarded.
  net->accumulateBatchNormStatistics(b, 0);
  EXPECT_NEAR(net->state()[0], 5.0f, 1e-5);
  EXPECT_NEAR(net->state()[1], 2.0f, 1e-5);
  EXPECT_THROW(net->accumulateBatchNormStatistics(b, -1), util::Error);
}

TEST(Network, DropoutDropsAboutTheRateAndScalesTheRest) {
  Dropout d(0.3f, "d");
  d.build({1000, 1, 1});
  Vector none;
  ParamBinder binder(nullptr, nullptr, nullptr, nullptr);
  d.bind(binder);
  const Matrix x = Matrix::Ones(1000, 20);
  PassContext ctx;
  ctx.training = true;
  ctx.stepSeed = 3;
  const Matrix y = d.forward(x, ctx);
  const double kept = static_cast<double>((y.array() > 0).count()) / static_cast<double>(y.size());
  EXPECT_NEAR(kept, 0.7, 0.02);
  EXPECT_NEAR(y.maxCoeff(), 1 / 0.7f, 1e-6);
  ctx.training = false;
  EXPECT_EQ(&d.forward(x, ctx), &x);  // inference: the data passes untouched
}

TEST(Network, ErrorsNameTheProblem) {
  auto net = smallMlp(3);
  const Eigen::MatrixXf x = randomMatrix(6, 2, 1);
  EXPECT_THROW(net->trainStep(x, {0, 1}, 0), util::Error);  // not initialised
  net->initialize(1);
  EXPECT_THROW(net->add(std::make_unique<Flatten>()), util::Error);
  EXPECT_THROW(net->trainStep(randomMatrix(5, 2, 1), {0, 1}, 0), util::Error);  // wrong rows
  EXPECT_THROW(net->trainStep(x, {0}, 0), util::Error);                       // label count
  try {
    net->trainStep(x, {0, 7}, 0);
    FAIL();
  } catch (const util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("label 7"), std::string::npos) << e.what();
  }
  auto wrong = std::make_unique<Network>("wrong", Shape{4, 1, 1}, 3);
  wrong->add(std::make_unique<Dense>(DenseOptions{2, Activation::Linear, true, Init::GlorotUniform}));
  EXPECT_THROW(wrong->initialize(0), util::Error);  // 2 outputs for 3 classes
}

TEST(Network, TokenLayersRejectIdsOutsideTheVocabulary) {
  OneHot oneHot(5, "one_hot");
  oneHot.build({1, 3, 1});
  Matrix ids(3, 2);
  ids << 0, 4,  //
      2, 1,     //
      3, 0;
  PassContext ctx;
  const Matrix y = oneHot.forward(ids, ctx);
  ASSERT_EQ(y.rows(), 15);
  EXPECT_EQ(y.col(0).sum(), 3.0f);
  EXPECT_EQ(y(0 * 5 + 0, 0), 1.0f);   // step 0 of sample 0 is token 0
  EXPECT_EQ(y(1 * 5 + 1, 1), 1.0f);   // step 1 of sample 1 is token 1
  ids(1, 1) = 5;
  EXPECT_THROW(oneHot.forward(ids, ctx), util::Error);
  ids(1, 1) = 1.5f;
  EXPECT_THROW(oneHot.forward(ids, ctx), util::Error);

  auto net = std::make_unique<Network>("emb", Shape{1, 3, 1}, 2);
  net->add(std::make_unique<Embedding>(10, 4));
  net->add(std::make_unique<Flatten>());
  net->add(std::make_unique<Dense>(DenseOptions{2, Activation::Linear, true, Init::GlorotUniform}));
  net->initialize(1);
  Eigen::MatrixXf tokens(3, 1);
  tokens << 1, 9, 10;
  try {
    net->trainStep(tokens, {0}, 0);
    FAIL();
  } catch (const util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("token id 10"), std::string::npos) << e.what();
  }
}

TEST(Network, EveryTrainableZooModelTakesAStep) {
  struct Case {
    const char* id;
    ModelInput in;
  };
  for (const Case& c : {Case{"mlp", {{1, 28, 28}, 10, 0}}, Case{"lenet5", {{1, 28, 28}, 10, 0}},
                        Case{"mnist-cnn", {{1, 28, 28}, 10, 0}}, Case{"colab-cnn", {{1, 28, 28}, 10, 0}},
                        Case{"cifar-cnn", {{3, 32, 32}, 10, 0}}, Case{"resnet20", {{3, 32, 32}, 10, 0}},
                        Case{"fasttext", {{1, 30, 1}, 1, 500}}, Case{"imdb-bilstm", {{1, 12, 1}, 1, 500}},
                        Case{"lstm-textgen", {{1, 10, 1}, 20, 20}}}) {
    auto net = buildModel(c.id, c.in);
    net->initialize(1);
    const int batch = 4;
    Eigen::MatrixXf x = randomMatrix(net->inputShape().size(), batch, 3);
    if (c.in.vocabulary > 0) x = (x.array().abs() * 5).floor().min(static_cast<float>(c.in.vocabulary - 1)).matrix();
    std::vector<int> y(batch);
    for (int i = 0; i < batch; ++i) y[static_cast<std::size_t>(i)] = i % std::max(2, net->classes() == 1 ? 2 : net->classes());
    const StepResult r = net->trainStep(x, y, 1);
    EXPECT_TRUE(std::isfinite(r.loss)) << c.id;
    EXPECT_GT(net->grads().norm(), 0) << c.id;
    EXPECT_TRUE(net->grads().allFinite()) << c.id;
    EXPECT_EQ(net->predict(x).cols(), batch) << c.id;
  }
}

TEST(Network, ReferenceModelsTrainAtSmallInputs) {
  // The reference architectures are trainable too (slowly): one step each on tiny images.
  struct Case {
    const char* id;
    Shape in;
  };
  for (const Case& c : {Case{"resnet50", {3, 64, 64}}, Case{"vgg16", {3, 32, 32}}, Case{"alexnet", {3, 96, 96}},
                        Case{"xception", {3, 71, 71}}, Case{"inception-v3", {3, 75, 75}}}) {
    auto net = buildModel(c.id, ModelInput{c.in, 5, 0});
    net->initialize(2);
    const Eigen::MatrixXf x = randomMatrix(c.in.size(), 2, 9);
    const StepResult r = net->trainStep(x, {1, 4}, 3);
    EXPECT_TRUE(std::isfinite(r.loss)) << c.id;
    EXPECT_TRUE(net->grads().allFinite()) << c.id;
    EXPECT_GT(net->grads().norm(), 0) << c.id;
  }
}

}  // namespace
}  // namespace core::nn
