#include "core/train/optimizer.h"

#include <cmath>
#include <numbers>

#include "core/util/error.h"
#include "core/util/parallel.h"
#include "core/util/numbers.h"

namespace core::train {

using util::Error;

namespace {
// Element-wise updates are independent, so any split gives the same result.
constexpr std::ptrdiff_t kGrain = 1 << 15;

void requireFinite(double v, const char* name) {
  if (!std::isfinite(v)) throw Error(std::string("optimizer: ") + name + " must be a finite number");
}
}  // namespace

void validate(const OptimizerConfig& c) {
  requireFinite(c.momentum, "momentum");
  requireFinite(c.weightDecay, "weight decay");
  if (c.momentum < 0 || c.momentum >= 1) throw Error("optimizer: momentum must be in [0, 1), got " + util::shortNumber(c.momentum));
  if (c.nesterov && c.momentum <= 0) throw Error("optimizer: Nesterov momentum needs momentum > 0");
  if (c.weightDecay < 0) throw Error("optimizer: weight decay must not be negative, got " + util::shortNumber(c.weightDecay));
  if (!(c.beta1 >= 0 && c.beta1 < 1) || !(c.beta2 >= 0 && c.beta2 < 1)) throw Error("optimizer: Adam betas must be in [0, 1)");
  if (!(c.epsilon > 0)) throw Error("optimizer: Adam epsilon must be positive");
}

OptimizerConfig optimizerConfig(const TrainConfig& t) {
  OptimizerConfig c;
  c.kind = t.optimizer;
  c.momentum = t.momentum;
  c.nesterov = t.nesterov;
  c.weightDecay = t.weightDecay;
  return c;
}

void Optimizer::checkSizes(const Eigen::VectorXf& params, const Eigen::VectorXf& grads, Eigen::Index stateSize) const {
  if (params.size() != grads.size())
    throw Error("optimizer: " + std::to_string(params.size()) + " parameters but " + std::to_string(grads.size()) +
                " gradients");
  if (stateSize != 0 && stateSize != params.size())
    throw Error("optimizer: the parameter count changed from " + std::to_string(stateSize) + " to " +
                std::to_string(params.size()) + " (reset() the optimizer for a new network)");
}

SgdOptimizer::SgdOptimizer(const OptimizerConfig& c) : m_config(c) { validate(c); }

void SgdOptimizer::reset() {
  m_velocity.resize(0);
  m_steps = 0;
}

void SgdOptimizer::step(Eigen::VectorXf& params, const Eigen::VectorXf& grads, double learningRate) {
  checkSizes(params, grads, m_velocity.size());
  const bool useMomentum = m_config.momentum > 0;
  if (useMomentum && m_velocity.size() == 0) m_velocity = Eigen::VectorXf::Zero(params.size());
  const float lr = static_cast<float>(learningRate), mu = static_cast<float>(m_config.momentum),
              wd = static_cast<float>(m_config.weightDecay);
  const bool nesterov = m_config.nesterov;
  util::parallelFor(params.size(), kGrain, [&](std::ptrdiff_t b, std::ptrdiff_t e) {
    auto p = params.segment(b, e - b).array();
    auto g = (grads.segment(b, e - b).array() + wd * p).eval();
    if (!useMomentum) {
      p -= lr * g;
      return;
    }
    auto v = m_velocity.segment(b, e - b).array();
    v = mu * v + g;
    if (nesterov) p -= lr * (g + mu * v);
    else p -= lr * v;
  });
  ++m_steps;
}

AdamOptimizer::AdamOptimizer(const OptimizerConfig& c) : m_config(c) { validate(c); }

void AdamOptimizer::reset() {
  m_m.resize(0);
  m_v.resize(0);
  m_steps = 0;
}

void AdamOptimizer::step(Eigen::VectorXf& params, const Eigen::VectorXf& grads, double learningRate) {
  checkSizes(params, grads, m_m.size());
  if (m_m.size() == 0) {
    m_m = Eigen::VectorXf::Zero(params.size());
    m_v = Eigen::VectorXf::Zero(params.size());
  }
  ++m_steps;
  const double t = static_cast<double>(m_steps);
  const double bc1 = 1 - std::pow(m_config.beta1, t), bc2 = 1 - std::pow(m_config.beta2, t);
  const float stepSize = static_cast<float>(learningRate / bc1);
  const float invSqrtBc2 = static_cast<float>(1 / std::sqrt(bc2));
  // 1 - beta in double, then rounded once (as PyTorch passes them): 1 - 0.999f in float
  // would be off by 1e-5 relative, and the bias correction would no longer cancel.
  const float b1 = static_cast<float>(m_config.beta1), b2 = static_cast<float>(m_config.beta2);
  const float oneMinusB1 = static_cast<float>(1 - m_config.beta1), oneMinusB2 = static_cast<float>(1 - m_config.beta2);
  const float eps = static_cast<float>(m_config.epsilon), wd = static_cast<float>(m_config.weightDecay);
  util::parallelFor(params.size(), kGrain, [&](std::ptrdiff_t b, std::ptrdiff_t e) {
    auto p = params.segment(b, e - b).array();
    auto m = m_m.segment(b, e - b).array();
    auto v = m_v.segment(b, e - b).array();
    auto g = (grads.segment(b, e - b).array() + wd * p).eval();
    m = b1 * m + oneMinusB1 * g;
    v = b2 * v + oneMinusB2 * g.square();
    p -= stepSize * m / (v.sqrt() * invSqrtBc2 + eps);
  });
}

std::unique_ptr<Optimizer> makeOptimizer(const OptimizerConfig& c) {
  if (c.kind == OptimizerKind::SGD) return std::make_unique<SgdOptimizer>(c);
  return std::make_unique<AdamOptimizer>(c);
}

LrSchedule::LrSchedule(Schedule kind, double baseRate, int epochs, std::int64_t stepsPerEpoch)
    : m_kind(kind), m_base(baseRate), m_epochs(epochs), m_stepsPerEpoch(stepsPerEpoch) {
  if (!(baseRate >= 0) || !std::isfinite(baseRate)) throw Error("learning rate must be a finite number >= 0");
  if (epochs < 1 || stepsPerEpoch < 1) throw Error("schedule: epochs and steps per epoch must be at least 1");
}

double LrSchedule::rate(int epoch, std::int64_t stepInEpoch) const {
  switch (m_kind) {
    case Schedule::Constant: return m_base;
    case Schedule::Step: {
      const int m1 = (m_epochs + 1) / 2, m2 = (3 * m_epochs + 3) / 4;  // ceil(E/2), ceil(3E/4)
      double r = m_base;
      if (epoch >= m1) r *= 0.1;
      if (epoch >= m2) r *= 0.1;
      return r;
    }
    case Schedule::Cosine: {
      const double total = static_cast<double>(m_epochs) * static_cast<double>(m_stepsPerEpoch);
      const double t = static_cast<double>(epoch) * static_cast<double>(m_stepsPerEpoch) + static_cast<double>(stepInEpoch);
      return m_base * 0.5 * (1 + std::cos(std::numbers::pi * std::min(t, total) / total));
    }
  }
  return m_base;
}

}  // namespace core::train
