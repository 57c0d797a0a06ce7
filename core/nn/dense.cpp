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

// Splits `n` rows or columns into `chunks` ranges on boundaries of `tile` (kGemmMr rows; two strips
// of kGemmNr columns); the last range takes the rest.
template <class Fn>
void tileBlocks(std::int64_t n, std::int64_t tile, int chunks, Fn&& fn) {
  const std::int64_t strips = (n + tile - 1) / tile;
  chunks = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(chunks, strips)));
  util::parallelChunks(strips, chunks, [&](int, std::ptrdiff_t s0, std::ptrdiff_t s1) {
    const std::int64_t i0 = s0 * tile, i1 = std::min(n, s1 * tile);
    if (i1 > i0) fn(i0, i1);
  });
}

template <class Fn>
void rowBlocks(std::int64_t rows, int chunks, Fn&& fn) {
  tileBlocks(rows, kGemmMr, chunks, std::forward<Fn>(fn));
}

// C (rows x cols) = f(op(A) B + bias), with the threads splitting whichever operand is larger: a
// weight matrix A no larger than B (a transformer's d x d against d x tokens) is packed by every
// thread and each multiplies its own columns of B (a bf16 B packed by the thread that multiplies
// it; an fp32 one read where it lies), in one parallel region; else (a wide layer on a small
// batch) the threads split A's rows and share B, packed once. Each element of C is one
// fixed-order sum either way: identical for any split. The column ranges start on whole pairs of
// strips (16 columns), so AMX's kernel of two strips at once pairs the same strips whatever the
// split (its single-strip kernel adds a bias in another order).
void weightTimesActivations(std::int64_t rows, std::int64_t cols, std::int64_t depth, const float* a, Transpose aT,
                            const float* b, float* c, const float* bias, Activation f, PackedB& shared,
                            const PassContext& ctx) {
  const std::int64_t lda = aT == Transpose::Yes ? depth : rows, work = 2 * rows * depth * cols / 8;
  if (rows * depth <= depth * cols) {
    tileBlocks(cols, 2 * kGemmNr, chunksFor(ctx, work, cols), [&](std::int64_t j0, std::int64_t j1) {
      const GemmOperand w{a, lda, aT}, in{b + j0 * depth, depth, Transpose::No};
      GemmC out;
      out.data = c + j0 * rows;
      out.ld = rows;
      out.rowBias = bias;
      gemm(rows, j1 - j0, depth, gemmA(w), gemmB(in), out, ctx.precision);
      if (f != Activation::Linear) applyActivation(f, out.data, rows * (j1 - j0));
    });
    return;
  }
  const GemmOperand in{b, depth, Transpose::No};
  shared.pack(gemmB(in), depth, cols, ctx.precision);
  rowBlocks(rows, chunksFor(ctx, work, rows), [&](std::int64_t r0, std::int64_t r1) {
    const GemmOperand w{aT == Transpose::Yes ? a + r0 * lda : a + r0, lda, aT};
    GemmC out;
    out.data = c + r0;
    out.ld = rows;
    out.rowBias = bias ? bias + r0 : nullptr;  // added tile by tile, while C is in cache
    gemm(r1 - r0, cols, depth, gemmA(w), shared, out, ctx.precision);
    if (f != Activation::Linear)
      for (std::int64_t j = 0; j < cols; ++j) applyActivation(f, out.data + j * rows, r1 - r0);
  });
}

}  // namespace

// Every GEMM splits its output among the threads, never its depth, so each output element is one
// fixed-order sum: identical for any thread count.
const Matrix& Dense::forward(const Matrix& x, const PassContext& ctx) {
  // Per-token: the (features x steps, batch) input is, in memory, features x (steps x batch).
  const Eigen::Index k = inputs(), m = m_o.units, batch = x.cols() * steps();
  const float* bias = m_o.bias ? m_w + m * k : nullptr;
  m_y.resize(m * steps(), x.cols());
  weightTimesActivations(m, batch, k, m_wGemm, Transpose::No, x.data(), m_y.data(), bias, m_o.activation, m_packed,
                         ctx);
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
  weightTimesActivations(k, batch, m, m_wGemm, Transpose::Yes, g->data(), m_dx.data(), nullptr, Activation::Linear,
                         m_packed, ctx);
  return m_dx;
}

}  // namespace core::nn
