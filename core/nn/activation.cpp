#include "core/nn/activation.h"

#include <algorithm>

#include "core/util/parallel.h"

namespace core::nn {

const char* activationName(Activation a) {
  switch (a) {
    case Activation::Linear: return "linear";
    case Activation::ReLU: return "relu";
    case Activation::ELU: return "elu";
    case Activation::Tanh: return "tanh";
    case Activation::Sigmoid: return "sigmoid";
  }
  return "linear";
}

double activationForwardFlops(Activation a) {
  switch (a) {
    case Activation::Linear: return 0;
    case Activation::ReLU: return 1;
    case Activation::ELU: return 4;
    case Activation::Tanh: return 6;
    case Activation::Sigmoid: return 4;
  }
  return 0;
}

double activationBackwardFlops(Activation a) {
  switch (a) {
    case Activation::Linear: return 0;
    case Activation::ReLU: return 1;
    case Activation::ELU: return 2;
    case Activation::Tanh: return 3;
    case Activation::Sigmoid: return 3;
  }
  return 0;
}

// Written as plain loops and select-free Eigen expressions: both vectorise (Eigen 3.4's
// select() does not, and would fall back to scalar expf).
void applyActivation(Activation a, float* y, std::int64_t n) {
  Eigen::Map<Eigen::ArrayXf> v(y, n);
  switch (a) {
    case Activation::Linear: break;
    case Activation::ReLU:
      for (std::int64_t i = 0; i < n; ++i) y[i] = y[i] > 0.0f ? y[i] : 0.0f;
      break;
    case Activation::ELU:  // max(v, exp(min(v, 0)) - 1) == v for v > 0, exp(v) - 1 otherwise
      v = v.max(v.min(0.0f).exp() - 1.0f);
      break;
    case Activation::Tanh: v = v.tanh(); break;
    case Activation::Sigmoid: v = 1.0f / (1.0f + (-v).exp()); break;
  }
}

void activationGradient(Activation a, const float* y, const float* dy, float* g, std::int64_t n) {
  if (a == Activation::Linear) {
    if (g != dy) std::copy_n(dy, n, g);
    return;
  }
  // One loop per activation, its derivative inlined: each vectorises (ELU's is min(y + 1, 1),
  // branch-free, so AVX2 vectorises it too; as a select it ran scalar in the portable build, 8%
  // of colab-cnn).
  withActivationGradient(a, [&](auto grad) {
    for (std::int64_t i = 0; i < n; ++i) g[i] = grad(y[i], dy[i]);
  });
}

ActivationLayer::ActivationLayer(Activation a, std::string name) : Layer(LayerKind::Activation, std::move(name)), m_act(a) {}

void ActivationLayer::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  const double n = static_cast<double>(outShape().size());
  s.forwardFlops = n * activationForwardFlops(m_act);
  s.backwardFlops = n * activationBackwardFlops(m_act);
  out.push_back(s);
}

const Matrix& ActivationLayer::forward(const Matrix& x, const PassContext& ctx) {
  if (m_taken) return x;  // the layer before applied it
  m_y.resize(x.rows(), x.cols());
  const std::int64_t rows = x.rows();
  util::parallelChunks(x.cols(), chunksFor(ctx, x.size(), x.cols()), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    fillAndActivate(m_act, m_y.data(), rows * b, rows * e,
                    [&](std::int64_t i, std::int64_t n) { std::copy_n(x.data() + i, n, m_y.data() + i); });
  });
  return m_y;
}

const Matrix& ActivationLayer::backward(const Matrix&, const Matrix& dy, bool needDx, const PassContext& ctx) {
  if (m_taken) return dy;  // the layer before applies the derivative
  if (!needDx) return m_dx;
  m_dx.resize(dy.rows(), dy.cols());
  const std::int64_t rows = dy.rows();
  util::parallelChunks(dy.cols(), chunksFor(ctx, dy.size(), dy.cols()), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    activationGradient(m_act, m_y.data() + b * rows, dy.data() + b * rows, m_dx.data() + b * rows, rows * (e - b));
  });
  return m_dx;
}

}  // namespace core::nn
