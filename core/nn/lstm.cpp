#include "core/nn/lstm.h"

#include "core/nn/activation.h"
#include "core/nn/init.h"
#include "core/util/rng.h"

namespace core::nn {

struct LSTM::Chunk {};  // TEMPORARY (step 1)
LSTM::~LSTM() = default;
const Matrix& LSTM::forward(const Matrix&, const PassContext&) { fail("forward not implemented yet"); }
const Matrix& LSTM::backward(const Matrix&, const Matrix&, bool, const PassContext&) { fail("backward not implemented yet"); }

LSTM::LSTM(int units, int directions, std::string name)
    : Layer(LayerKind::LSTM, std::move(name)), m_units(units), m_directions(directions) {
  if (units <= 0) fail("units must be positive, got " + std::to_string(units));
  if (directions != 1 && directions != 2) fail("directions must be 1 or 2, got " + std::to_string(directions));
}

Shape LSTM::inferShape(Shape in) {
  if (in.w != 1) fail("expects a sequence shaped (features, steps, 1)");
  m_features = in.c;
  m_steps = in.h;
  return {m_units * m_directions, 1, 1};
}

std::int64_t LSTM::directionParams() const {
  const std::int64_t g = 4LL * m_units;
  return g * m_features + g * m_units + g;
}

std::int64_t LSTM::paramCount() const { return m_directions * directionParams(); }

void LSTM::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  const double h = m_units, f = m_features, t = m_steps, d = m_directions;
  // Per step: the gate GEMM (4H x (F+H)), bias, three sigmoids and two tanh, the cell update.
  const double gemm = 2 * 4 * h * (f + h);
  const double elementwise = 4 * h + 3 * h * activationForwardFlops(Activation::Sigmoid) +
                             2 * h * activationForwardFlops(Activation::Tanh) + 3 * h;
  s.forwardFlops = d * t * (gemm + elementwise);
  s.backwardFlops = d * t * (2 * gemm + 3 * elementwise);
  s.gemmM = 4LL * m_units;
  s.gemmK = static_cast<std::int64_t>(m_features) + m_units;
  s.gemmN = 1;
  s.sequentialSteps = m_steps;
  s.directions = m_directions;
  // Kept for backpropagation through time: the gates, cell and hidden state of every step.
  s.savedBytes = 4.0 * d * t * (4 * h + 2 * h);
  out.push_back(s);
}

void LSTM::bind(ParamBinder& binder) {
  Layer::bind(binder);
  const ParamBinder::Slice s = binder.take(paramCount());
  m_params = s.params;
  m_grads = s.grads;
  m_gemmParams = s.gemmParams;
}

void LSTM::initParams(std::uint64_t seed) {
  util::Rng rng = util::makeRng(seed, static_cast<std::uint64_t>(layerIndex()));
  const int g = 4 * m_units;
  for (int d = 0; d < m_directions; ++d) {
    float* p = m_params + d * directionParams();
    initWeights(Init::GlorotUniform, p, static_cast<std::int64_t>(g) * m_features, m_features, g, rng);
    p += static_cast<std::int64_t>(g) * m_features;
    fillOrthogonal(p, g, m_units, rng);
    p += static_cast<std::int64_t>(g) * m_units;
    VectorMap bias(p, g);
    bias.setZero();
    bias.segment(m_units, m_units).setOnes();  // unit_forget_bias
  }
}

}  // namespace core::nn
