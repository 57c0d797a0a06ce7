#include "core/nn/dense.h"

#include "core/nn/gemm.h"
#include "core/util/parallel.h"
#include "core/util/rng.h"

namespace core::nn {

Dense::Dense(DenseOptions o, std::string name) : Layer(LayerKind::Dense, std::move(name)), m_o(o) {
  if (o.units <= 0) fail("units must be positive, got " + std::to_string(o.units));
}

Shape Dense::inferShape(Shape) { return {m_o.units, 1, 1}; }

std::int64_t Dense::paramCount() const {
  return static_cast<std::int64_t>(m_o.units) * inShape().size() + (m_o.bias ? m_o.units : 0);
}

void Dense::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  const double m = m_o.units, k = static_cast<double>(inShape().size());
  const double elementwise = (m_o.bias ? m : 0) + m * activationForwardFlops(m_o.activation);
  s.forwardFlops = 2 * m * k + elementwise;
  s.backwardFlops = 4 * m * k + (m_o.bias ? m : 0) + m * activationBackwardFlops(m_o.activation);
  s.gemmM = m_o.units;
  s.gemmK = inShape().size();
  s.gemmN = 1;
  out.push_back(s);
}

void Dense::bind(ParamBinder& binder) {
  Layer::bind(binder);
  const ParamBinder::Slice s = binder.take(paramCount());
  m_w = s.params;
  m_dw = s.grads;
  m_wGemm = s.gemmParams;
}

void Dense::initParams(std::uint64_t seed) {
  util::Rng rng = util::makeRng(seed, static_cast<std::uint64_t>(layerIndex()));
  const double fanIn = static_cast<double>(inputs()), fanOut = m_o.units;
  initWeights(m_o.init, m_w, m_o.units * inputs(), fanIn, fanOut, rng);
  if (m_o.bias) initBias(m_o.init, m_w + m_o.units * inputs(), m_o.units, fanIn, rng);
}

const Matrix& Dense::forward(const Matrix& x, const PassContext& ctx) {
  const Eigen::Index k = inputs(), m = m_o.units, batch = x.cols();
  const float* bias = m_o.bias ? m_w + m * k : nullptr;
  m_y.resize(m, batch);
  const int chunks = chunksFor(ctx, 2 * m * k * batch / 8, batch);
  util::parallelChunks(batch, chunks, [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    const Eigen::Index n = e - b;
    sgemm(m, n, k, {m_wGemm, m, Transpose::No}, {x.data() + b * k, k, Transpose::No}, m_y.data() + b * m, m, false,
          ctx.precision);
    if (bias) m_y.middleCols(b, n).colwise() += ConstVectorMap(bias, m);
    applyActivation(m_o.activation, m_y.data() + b * m, m * n);
  });
  return m_y;
}

const Matrix& Dense::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) {
  const Eigen::Index k = inputs(), m = m_o.units, batch = x.cols();
  const Matrix* g = &dy;
  if (m_o.activation != Activation::Linear) {
    m_g.resize(m, batch);
    activationGradient(m_o.activation, m_y.data(), dy.data(), m_g.data(), m * batch);
    g = &m_g;
  }
  // Weight and bias gradients: rows of dW split across chunks, no reduction needed.
  const int rowChunks = chunksFor(ctx, 2 * m * k * batch / 8, m);
  util::parallelChunks(m, rowChunks, [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    const Eigen::Index r = e - b;
    sgemm(r, k, batch, {g->data() + b, m, Transpose::No}, {x.data(), k, Transpose::Yes}, m_dw + b, m, false, ctx.precision);
    if (m_o.bias) VectorMap(m_dw + m * k + b, r) = g->middleRows(b, r).rowwise().sum();
  });
  if (!needDx) return m_dx;
  m_dx.resize(k, batch);
  const int chunks = chunksFor(ctx, 2 * m * k * batch / 8, batch);
  util::parallelChunks(batch, chunks, [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    sgemm(k, e - b, m, {m_wGemm, m, Transpose::Yes}, {g->data() + b * m, m, Transpose::No}, m_dx.data() + b * k, k, false,
          ctx.precision);
  });
  return m_dx;
}

}  // namespace core::nn
