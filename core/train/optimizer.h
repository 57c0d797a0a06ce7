#pragma once
// Optimizers on the network's flat parameter and gradient vectors (mlpack habit: one
// optimizer serves every network; its state is a few flat vectors), and learning-rate
// schedules. The update rules follow PyTorch's torch.optim (the baseline we compare with):
//   SGD:  g = grad + wd*p;  v = mu*v + g;  d = nesterov ? g + mu*v : v;  p -= lr*d
//   Adam: g = grad + wd*p;  m = b1*m + (1-b1)*g;  s = b2*s + (1-b2)*g^2;
//         p -= lr/(1-b1^t) * m / (sqrt(s)/sqrt(1-b2^t) + eps)
// Weight decay is the classic L2 term added to the gradient (torch.optim's weight_decay),
// not AdamW's decoupled decay.
#include <Eigen/Core>
#include <cstdint>
#include <memory>

#include "core/experiment/names.h"
#include "core/train/trainer.h"

namespace core::train {

struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::Adam;
  double momentum = 0.9;  // SGD; 0 = plain SGD
  bool nesterov = false;  // SGD; needs momentum > 0
  double weightDecay = 0;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;  // Adam (PyTorch defaults)
};

// Throws core::util::Error naming the field when a value is out of range.
void validate(const OptimizerConfig& c);
OptimizerConfig optimizerConfig(const TrainConfig& c);

class Optimizer {
public:
  virtual ~Optimizer() = default;
  // One update of `params` from `grads` at learning rate `learningRate`. State vectors are
  // sized on the first call; a later size change is an Error.
  virtual void step(Eigen::VectorXf& params, const Eigen::VectorXf& grads, double learningRate) = 0;
  // Forgets the state (momentum, moments, step count).
  virtual void reset() = 0;
  std::int64_t steps() const { return m_steps; }

protected:
  void checkSizes(const Eigen::VectorXf& params, const Eigen::VectorXf& grads, Eigen::Index stateSize) const;
  std::int64_t m_steps = 0;
};

class SgdOptimizer final : public Optimizer {
public:
  explicit SgdOptimizer(const OptimizerConfig& c);
  void step(Eigen::VectorXf& params, const Eigen::VectorXf& grads, double learningRate) override;
  void reset() override;

private:
  OptimizerConfig m_config;
  Eigen::VectorXf m_velocity;
};

class AdamOptimizer final : public Optimizer {
public:
  explicit AdamOptimizer(const OptimizerConfig& c);
  void step(Eigen::VectorXf& params, const Eigen::VectorXf& grads, double learningRate) override;
  void reset() override;

private:
  OptimizerConfig m_config;
  Eigen::VectorXf m_m, m_v;
};

std::unique_ptr<Optimizer> makeOptimizer(const OptimizerConfig& c);

// Learning rate per step.
//   Constant: the base rate throughout.
//   Step:     x0.1 from the epoch at 50 % of the run and x0.01 from 75 % (milestones
//             ceil(E/2) and ceil(3E/4), 0-based epochs; no decay in a 1-epoch run), as in
//             He et al.'s CIFAR ResNet schedule.
//   Cosine:   base * (1 + cos(pi * t / T)) / 2 over the run's global steps t = 0..T-1.
class LrSchedule {
public:
  LrSchedule(Schedule kind, double baseRate, int epochs, std::int64_t stepsPerEpoch);
  // `epoch` 0-based, `stepInEpoch` 0-based.
  double rate(int epoch, std::int64_t stepInEpoch) const;

private:
  Schedule m_kind;
  double m_base;
  int m_epochs;
  std::int64_t m_stepsPerEpoch;
};

using experiment::optimizerName;  // core/experiment/names.h
using experiment::scheduleName;

}  // namespace core::train
