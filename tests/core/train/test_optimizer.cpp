// Optimizer steps and schedules against values worked out by hand (in the comments).
#include <gtest/gtest.h>

#include <cmath>

#include "core/train/optimizer.h"
#include "core/util/error.h"

using namespace core::train;

namespace {

Eigen::VectorXf vec(std::initializer_list<float> v) {
  Eigen::VectorXf x(static_cast<Eigen::Index>(v.size()));
  Eigen::Index i = 0;
  for (float f : v) x(i++) = f;
  return x;
}

OptimizerConfig sgd(double momentum, bool nesterov = false, double wd = 0) {
  OptimizerConfig c;
  c.kind = OptimizerKind::SGD;
  c.momentum = momentum;
  c.nesterov = nesterov;
  c.weightDecay = wd;
  return c;
}

TEST(Sgd, PlainStep) {
  SgdOptimizer o(sgd(0));
  Eigen::VectorXf p = vec({1.0f, -2.0f});
  o.step(p, vec({0.5f, -1.0f}), 0.1);  // p - 0.1 g = {0.95, -1.9}
  EXPECT_FLOAT_EQ(p(0), 0.95f);
  EXPECT_FLOAT_EQ(p(1), -1.9f);
}

TEST(Sgd, MomentumAccumulates) {
  SgdOptimizer o(sgd(0.9));
  Eigen::VectorXf p = vec({1.0f});
  const Eigen::VectorXf g = vec({1.0f});
  o.step(p, g, 0.1);  // v = 1;           p = 1 - 0.1 = 0.9
  EXPECT_FLOAT_EQ(p(0), 0.9f);
  o.step(p, g, 0.1);  // v = 0.9 + 1 = 1.9; p = 0.9 - 0.19 = 0.71
  EXPECT_FLOAT_EQ(p(0), 0.71f);
  o.step(p, g, 0.1);  // v = 1.71 + 1 = 2.71; p = 0.71 - 0.271 = 0.439
  EXPECT_NEAR(p(0), 0.439f, 1e-6);
  EXPECT_EQ(o.steps(), 3);
}

TEST(Sgd, NesterovLooksAhead) {
  SgdOptimizer o(sgd(0.9, true));
  Eigen::VectorXf p = vec({1.0f});
  const Eigen::VectorXf g = vec({1.0f});
  o.step(p, g, 0.1);  // v = 1;   d = g + 0.9 v = 1.9;  p = 1 - 0.19 = 0.81
  EXPECT_NEAR(p(0), 0.81f, 1e-6);
  o.step(p, g, 0.1);  // v = 1.9; d = 1 + 1.71 = 2.71; p = 0.81 - 0.271 = 0.539
  EXPECT_NEAR(p(0), 0.539f, 1e-6);
}

TEST(Sgd, WeightDecayAddsL2Gradient) {
  SgdOptimizer o(sgd(0, false, 0.5));
  Eigen::VectorXf p = vec({2.0f});
  o.step(p, vec({0.0f}), 0.1);  // g = 0 + 0.5*2 = 1; p = 2 - 0.1 = 1.9
  EXPECT_FLOAT_EQ(p(0), 1.9f);
}

TEST(Adam, FirstStepsByHand) {
  OptimizerConfig c;
  c.kind = OptimizerKind::Adam;
  AdamOptimizer o(c);
  Eigen::VectorXf p = vec({1.0f, 1.0f});
  // Step 1, g = {2, -0.5}: m = 0.1 g, s = 0.001 g^2; mhat = g, shat = g^2,
  // so the step is lr * g / (|g| + eps) = lr * sign(g) (to 1e-8): p = {0.99, 1.01}.
  o.step(p, vec({2.0f, -0.5f}), 0.01);
  EXPECT_NEAR(p(0), 0.99f, 1e-6);
  EXPECT_NEAR(p(1), 1.01f, 1e-6);
  // Step 2, g = {1, -0.5}: m = 0.9*0.2 + 0.1*1 = 0.28, s = 0.999*0.004 + 0.001*1 = 0.004996;
  // mhat = 0.28/0.19 = 1.473684, shat = 0.004996/0.001999 = 2.499250, sqrt = 1.580902;
  // step = 0.01 * 1.473684 / 1.580902 = 0.0093218;  p0 = 0.99 - 0.0093218 = 0.9806782.
  // Second element: g constant -0.5, so mhat = -0.5, sqrt(shat) = 0.5: p1 = 1.01 + 0.01 = 1.02.
  o.step(p, vec({1.0f, -0.5f}), 0.01);
  EXPECT_NEAR(p(0), 0.9806782f, 2e-6);
  EXPECT_NEAR(p(1), 1.02f, 1e-6);
}

TEST(Adam, WeightDecayEntersTheMoments) {
  OptimizerConfig c;
  c.kind = OptimizerKind::Adam;
  c.weightDecay = 0.1;
  AdamOptimizer o(c);
  Eigen::VectorXf p = vec({-3.0f});
  // g = 0 + 0.1 * (-3) = -0.3: the first step moves by +lr.
  o.step(p, vec({0.0f}), 0.5);
  EXPECT_NEAR(p(0), -2.5f, 1e-6);
}

TEST(Optimizer, SizeMismatchAndBadConfigAreErrors) {
  SgdOptimizer o(sgd(0.9));
  Eigen::VectorXf p = vec({1.0f, 2.0f});
  EXPECT_THROW(o.step(p, vec({1.0f}), 0.1), core::util::Error);
  o.step(p, vec({1.0f, 1.0f}), 0.1);
  Eigen::VectorXf bigger = vec({1.0f, 2.0f, 3.0f});
  EXPECT_THROW(o.step(bigger, vec({1.0f, 1.0f, 1.0f}), 0.1), core::util::Error);
  o.reset();
  EXPECT_NO_THROW(o.step(bigger, vec({1.0f, 1.0f, 1.0f}), 0.1));
  EXPECT_THROW(SgdOptimizer(sgd(1.5)), core::util::Error);
  EXPECT_THROW(SgdOptimizer(sgd(0, true)), core::util::Error);
  EXPECT_THROW(SgdOptimizer(sgd(0.9, false, -1)), core::util::Error);
}

TEST(Optimizer, LargeVectorsMatchTheSerialRule) {
  // Big enough to be split across threads: the result equals the element-wise formula.
  const Eigen::Index n = 200000;
  Eigen::VectorXf p = Eigen::VectorXf::LinSpaced(n, -1.0f, 1.0f), g = Eigen::VectorXf::LinSpaced(n, 2.0f, -2.0f);
  const Eigen::VectorXf p0 = p;
  SgdOptimizer o(sgd(0.9, true));
  o.step(p, g, 0.01);
  for (Eigen::Index i : {Eigen::Index{0}, n / 3, n - 1}) EXPECT_FLOAT_EQ(p(i), p0(i) - 0.01f * (g(i) + 0.9f * g(i)));
}

TEST(Schedule, ConstantStepAndCosine) {
  const LrSchedule constant(Schedule::Constant, 0.1, 4, 10);
  EXPECT_DOUBLE_EQ(constant.rate(3, 9), 0.1);
  // 4 epochs: milestones at epochs 2 and 3.
  const LrSchedule step(Schedule::Step, 0.1, 4, 10);
  EXPECT_DOUBLE_EQ(step.rate(0, 0), 0.1);
  EXPECT_DOUBLE_EQ(step.rate(1, 9), 0.1);
  EXPECT_NEAR(step.rate(2, 0), 0.01, 1e-15);
  EXPECT_NEAR(step.rate(3, 5), 0.001, 1e-15);
  // 1 epoch: no decay.
  EXPECT_DOUBLE_EQ(LrSchedule(Schedule::Step, 0.1, 1, 10).rate(0, 9), 0.1);
  // Cosine over 2 x 10 steps: full at t=0, half at t=10, (1+cos(pi*15/20))/2 at t=15.
  const LrSchedule cosine(Schedule::Cosine, 0.2, 2, 10);
  EXPECT_DOUBLE_EQ(cosine.rate(0, 0), 0.2);
  EXPECT_NEAR(cosine.rate(1, 0), 0.1, 1e-12);
  EXPECT_NEAR(cosine.rate(1, 5), 0.2 * (1 + std::cos(M_PI * 0.75)) / 2, 1e-12);
  EXPECT_GT(cosine.rate(1, 9), 0.0);
  EXPECT_THROW(LrSchedule(Schedule::Cosine, -1, 2, 10), core::util::Error);
}

}  // namespace
