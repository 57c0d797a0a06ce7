#include "core/nn/lstm.h"

#include <cmath>

#include "core/nn/activation.h"
#include "core/nn/init.h"
#include "core/nn/gemm.h"
#include "core/nn/gemm_precision.h"
#include "core/util/parallel.h"
#include "core/util/rng.h"

namespace core::nn {

// Work buffers of one chunk of samples (nb of them). Per direction d, blocks are stored in
// processing order k (k = t forward, k = T-1-t backward), nb columns each.
struct LSTM::Chunk {
  Matrix gx;                 // 4H x (nb*T): input contribution, column s*T + t (then its gradient)
  Matrix gates[2];           // 4H x (T*nb): i, f, g, o after their activations
  Matrix cell[2], hidden[2]; // H x ((T+1)*nb): states before step k (block k) and after (k+1)
  Matrix dGates;             // 4H x (T*nb): gate pre-activation gradients
  Matrix dh, dc;             // running gradients of the hidden and cell states
  Matrix tanhCell, dcStep;   // H x nb: tanh of the step's cell state, the cell gradient through it
  Vector dw;                 // chunk > 0: partial parameter gradients
};

LSTM::~LSTM() = default;

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
  s.productFlops = d * t * gemm;
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

// --- compute ------------------------------------------------------------------------------------

namespace core::nn {
void LSTM::forwardDirection(int dir, const Matrix& x, std::ptrdiff_t b, std::ptrdiff_t e, Chunk& c,
                            const PassContext& ctx) {
  const Eigen::Index nb = e - b, H = m_units, G = 4 * H, F = m_features, T = m_steps;
  const float* p = m_gemmParams + dir * directionParams();
  const ConstMatrixMap wx(p, G, F), wh(p + G * F, G, H);
  const ConstVectorMap bias(m_params + dir * directionParams() + G * F + G * H, G);
  // Every product goes through the engine's GEMM at the run's precision: its operands are
  // rounded (or packed as bf16 pairs for the bf16 units) as they are packed, not copied first.
  const util::Precision precision = ctx.precision;
  // All steps' input contributions in one GEMM: x of sample s, step t is column s*T + t.
  const float* xin = x.data() + b * x.rows();
  c.gx.resize(G, nb * T);
  sgemm(G, nb * T, F, {wx.data(), G}, {xin, F}, c.gx.data(), G, /*accumulate=*/false, precision);
  Matrix& gates = c.gates[dir];
  Matrix& cell = c.cell[dir];
  Matrix& hid = c.hidden[dir];
  gates.resize(G, T * nb);
  cell.resize(H, (T + 1) * nb);
  hid.resize(H, (T + 1) * nb);
  cell.leftCols(nb).setZero();
  hid.leftCols(nb).setZero();
  for (Eigen::Index k = 0; k < T; ++k) {
    const Eigen::Index t = dir == 0 ? k : T - 1 - k;
    auto pre = gates.middleCols(k * nb, nb);
    pre = Eigen::Map<const Matrix, 0, Eigen::OuterStride<>>(c.gx.data() + t * G, G, nb, Eigen::OuterStride<>(T * G));
    pre.colwise() += bias;
    sgemm(G, nb, H, {wh.data(), G}, {hid.data() + k * nb * H, H}, gates.data() + k * nb * G, G, /*accumulate=*/true,
          precision);
    // The gates over the whole block at once, with Eigen's vectorised exp and tanh (scalar
    // libm calls were 40% of an LSTM step): i, f, o = sigmoid; g = tanh; then the cell.
    pre.topRows(2 * H).array() = (1.0f + (-pre.topRows(2 * H).array()).exp()).inverse();
    pre.middleRows(2 * H, H).array() = pre.middleRows(2 * H, H).array().tanh();
    pre.bottomRows(H).array() = (1.0f + (-pre.bottomRows(H).array()).exp()).inverse();
    auto cNew = cell.middleCols((k + 1) * nb, nb).array();
    cNew = pre.middleRows(H, H).array() * cell.middleCols(k * nb, nb).array() +
           pre.topRows(H).array() * pre.middleRows(2 * H, H).array();
    hid.middleCols((k + 1) * nb, nb).array() = pre.bottomRows(H).array() * cNew.tanh();
  }
  m_y.block(dir * H, b, H, nb) = hid.middleCols(T * nb, nb);
}

void LSTM::backwardDirection(int dir, const Matrix& x, const Matrix& dy, std::ptrdiff_t b, std::ptrdiff_t e, Chunk& c,
                             float* dW, bool needDx, const PassContext& ctx) {
  const Eigen::Index nb = e - b, H = m_units, G = 4 * H, F = m_features, T = m_steps;
  const float* p = m_gemmParams + dir * directionParams();
  const ConstMatrixMap wx(p, G, F), wh(p + G * F, G, H);
  MatrixMap dWx(dW, G, F), dWh(dW + G * F, G, H);
  VectorMap dB(dW + G * F + G * H, G);
  const bool round = ctx.precision != util::Precision::FP32;
  const Matrix& gates = c.gates[dir];
  const Matrix& cell = c.cell[dir];
  const Matrix& hid = c.hidden[dir];
  c.dGates.resize(G, T * nb);
  c.dh = dy.block(dir * H, b, H, nb);
  c.dc.setZero(H, nb);
  c.tanhCell.resize(H, nb);
  c.dcStep.resize(H, nb);
  for (Eigen::Index k = T - 1; k >= 0; --k) {
    // The step's gate gradients over the whole block, vectorised like the forward pass.
    const auto g = gates.middleCols(k * nb, nb);
    const auto i = g.topRows(H).array(), f = g.middleRows(H, H).array(), gg = g.middleRows(2 * H, H).array(),
               o = g.bottomRows(H).array();
    c.tanhCell.array() = cell.middleCols((k + 1) * nb, nb).array().tanh();
    const auto tc = c.tanhCell.array();
    c.dcStep.array() = c.dc.array() + c.dh.array() * o * (1 - tc.square());
    const auto dcj = c.dcStep.array();
    auto dg = c.dGates.middleCols(k * nb, nb);
    dg.topRows(H).array() = dcj * gg * i * (1 - i);
    dg.middleRows(H, H).array() = dcj * cell.middleCols(k * nb, nb).array() * f * (1 - f);
    dg.middleRows(2 * H, H).array() = dcj * i * (1 - gg.square());
    dg.bottomRows(H).array() = c.dh.array() * tc * o * (1 - o);
    c.dc.array() = dcj * f;
    if (round) roundInPlace(c.dGates.data() + k * nb * G, nb * G, ctx.precision);
    if (k > 0)
      sgemm(H, nb, G, {wh.data(), G, Transpose::Yes}, {c.dGates.data() + k * nb * G, G}, c.dh.data(), H,
            /*accumulate=*/false, ctx.precision);
  }
  // Weight gradients in single GEMMs over all steps.
  dB += c.dGates.rowwise().sum();
  sgemm(G, H, T * nb, {c.dGates.data(), G}, {hid.data(), H, Transpose::Yes}, dWh.data(), G, /*accumulate=*/true,
        ctx.precision);
  // Reorder the gate gradients to the input's column order s*T + t.
  c.gx.resize(G, nb * T);
  for (Eigen::Index k = 0; k < T; ++k) {
    const Eigen::Index t = dir == 0 ? k : T - 1 - k;
    Eigen::Map<Matrix, 0, Eigen::OuterStride<>>(c.gx.data() + t * G, G, nb, Eigen::OuterStride<>(T * G)) =
        c.dGates.middleCols(k * nb, nb);
  }
  const float* xin = x.data() + b * x.rows();
  sgemm(G, F, nb * T, {c.gx.data(), G}, {xin, F, Transpose::Yes}, dWx.data(), G, /*accumulate=*/true, ctx.precision);
  if (needDx)   // the second direction adds its part
    sgemm(F, nb * T, G, {wx.data(), G, Transpose::Yes}, {c.gx.data(), G}, m_dx.data() + b * x.rows(), F,
          /*accumulate=*/dir != 0, ctx.precision);
}

const Matrix& LSTM::forward(const Matrix& x, const PassContext& ctx) {
  const Eigen::Index batch = x.cols();
  m_y.resize(static_cast<Eigen::Index>(m_units) * m_directions, batch);
  const int chunks = chunksFor(ctx, 8LL * m_units * (m_features + m_units) * m_steps * batch / 64, batch);
  while (static_cast<int>(m_chunks.size()) < chunks) m_chunks.push_back(std::make_unique<Chunk>());
  util::parallelChunks(batch, chunks, [&](int c, std::ptrdiff_t b, std::ptrdiff_t e) {
    for (int d = 0; d < m_directions; ++d) forwardDirection(d, x, b, e, *m_chunks[static_cast<std::size_t>(c)], ctx);
  });
  return m_y;
}

const Matrix& LSTM::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) {
  const Eigen::Index batch = x.cols();
  const std::int64_t n = paramCount();
  if (needDx) m_dx.resize(x.rows(), batch);
  const int chunks = chunksFor(ctx, 8LL * m_units * (m_features + m_units) * m_steps * batch / 64, batch);
  util::parallelChunks(batch, chunks, [&](int c, std::ptrdiff_t b, std::ptrdiff_t e) {
    Chunk& ch = *m_chunks[static_cast<std::size_t>(c)];
    if (c > 0) ch.dw.resize(n);
    float* dW = c == 0 ? m_grads : ch.dw.data();
    std::fill_n(dW, n, 0.0f);
    for (int d = 0; d < m_directions; ++d) backwardDirection(d, x, dy, b, e, ch, dW + d * directionParams(), needDx, ctx);
  });
  VectorMap total(m_grads, n);
  for (int c = 1; c < chunks; ++c) total += m_chunks[static_cast<std::size_t>(c)]->dw;
  return m_dx;
}

}  // namespace core::nn
