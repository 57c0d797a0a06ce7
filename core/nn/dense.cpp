#include "core/nn/dense.h"

#include "core/nn/gemm_precision.h"
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
  const ConstMatrixMap w(m_wGemm, m, k);
  const float* bias = m_o.bias ? m_w + m * k : nullptr;
  const bool round = ctx.precision != util::Precision::FP32;
  if (round) m_xq.resize(k, batch);
  m_y.resize(m, batch);
  const int chunks = chunksFor(ctx, 2 * m * k * batch / 8, batch);
  util::parallelChunks(batch, chunks, [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    const Eigen::Index n = e - b;
    if (round) {
      copyRounded(x.data() + b * k, m_xq.data() + b * k, k * n, ctx.precision);
      m_y.middleCols(b, n).noalias() = w * m_xq.middleCols(b, n);
    } else {
      m_y.middleCols(b, n).noalias() = w * x.middleCols(b, n);
    }
    if (bias) m_y.middleCols(b, n).colwise() += ConstVectorMap(bias, m);
    applyActivation(m_o.activation, m_y.data() + b * m, m * n);
  });
  return m_y;
}

const Matrix& Dense::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) {
  const Eigen::Index k = inputs(), m = m_o.units, batch = x.cols();
  const bool round = ctx.precision != util::Precision::FP32;
  const Matrix& xin = round ? m_xq : x;
  const Matrix* g = &dy;
  if (m_o.activation != Activation::Linear || round) {
    m_g.resize(m, batch);
    activationGradient(m_o.activation, m_y.data(), dy.data(), m_g.data(), m * batch);
    if (round) roundInPlace(m_g.data(), m_g.size(), ctx.precision);
    g = &m_g;
  }
  // Weight and bias gradients: rows of dW split across chunks, no reduction needed.
  MatrixMap dw(m_dw, m, k);
  const int rowChunks = chunksFor(ctx, 2 * m * k * batch / 8, m);
  util::parallelChunks(m, rowChunks, [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    const Eigen::Index r = e - b;
    dw.middleRows(b, r).noalias() = g->middleRows(b, r) * xin.transpose();
    if (m_o.bias) VectorMap(m_dw + m * k + b, r) = g->middleRows(b, r).rowwise().sum();
  });
  if (!needDx) return m_dx;
  const ConstMatrixMap w(m_wGemm, m, k);
  m_dx.resize(k, batch);
  const int chunks = chunksFor(ctx, 2 * m * k * batch / 8, batch);
  util::parallelChunks(batch, chunks, [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    m_dx.middleCols(b, e - b).noalias() = w.transpose() * g->middleCols(b, e - b);
  });
  return m_dx;
}

}  // namespace core::nn
