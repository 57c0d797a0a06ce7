#include "core/nn/conv2d.h"

#include <algorithm>

#include "core/nn/gemm_precision.h"
#include "core/util/parallel.h"
#include "core/util/rng.h"

namespace core::nn {

Conv2D::Conv2D(Conv2DOptions o, std::string name) : Layer(LayerKind::Conv2D, std::move(name)), m_o(o) {
  if (o.filters <= 0) fail("filters must be positive, got " + std::to_string(o.filters));
  if (o.kernelH <= 0 || o.kernelW <= 0) fail("kernel size must be positive");
  if (o.strideH <= 0 || o.strideW <= 0) fail("stride must be positive");
}

Shape Conv2D::inferShape(Shape in) {
  const WindowAxis y = windowAxis(in.h, m_o.kernelH, m_o.strideH, m_o.padding.mode, m_o.padding.h);
  const WindowAxis x = windowAxis(in.w, m_o.kernelW, m_o.strideW, m_o.padding.mode, m_o.padding.w);
  m_g = ConvGeometry{in.c, in.h, in.w, m_o.kernelH, m_o.kernelW, m_o.strideH, m_o.strideW,
                   y.padBefore, x.padBefore, y.out, x.out};
  return {m_o.filters, y.out, x.out};
}

std::int64_t Conv2D::paramCount() const {
  return static_cast<std::int64_t>(m_o.filters) * m_g.patchSize() + (m_o.bias ? m_o.filters : 0);
}

void Conv2D::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  const double m = m_o.filters, k = static_cast<double>(m_g.patchSize()), n = static_cast<double>(m_g.outPixels());
  const double outs = m * n;
  s.forwardFlops = 2 * m * k * n + (m_o.bias ? outs : 0) + outs * activationForwardFlops(m_o.activation);
  s.backwardFlops = 4 * m * k * n + (m_o.bias ? outs : 0) + outs * activationBackwardFlops(m_o.activation);
  s.gemmM = m_o.filters;
  s.gemmK = m_g.patchSize();
  s.gemmN = m_g.outPixels();
  out.push_back(s);
}

void Conv2D::bind(ParamBinder& binder) {
  Layer::bind(binder);
  const ParamBinder::Slice s = binder.take(paramCount());
  m_w = s.params;
  m_dw = s.grads;
  m_wGemm = s.gemmParams;
}

void Conv2D::initParams(std::uint64_t seed) {
  util::Rng rng = util::makeRng(seed, static_cast<std::uint64_t>(layerIndex()));
  const double taps = static_cast<double>(m_o.kernelH) * m_o.kernelW;
  const double fanIn = m_g.channels * taps, fanOut = m_o.filters * taps;
  const std::int64_t nw = static_cast<std::int64_t>(m_o.filters) * m_g.patchSize();
  initWeights(m_o.init, m_w, nw, fanIn, fanOut, rng);
  if (m_o.bias) initBias(m_o.init, m_w + nw, m_o.filters, fanIn, rng);
}

}  // namespace core::nn

// --- compute ------------------------------------------------------------------------------------


namespace core::nn {
namespace {
constexpr std::int64_t kColumnBufferFloats = 1 << 18;  // 1 MiB of im2col per GEMM
constexpr std::int64_t kMinGemmRows = 256;
}  // namespace

int Conv2D::subBatch() const {
  const std::int64_t pixels = m_g.outPixels(), patch = m_g.patchSize();
  std::int64_t n = kColumnBufferFloats / std::max<std::int64_t>(1, pixels * patch);
  n = std::max(n, (kMinGemmRows + pixels - 1) / pixels);
  return static_cast<int>(std::clamp<std::int64_t>(n, 1, 4096));
}

Conv2D::Scratch& Conv2D::scratch(int chunk, int samples) {
  if (static_cast<int>(m_scratch.size()) <= chunk) m_scratch.resize(static_cast<std::size_t>(chunk) + 1);
  Scratch& s = m_scratch[static_cast<std::size_t>(chunk)];
  const std::int64_t rows = static_cast<std::int64_t>(std::min(samples, subBatch())) * m_g.outPixels();
  if (s.col.size() < rows * m_g.patchSize()) s.col.resize(rows * m_g.patchSize());
  if (s.out.size() < rows * m_o.filters) s.out.resize(rows * m_o.filters);
  return s;
}

const Matrix& Conv2D::forward(const Matrix& x, const PassContext& ctx) {
  const Eigen::Index batch = x.cols(), filters = m_o.filters, patch = m_g.patchSize(), pixels = m_g.outPixels();
  const Eigen::Index outRows = filters * pixels;
  m_y.resize(outRows, batch);
  const ConstMatrixMap w(m_wGemm, filters, patch);
  const float* bias = m_o.bias ? m_w + filters * patch : nullptr;
  const int chunks = chunksFor(ctx, 2 * filters * patch * pixels * batch / 64, batch);
  for (int c = 0; c < chunks; ++c) scratch(c, static_cast<int>(util::chunkRange(batch, chunks, c).end - util::chunkRange(batch, chunks, c).begin));
  util::parallelChunks(batch, chunks, [&](int c, std::ptrdiff_t b, std::ptrdiff_t e) {
    Scratch& s = m_scratch[static_cast<std::size_t>(c)];
    for (std::ptrdiff_t s0 = b; s0 < e; s0 += subBatch()) {
      const int n = static_cast<int>(std::min<std::ptrdiff_t>(subBatch(), e - s0));
      const Eigen::Index rows = n * pixels;
      im2col(m_g, x.data() + s0 * x.rows(), n, s.col.data(), rows);
      if (ctx.precision != util::Precision::FP32) roundInPlace(s.col.data(), rows * patch, ctx.precision);
      MatrixMap out(s.out.data(), rows, filters);
      out.noalias() = MatrixMap(s.col.data(), rows, patch) * w.transpose();
      // Scatter to channel-major samples, adding the bias and applying the activation.
      for (int k = 0; k < n; ++k) {
        float* y = m_y.data() + (s0 + k) * outRows;
        for (Eigen::Index f = 0; f < filters; ++f) {
          const float* src = s.out.data() + f * rows + k * pixels;
          float* dst = y + f * pixels;
          const float bf = bias ? bias[f] : 0.0f;
          for (Eigen::Index p = 0; p < pixels; ++p) dst[p] = src[p] + bf;
        }
        applyActivation(m_o.activation, y, outRows);
      }
    }
  });
  return m_y;
}

const Matrix& Conv2D::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) {
  const Eigen::Index batch = x.cols(), filters = m_o.filters, patch = m_g.patchSize(), pixels = m_g.outPixels();
  const Eigen::Index outRows = filters * pixels, nParams = paramCount();
  const bool round = ctx.precision != util::Precision::FP32;
  const ConstMatrixMap w(m_wGemm, filters, patch);
  m_gy.resize(outRows, batch);
  if (needDx) m_dx.resize(x.rows(), batch);
  const int chunks = chunksFor(ctx, 2 * filters * patch * pixels * batch / 64, batch);
  for (int c = 0; c < chunks; ++c) {
    scratch(c, static_cast<int>(util::chunkRange(batch, chunks, c).end - util::chunkRange(batch, chunks, c).begin));
    if (c > 0 && m_scratch[static_cast<std::size_t>(c)].dw.size() != nParams) m_scratch[static_cast<std::size_t>(c)].dw.resize(nParams);
  }
  util::parallelChunks(batch, chunks, [&](int c, std::ptrdiff_t b, std::ptrdiff_t e) {
    Scratch& s = m_scratch[static_cast<std::size_t>(c)];
    float* dwAll = c == 0 ? m_dw : s.dw.data();
    MatrixMap dw(dwAll, filters, patch);
    VectorMap db(dwAll + filters * patch, m_o.bias ? filters : 0);
    dw.setZero();
    db.setZero();
    activationGradient(m_o.activation, m_y.data() + b * outRows, dy.data() + b * outRows, m_gy.data() + b * outRows,
                       outRows * (e - b));
    for (std::ptrdiff_t s0 = b; s0 < e; s0 += subBatch()) {
      const int n = static_cast<int>(std::min<std::ptrdiff_t>(subBatch(), e - s0));
      const Eigen::Index rows = n * pixels;
      // Gather the output gradient as (samples * pixels) x filters.
      for (int k = 0; k < n; ++k) {
        const float* g = m_gy.data() + (s0 + k) * outRows;
        for (Eigen::Index f = 0; f < filters; ++f)
          std::copy_n(g + f * pixels, pixels, s.out.data() + f * rows + k * pixels);
      }
      MatrixMap gOut(s.out.data(), rows, filters);
      if (m_o.bias) db += gOut.colwise().sum().transpose();
      if (round) roundInPlace(s.out.data(), rows * filters, ctx.precision);
      MatrixMap col(s.col.data(), rows, patch);
      im2col(m_g, x.data() + s0 * x.rows(), n, s.col.data(), rows);
      if (round) roundInPlace(s.col.data(), rows * patch, ctx.precision);
      dw.noalias() += gOut.transpose() * col;
      if (!needDx) continue;
      col.noalias() = gOut * w;  // the column gradient, in the same buffer
      float* dx = m_dx.data() + s0 * x.rows();
      std::fill_n(dx, n * x.rows(), 0.0f);
      col2im(m_g, s.col.data(), rows, n, dx);
    }
  });
  // Partial gradients added in chunk order: identical for the same chunk count.
  VectorMap total(m_dw, nParams);
  for (int c = 1; c < chunks; ++c) total += m_scratch[static_cast<std::size_t>(c)].dw;
  return m_dx;
}

}  // namespace core::nn
