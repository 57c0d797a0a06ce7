#include "core/nn/transformer_layers.h"

#include <cmath>
#include <limits>
#include <unsupported/Eigen/SpecialFunctions>

#include "core/nn/gemm.h"
#include "core/nn/init.h"
#include "core/util/error.h"
#include "core/util/parallel.h"
#include "core/util/rng.h"

namespace core::nn {
namespace {

using StridedMap = Eigen::Map<Matrix, 0, Eigen::OuterStride<>>;
using ConstStridedMap = Eigen::Map<const Matrix, 0, Eigen::OuterStride<>>;

void requireSequence(const Layer& l, Shape in) {
  if (in.w != 1)
    throw util::Error("layer '" + l.name() + "': reads sequences (features, steps, 1), got width " + std::to_string(in.w));
}

}  // namespace

// --- LayerNorm ---------------------------------------------------------------------------------

LayerNorm::LayerNorm(std::string name, float eps) : Layer(LayerKind::Other, std::move(name)), m_eps(eps) {}

Shape LayerNorm::inferShape(Shape in) {
  requireSequence(*this, in);
  return in;
}

void LayerNorm::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  const double n = static_cast<double>(inShape().size());
  s.forwardFlops = 8 * n;
  s.backwardFlops = 14 * n;
  s.savedBytes = 4.0 * n;  // the input (mean and 1/std per token are small)
  out.push_back(s);
}

void LayerNorm::bind(ParamBinder& binder) {
  Layer::bind(binder);
  const ParamBinder::Slice s = binder.take(paramCount());
  m_p = s.params;
  m_dp = s.grads;
}

void LayerNorm::initParams(std::uint64_t) {
  const int d = inShape().c;
  std::fill_n(m_p, d, 1.0f);
  std::fill_n(m_p + d, d, 0.0f);
}

const Matrix& LayerNorm::forward(const Matrix& x, const PassContext& ctx) {
  const Eigen::Index d = inShape().c, tokens = x.size() / d;
  m_y.resize(x.rows(), x.cols());
  m_mean.resize(tokens);
  m_rstd.resize(tokens);
  const ConstVectorMap gain(m_p, d), bias(m_p + d, d);
  const ConstMatrixMap in(x.data(), d, tokens);
  MatrixMap out(m_y.data(), d, tokens);
  util::parallelChunks(tokens, chunksFor(ctx, x.size() * 4, tokens), [&](int, std::ptrdiff_t t0, std::ptrdiff_t t1) {
    for (std::ptrdiff_t t = t0; t < t1; ++t) {
      const float mean = in.col(t).mean();
      const float var = (in.col(t).array() - mean).square().mean();
      const float rstd = 1.0f / std::sqrt(var + m_eps);
      m_mean[t] = mean;
      m_rstd[t] = rstd;
      out.col(t) = ((in.col(t).array() - mean) * rstd * gain.array() + bias.array()).matrix();
    }
  });
  return m_y;
}

const Matrix& LayerNorm::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) {
  const Eigen::Index d = inShape().c, tokens = x.size() / d;
  const ConstVectorMap gain(m_p, d);
  const ConstMatrixMap in(x.data(), d, tokens), g(dy.data(), d, tokens);
  // One pass over the tokens for the input gradient and for the gain and bias gradients, which
  // reuse its normalised input (a pass of their own read x and dy again: 3.3% of a vit-tiny bf16
  // step). The gradients' sums go by fixed blocks of tokens, each summed in float in token order
  // into its column of m_partial, then the blocks in order in double: the same sums for any
  // thread count.
  constexpr Eigen::Index kTokenBlock = 64;
  const Eigen::Index blocks = (tokens + kTokenBlock - 1) / kTokenBlock;
  m_partial.resize(2 * d, blocks);
  if (needDx) m_dx.resize(x.rows(), x.cols());
  MatrixMap dx(m_dx.data(), needDx ? d : 0, needDx ? tokens : 0);
  util::parallelChunks(blocks, chunksFor(ctx, x.size() * 8, blocks), [&](int, std::ptrdiff_t b0, std::ptrdiff_t b1) {
    Eigen::ArrayXf xhat(d), gx(d);  // one allocation a chunk, not two a token
    for (std::ptrdiff_t blk = b0; blk < b1; ++blk) {
      auto dGain = m_partial.col(blk).head(d).array();
      auto dBias = m_partial.col(blk).tail(d).array();
      dGain.setZero();
      dBias.setZero();
      for (Eigen::Index t = blk * kTokenBlock; t < std::min(tokens, (blk + 1) * kTokenBlock); ++t) {
        xhat = (in.col(t).array() - m_mean[t]) * m_rstd[t];
        dGain += g.col(t).array() * xhat;
        dBias += g.col(t).array();
        if (!needDx) continue;
        gx = g.col(t).array() * gain.array();
        const float meanG = gx.mean(), meanGx = (gx * xhat).mean();
        dx.col(t) = (m_rstd[t] * (gx - meanG - xhat * meanGx)).matrix();
      }
    }
  });
  Eigen::VectorXd sums = Eigen::VectorXd::Zero(2 * d);
  for (Eigen::Index blk = 0; blk < blocks; ++blk) sums += m_partial.col(blk).cast<double>();
  VectorMap(m_dp, 2 * d) = sums.cast<float>();  // gain's gradient, then bias's, as the parameters
  return m_dx;
}

// --- GELU ----------------------------------------------------------------------------------------

Gelu::Gelu(std::string name) : Layer(LayerKind::Activation, std::move(name)) {}

void Gelu::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  const double n = static_cast<double>(inShape().size());
  s.forwardFlops = 8 * n;
  s.backwardFlops = 12 * n;
  s.savedBytes = 4.0 * n;  // the input
  out.push_back(s);
}

// Eigen's vectorised erf and exp (a rational approximation accurate to a few ulp in float): the
// scalar libm calls cost a quarter of a vit-tiny step.
const Matrix& Gelu::forward(const Matrix& x, const PassContext& ctx) {
  m_y.resize(x.rows(), x.cols());
  util::parallelChunks(x.size(), chunksFor(ctx, x.size() * 4, x.cols()), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    const auto in = Eigen::Map<const Eigen::ArrayXf>(x.data() + b, e - b);
    Eigen::Map<Eigen::ArrayXf>(m_y.data() + b, e - b) = 0.5f * in * (1.0f + (in * static_cast<float>(M_SQRT1_2)).erf());
  });
  return m_y;
}

const Matrix& Gelu::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) {
  if (!needDx) return m_dx;
  m_dx.resize(x.rows(), x.cols());
  const float invSqrt2Pi = 0.3989422804014327f;
  util::parallelChunks(x.size(), chunksFor(ctx, x.size() * 6, x.cols()), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    // One pass: the normal CDF and density are computed where they are used, no temporary array
    // (a chunk's worth, written and read again: 4.8% of a vit-tiny bf16 step).
    const auto v = Eigen::Map<const Eigen::ArrayXf>(x.data() + b, e - b);
    const auto g = Eigen::Map<const Eigen::ArrayXf>(dy.data() + b, e - b);
    Eigen::Map<Eigen::ArrayXf>(m_dx.data() + b, e - b) =
        g * (0.5f * (1.0f + (v * static_cast<float>(M_SQRT1_2)).erf()) + v * invSqrt2Pi * (-0.5f * v * v).exp());
  });
  return m_dx;
}

// --- PositionEmbedding -----------------------------------------------------------------------------

PositionEmbedding::PositionEmbedding(std::string name) : Layer(LayerKind::Embedding, std::move(name)) {}

Shape PositionEmbedding::inferShape(Shape in) {
  requireSequence(*this, in);
  return in;
}

void PositionEmbedding::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  const double n = static_cast<double>(inShape().size());
  s.forwardFlops = n;
  s.backwardFlops = n;
  out.push_back(s);
}

void PositionEmbedding::bind(ParamBinder& binder) {
  Layer::bind(binder);
  const ParamBinder::Slice s = binder.take(paramCount());
  m_table = s.params;
  m_grad = s.grads;
}

void PositionEmbedding::initParams(std::uint64_t seed) {
  util::Rng rng = util::makeRng(seed, static_cast<std::uint64_t>(layerIndex()));
  fillNormal(m_table, paramCount(), kGptInitStddev, rng);
}

const Matrix& PositionEmbedding::forward(const Matrix& x, const PassContext&) {
  m_y = x.colwise() + ConstVectorMap(m_table, x.rows());
  return m_y;
}

const Matrix& PositionEmbedding::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) {
  VectorMap grad(m_grad, x.rows());
  util::parallelChunks(x.rows(), chunksFor(ctx, dy.size(), x.rows()), [&](int, std::ptrdiff_t r0, std::ptrdiff_t r1) {
    grad.segment(r0, r1 - r0) = dy.middleRows(r0, r1 - r0).rowwise().sum();
  });
  if (!needDx) return m_dx;
  return dy;  // the sum passes its gradient through unchanged
}

// --- SelfAttention -------------------------------------------------------------------------------

SelfAttention::SelfAttention(int heads, bool causal, std::string name)
    : Layer(LayerKind::Other, std::move(name)), m_heads(heads), m_causal(causal) {
  if (heads < 1) fail("needs at least one head, got " + std::to_string(heads));
}

Shape SelfAttention::inferShape(Shape in) {
  requireSequence(*this, in);
  if (in.c % 3 != 0) fail("expects fused Q|K|V rows (3 x width), got " + std::to_string(in.c) + " features");
  const int d = in.c / 3;
  if (d % m_heads != 0) fail("width " + std::to_string(d) + " does not split into " + std::to_string(m_heads) + " heads");
  return {d, in.h, 1};
}

void SelfAttention::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  const double t = inShape().h, d = outShape().c;
  s.forwardFlops = 4 * t * t * d + 5 * m_heads * t * t;   // Q K^T, softmax, P V
  s.productFlops = 4 * t * t * d;
  s.backwardFlops = 8 * t * t * d + 5 * m_heads * t * t;  // dV, dP, dQ, dK and the softmax's
  s.savedBytes = 4.0 * (static_cast<double>(inShape().size()) + m_heads * t * t);
  out.push_back(s);
}

namespace {

// C (m x n, column-major, leading dimension ldc) = op(A) op(B) on the engine's GEMM, whose
// packing rounds the operands to the run's precision (bf16/fp16 as the other layers do).
void attentionGemm(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda, Transpose ta,
                   const float* b, std::int64_t ldb, Transpose tb, float* c, std::int64_t ldc, util::Precision precision) {
  const GemmOperand opA{a, lda, ta}, opB{b, ldb, tb};
  GemmC out;
  out.data = c;
  out.ld = ldc;
  gemm(m, n, k, gemmA(opA), gemmB(opB), out, precision);
}

}  // namespace

const Matrix& SelfAttention::forward(const Matrix& x, const PassContext& ctx) {
  const Eigen::Index T = inShape().h, d = outShape().c, hd = d / m_heads, batch = x.cols();
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  m_y.resize(d * T, batch);
  m_probs.resize(T, T * m_heads * batch);
  util::parallelChunks(batch * m_heads, chunksFor(ctx, 4 * T * T * d * batch, batch * m_heads),
                       [&](int, std::ptrdiff_t p0, std::ptrdiff_t p1) {
    // Each column's softmax in an aligned buffer of whole vectors, padded with the lowest float,
    // so Eigen's exp runs vectorised over all of it (on the column in place, its unaligned start
    // and end went element by element to libm's expf: 2% of a vit-tiny step).
    thread_local Vector buffer;
    const Eigen::Index vector = EIGEN_MAX_ALIGN_BYTES / static_cast<Eigen::Index>(sizeof(float));
    if (buffer.size() < T + vector) buffer.resize(T + vector);
    for (std::ptrdiff_t p = p0; p < p1; ++p) {
      const Eigen::Index b = p / m_heads, h = p % m_heads;
      const float* col = x.data() + b * 3 * d * T;
      const ConstStridedMap q(col + h * hd, hd, T, Eigen::OuterStride<>(3 * d));
      const ConstStridedMap k(col + d + h * hd, hd, T, Eigen::OuterStride<>(3 * d));
      const ConstStridedMap v(col + 2 * d + h * hd, hd, T, Eigen::OuterStride<>(3 * d));
      // Scores transposed (keys x queries): each query's column is contiguous, so the softmax
      // runs vectorised down a column.
      auto probs = m_probs.middleCols(p * T, T);
      const Transpose N = Transpose::No, Y = Transpose::Yes;
      attentionGemm(T, T, hd, k.data(), 3 * d, Y, q.data(), 3 * d, N, probs.data(), T, ctx.precision);
      for (Eigen::Index i = 0; i < T; ++i) {
        const Eigen::Index keys = m_causal ? i + 1 : T, whole = (keys + vector - 1) / vector * vector;
        auto col = probs.col(i);
        Eigen::Map<Eigen::ArrayXf, Eigen::AlignedMax> e(buffer.data(), whole);
        e.head(keys) = col.head(keys).array() * scale;  // the scores scaled as they are copied
        e.tail(whole - keys).setConstant(std::numeric_limits<float>::lowest());
        e = (e - e.head(keys).maxCoeff()).exp();
        col.head(keys) = (e.head(keys) / e.head(keys).sum()).matrix();
        if (keys < T) col.tail(T - keys).setZero();
      }
      // o_i = sum_j P[j, i] v_j
      attentionGemm(hd, T, T, v.data(), 3 * d, N, probs.data(), T, N, m_y.data() + b * d * T + h * hd, d, ctx.precision);
    }
  });
  return m_y;
}

const Matrix& SelfAttention::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) {
  if (!needDx) return m_dx;
  const Eigen::Index T = inShape().h, d = outShape().c, hd = d / m_heads, batch = x.cols();
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  m_dx.resize(3 * d * T, batch);
  util::parallelChunks(batch * m_heads, chunksFor(ctx, 8 * T * T * d * batch, batch * m_heads),
                       [&](int, std::ptrdiff_t p0, std::ptrdiff_t p1) {
    Matrix dProbs(T, T);
    for (std::ptrdiff_t p = p0; p < p1; ++p) {
      const Eigen::Index b = p / m_heads, h = p % m_heads;
      const float* col = x.data() + b * 3 * d * T;
      float* dcol = m_dx.data() + b * 3 * d * T;
      const ConstStridedMap q(col + h * hd, hd, T, Eigen::OuterStride<>(3 * d));
      const ConstStridedMap k(col + d + h * hd, hd, T, Eigen::OuterStride<>(3 * d));
      const ConstStridedMap v(col + 2 * d + h * hd, hd, T, Eigen::OuterStride<>(3 * d));
      const ConstStridedMap dO(dy.data() + b * d * T + h * hd, hd, T, Eigen::OuterStride<>(d));
      float* dq = dcol + h * hd;
      float* dk = dcol + d + h * hd;
      float* dv = dcol + 2 * d + h * hd;
      const auto probs = m_probs.middleCols(p * T, T);  // P^T: keys x queries
      const Transpose N = Transpose::No, Y = Transpose::Yes;
      const util::Precision pr = ctx.precision;
      attentionGemm(hd, T, T, dO.data(), d, N, probs.data(), T, Y, dv, 3 * d, pr);  // dv_j = sum_i P[j, i] dO_i
      attentionGemm(T, T, hd, v.data(), 3 * d, Y, dO.data(), d, N, dProbs.data(), T, pr);  // dP^T[j, i] = v_j . dO_i
      // Softmax backward, query by query (a column each): dS = P .* (dP - <dP, P>), scaled.
      for (Eigen::Index i = 0; i < T; ++i) {
        const float dot = dProbs.col(i).dot(probs.col(i));
        dProbs.col(i) = (probs.col(i).array() * (dProbs.col(i).array() - dot) * scale).matrix();
      }
      attentionGemm(hd, T, T, k.data(), 3 * d, N, dProbs.data(), T, N, dq, 3 * d, pr);  // dq_i = sum_j dS[j, i] k_j
      attentionGemm(hd, T, T, q.data(), 3 * d, N, dProbs.data(), T, Y, dk, 3 * d, pr);  // dk_j = sum_i dS[j, i] q_i
    }
  });
  return m_dx;
}

// --- Patchify ------------------------------------------------------------------------------------

Patchify::Patchify(int patch, std::string name) : Layer(LayerKind::Other, std::move(name)), m_patch(patch) {
  if (patch < 1) fail("patch size must be positive, got " + std::to_string(patch));
}

Shape Patchify::inferShape(Shape in) {
  if (in.h % m_patch != 0 || in.w % m_patch != 0)
    fail(std::to_string(m_patch) + "x" + std::to_string(m_patch) + " patches do not tile a " + std::to_string(in.h) + "x" +
         std::to_string(in.w) + " image");
  const int gh = in.h / m_patch, gw = in.w / m_patch, features = in.c * m_patch * m_patch;
  m_source.resize(static_cast<std::size_t>(in.size()));
  std::size_t row = 0;
  for (int py = 0; py < gh; ++py)
    for (int px = 0; px < gw; ++px)
      for (int c = 0; c < in.c; ++c)
        for (int dy = 0; dy < m_patch; ++dy)
          for (int dx = 0; dx < m_patch; ++dx)
            m_source[row++] = (static_cast<Eigen::Index>(c) * in.h + py * m_patch + dy) * in.w + px * m_patch + dx;
  return {features, gh * gw, 1};
}

void Patchify::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  out.push_back(s);
}

const Matrix& Patchify::forward(const Matrix& x, const PassContext& ctx) {
  m_y.resize(x.rows(), x.cols());
  util::parallelChunks(x.cols(), chunksFor(ctx, x.size(), x.cols()), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    for (std::ptrdiff_t s = b; s < e; ++s)
      for (Eigen::Index r = 0; r < x.rows(); ++r) m_y(r, s) = x(m_source[static_cast<std::size_t>(r)], s);
  });
  return m_y;
}

const Matrix& Patchify::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) {
  if (!needDx) return m_dx;
  m_dx.resize(x.rows(), x.cols());
  util::parallelChunks(x.cols(), chunksFor(ctx, x.size(), x.cols()), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    for (std::ptrdiff_t s = b; s < e; ++s)
      for (Eigen::Index r = 0; r < x.rows(); ++r) m_dx(m_source[static_cast<std::size_t>(r)], s) = dy(r, s);
  });
  return m_dx;
}

// --- ClassToken ----------------------------------------------------------------------------------

ClassToken::ClassToken(std::string name) : Layer(LayerKind::Embedding, std::move(name)) {}

Shape ClassToken::inferShape(Shape in) {
  requireSequence(*this, in);
  return {in.c, in.h + 1, 1};
}

void ClassToken::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  out.push_back(s);
}

void ClassToken::bind(ParamBinder& binder) {
  Layer::bind(binder);
  const ParamBinder::Slice s = binder.take(paramCount());
  m_token = s.params;
  m_grad = s.grads;
}

void ClassToken::initParams(std::uint64_t seed) {
  util::Rng rng = util::makeRng(seed, static_cast<std::uint64_t>(layerIndex()));
  fillNormal(m_token, paramCount(), kGptInitStddev, rng);
}

const Matrix& ClassToken::forward(const Matrix& x, const PassContext&) {
  const Eigen::Index d = inShape().c;
  m_y.resize(x.rows() + d, x.cols());
  m_y.topRows(d) = ConstVectorMap(m_token, d).replicate(1, x.cols());
  m_y.bottomRows(x.rows()) = x;
  return m_y;
}

const Matrix& ClassToken::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext&) {
  const Eigen::Index d = inShape().c;
  VectorMap(m_grad, d) = dy.topRows(d).rowwise().sum();
  if (!needDx) return m_dx;
  m_dx = dy.bottomRows(x.rows());
  return m_dx;
}

// --- TakeToken -----------------------------------------------------------------------------------

TakeToken::TakeToken(int step, std::string name) : Layer(LayerKind::Other, std::move(name)), m_step(step) {}

Shape TakeToken::inferShape(Shape in) {
  requireSequence(*this, in);
  if (m_step < 0 || m_step >= in.h) fail("step " + std::to_string(m_step) + " is outside the " + std::to_string(in.h) + " steps");
  return {in.c, 1, 1};
}

void TakeToken::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  out.push_back(s);
}

const Matrix& TakeToken::forward(const Matrix& x, const PassContext&) {
  const Eigen::Index d = inShape().c;
  m_y = x.middleRows(static_cast<Eigen::Index>(m_step) * d, d);
  return m_y;
}

const Matrix& TakeToken::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext&) {
  if (!needDx) return m_dx;
  const Eigen::Index d = inShape().c;
  m_dx.setZero(x.rows(), x.cols());
  m_dx.middleRows(static_cast<Eigen::Index>(m_step) * d, d) = dy;
  return m_dx;
}

}  // namespace core::nn
