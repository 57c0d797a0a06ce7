#include "core/nn/dense.h"

#include "core/nn/gemm.h"
#include "core/util/parallel.h"
#include "core/util/rng.h"

namespace core::nn {

Dense::Dense(DenseOptions o, std::string name) : Layer(LayerKind::Dense, std::move(name)), m_o(o) {
  if (o.units <= 0) fail("units must be positive, got " + std::to_string(o.units));
}

Shape Dense::inferShape(Shape in) {
  if (m_o.perToken) {
    if (in.w != 1) fail("a per-token layer reads sequences (features, steps, 1), got width " + std::to_string(in.w));
    return {m_o.units, in.h, 1};
  }
  return {m_o.units, 1, 1};
}

std::int64_t Dense::paramCount() const {
  return static_cast<std::int64_t>(m_o.units) * inputs() + (m_o.bias ? m_o.units : 0);
}

void Dense::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  const double m = m_o.units, k = static_cast<double>(inputs()), t = static_cast<double>(steps());
  const double elementwise = (m_o.bias ? m : 0) + m * activationForwardFlops(m_o.activation);
  s.forwardFlops = t * (2 * m * k + elementwise);
  s.productFlops = t * 2 * m * k;
  s.backwardFlops = t * (4 * m * k + (m_o.bias ? m : 0) + m * activationBackwardFlops(m_o.activation));
  s.gemmM = m_o.units;
  s.gemmK = inputs();
  s.gemmN = steps();
  out.push_back(s);
}

void Dense::bind(ParamBinder& binder) {
  Layer::bind(binder);
  const ParamBinder::Slice s = binder.take(paramCount(), static_cast<std::int64_t>(m_o.units) * inputs());
  m_w = s.params;
  m_dw = s.grads;
  m_wGemm = s.gemmParams;
}

void Dense::initParams(std::uint64_t seed) {
  util::Rng rng = util::makeRng(seed, static_cast<std::uint64_t>(layerIndex()));
  const double fanIn = static_cast<double>(inputs()), fanOut = m_o.units;
  initWeights(m_o.init, m_w, m_o.units * inputs(), fanIn, fanOut, rng);
  if (m_o.initScale != 1.0f)
    for (std::int64_t i = 0; i < m_o.units * inputs(); ++i) m_w[i] *= m_o.initScale;
  if (m_o.bias) initBias(m_o.init, m_w + m_o.units * inputs(), m_o.units, fanIn, rng);
}

namespace {

// Splits `rows` into `chunks` ranges on micro-tile boundaries (the last takes the rest).
template <class Fn>
void rowBlocks(std::int64_t rows, int chunks, Fn&& fn) {
  const std::int64_t strips = (rows + kGemmMr - 1) / kGemmMr;
  chunks = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(chunks, strips)));
  util::parallelChunks(strips, chunks, [&](int, std::ptrdiff_t s0, std::ptrdiff_t s1) {
    const std::int64_t r0 = s0 * kGemmMr, r1 = std::min(rows, s1 * kGemmMr);
    if (r1 > r0) fn(r0, r1);
  });
}

}  // namespace

// Every GEMM shares one operand across threads (packed once) and splits the rows of the
// other, so each output element is one fixed-order sum: identical for any thread count.
const Matrix& Dense::forward(const Matrix& x, const PassContext& ctx) {
  // Per-token: the (features x steps, batch) input is, in memory, features x (steps x batch).
  const Eigen::Index k = inputs(), m = m_o.units, batch = x.cols() * steps();
  const float* bias = m_o.bias ? m_w + m * k : nullptr;
  m_y.resize(m * steps(), x.cols());
  const GemmOperand xin{x.data(), k, Transpose::No};
  m_packed.pack(gemmB(xin), k, batch, ctx.precision);
  rowBlocks(m, chunksFor(ctx, 2 * m * k * batch / 8, m), [&](std::int64_t r0, std::int64_t r1) {
    const GemmOperand w{m_wGemm + r0, m, Transpose::No};
    GemmC c;
    c.data = m_y.data() + r0;
    c.ld = m;
    c.rowBias = bias ? bias + r0 : nullptr;  // added tile by tile, while C is in cache
    gemm(r1 - r0, batch, k, gemmA(w), m_packed, c, ctx.precision);
    if (m_o.activation != Activation::Linear)
      for (Eigen::Index col = 0; col < batch; ++col) applyActivation(m_o.activation, m_y.data() + col * m + r0, r1 - r0);
  });
  return m_y;
}

const Matrix& Dense::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) {
  const Eigen::Index k = inputs(), m = m_o.units, batch = x.cols() * steps();
  const Matrix* g = &dy;
  if (m_o.activation != Activation::Linear) {
    m_g.resize(m * steps(), x.cols());
    activationGradient(m_o.activation, m_y.data(), dy.data(), m_g.data(), m * batch);
    g = &m_g;
  }
  const int chunks = chunksFor(ctx, 2 * m * k * batch / 8, std::max(m, k));
  // dW (m x k) = G (m x batch) * X^T; db = row sums of G.
  const GemmOperand xt{x.data(), k, Transpose::Yes};
  m_packed.pack(gemmB(xt), batch, k, ctx.precision);
  rowBlocks(m, chunks, [&](std::int64_t r0, std::int64_t r1) {
    const GemmOperand gr{g->data() + r0, m, Transpose::No};
    GemmC c;
    c.data = m_dw + r0;
    c.ld = m;
    gemm(r1 - r0, k, batch, gemmA(gr), m_packed, c, ctx.precision);
    if (m_o.bias) VectorMap(m_dw + m * k + r0, r1 - r0) = ConstMatrixMap(g->data(), m, batch).middleRows(r0, r1 - r0).rowwise().sum();
  });
  if (!needDx) return m_dx;
  // dX (k x batch) = W^T (k x m) * G.
  m_dx.resize(k * steps(), x.cols());
  const GemmOperand gin{g->data(), m, Transpose::No};
  m_packed.pack(gemmB(gin), m, batch, ctx.precision);
  rowBlocks(k, chunks, [&](std::int64_t r0, std::int64_t r1) {
    const GemmOperand wt{m_wGemm + r0 * m, m, Transpose::Yes};
    GemmC c;
    c.data = m_dx.data() + r0;
    c.ld = k;
    gemm(r1 - r0, batch, m, gemmA(wt), m_packed, c, ctx.precision);
  });
  return m_dx;
}

}  // namespace core::nn
