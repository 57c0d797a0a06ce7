#include "core/nn/depthwise_conv2d.h"

#include <vector>

#include "core/nn/gemm_precision.h"
#include "core/util/parallel.h"
#include "core/util/rng.h"

namespace core::nn {

DepthwiseConv2D::DepthwiseConv2D(DepthwiseConv2DOptions o, std::string name)
    : Layer(LayerKind::DepthwiseConv2D, std::move(name)), m_o(o) {
  if (o.kernelH <= 0 || o.kernelW <= 0 || o.strideH <= 0 || o.strideW <= 0) fail("kernel and stride must be positive");
}

Shape DepthwiseConv2D::inferShape(Shape in) {
  const WindowAxis y = windowAxis(in.h, m_o.kernelH, m_o.strideH, m_o.padding.mode, m_o.padding.h);
  const WindowAxis x = windowAxis(in.w, m_o.kernelW, m_o.strideW, m_o.padding.mode, m_o.padding.w);
  m_channels = in.c;
  m_g = ConvGeometry{1, in.h, in.w, m_o.kernelH, m_o.kernelW, m_o.strideH, m_o.strideW, y.padBefore, x.padBefore, y.out, x.out};
  return {in.c, y.out, x.out};
}

std::int64_t DepthwiseConv2D::paramCount() const {
  return static_cast<std::int64_t>(m_channels) * m_o.kernelH * m_o.kernelW + (m_o.bias ? m_channels : 0);
}

void DepthwiseConv2D::appendStats(std::vector<LayerStats>& out) const {
  LayerStats s = baseStats();
  const double taps = static_cast<double>(m_o.kernelH) * m_o.kernelW, outs = static_cast<double>(outShape().size());
  s.forwardFlops = 2 * taps * outs + (m_o.bias ? outs : 0);
  s.productFlops = 2 * taps * outs;
  s.backwardFlops = 4 * taps * outs + (m_o.bias ? outs : 0);
  s.gemmM = 1;
  s.gemmK = static_cast<std::int64_t>(m_o.kernelH) * m_o.kernelW;
  s.gemmN = m_g.outPixels();
  s.gemmGroups = m_channels;
  out.push_back(s);
}

void DepthwiseConv2D::bind(ParamBinder& binder) {
  Layer::bind(binder);
  const ParamBinder::Slice s = binder.take(paramCount());
  m_w = s.params;
  m_dw = s.grads;
  m_wGemm = s.gemmParams;
}

void DepthwiseConv2D::initParams(std::uint64_t seed) {
  util::Rng rng = util::makeRng(seed, static_cast<std::uint64_t>(layerIndex()));
  const double taps = static_cast<double>(m_o.kernelH) * m_o.kernelW;
  const std::int64_t nw = static_cast<std::int64_t>(m_channels) * m_o.kernelH * m_o.kernelW;
  // Keras: a depthwise kernel (kh, kw, C, 1) has fan_in = kh*kw*C, fan_out = kh*kw.
  initWeights(m_o.init, m_w, nw, taps * m_channels, taps, rng);
  if (m_o.bias) initBias(m_o.init, m_w + nw, m_channels, taps, rng);
}

}  // namespace core::nn

// --- compute ------------------------------------------------------------------------------------

namespace core::nn {
namespace {

// One channel plane: y (+)= conv(x, w) (+ bias).
void depthwisePlane(const ConvGeometry& g, const float* x, const float* w, float bias, float* y) {
  for (int oy = 0; oy < g.outH; ++oy)
    for (int ox = 0; ox < g.outW; ++ox) {
      float sum = bias;
      for (int ky = 0; ky < g.kernelH; ++ky) {
        const int iy = oy * g.strideH + ky - g.padTop;
        if (iy < 0 || iy >= g.height) continue;
        for (int kx = 0; kx < g.kernelW; ++kx) {
          const int ix = ox * g.strideW + kx - g.padLeft;
          if (ix >= 0 && ix < g.width) sum += w[ky * g.kernelW + kx] * x[iy * g.width + ix];
        }
      }
      y[oy * g.outW + ox] = sum;
    }
}

// dw += dy (*) x and, when dx is non-null, dx += dy (*) w (full correlation transposed).
void depthwisePlaneBackward(const ConvGeometry& g, const float* x, const float* w, const float* dy, float* dw, float* dx) {
  for (int oy = 0; oy < g.outH; ++oy)
    for (int ox = 0; ox < g.outW; ++ox) {
      const float d = dy[oy * g.outW + ox];
      for (int ky = 0; ky < g.kernelH; ++ky) {
        const int iy = oy * g.strideH + ky - g.padTop;
        if (iy < 0 || iy >= g.height) continue;
        for (int kx = 0; kx < g.kernelW; ++kx) {
          const int ix = ox * g.strideW + kx - g.padLeft;
          if (ix < 0 || ix >= g.width) continue;
          dw[ky * g.kernelW + kx] += d * x[iy * g.width + ix];
          if (dx) dx[iy * g.width + ix] += d * w[ky * g.kernelW + kx];
        }
      }
    }
}

}  // namespace

const Matrix& DepthwiseConv2D::forward(const Matrix& x, const PassContext& ctx) {
  const Eigen::Index batch = x.cols(), outRows = outShape().size();
  const std::int64_t taps = static_cast<std::int64_t>(m_o.kernelH) * m_o.kernelW, plane = m_g.inSize(), outPlane = m_g.outPixels();
  const float* bias = m_o.bias ? m_w + m_channels * taps : nullptr;
  const bool round = ctx.precision != util::Precision::FP32;
  m_y.resize(outRows, batch);
  util::parallelChunks(batch, chunksFor(ctx, 2 * taps * outRows * batch / 16, batch), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    std::vector<float> xq(round ? static_cast<std::size_t>(plane) : 0);
    for (std::ptrdiff_t s = b; s < e; ++s)
      for (int c = 0; c < m_channels; ++c) {
        const float* xc = x.data() + s * x.rows() + c * plane;
        if (round) {
          copyRounded(xc, xq.data(), plane, ctx.precision);
          xc = xq.data();
        }
        float* yc = m_y.data() + s * outRows + c * outPlane;
        depthwisePlane(m_g, xc, m_wGemm + c * taps, bias ? bias[c] : 0.0f, yc);
      }
  });
  return m_y;
}

const Matrix& DepthwiseConv2D::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) {
  const Eigen::Index batch = x.cols(), outRows = outShape().size();
  const std::int64_t taps = static_cast<std::int64_t>(m_o.kernelH) * m_o.kernelW, plane = m_g.inSize(), outPlane = m_g.outPixels();
  const std::int64_t nParams = paramCount();
  const bool round = ctx.precision != util::Precision::FP32;
  if (needDx) m_dx.setZero(x.rows(), batch);
  const int chunks = chunksFor(ctx, 4 * taps * outRows * batch / 16, batch);
  m_chunkGrads.resize(static_cast<std::size_t>(chunks));
  util::parallelChunks(batch, chunks, [&](int c, std::ptrdiff_t b, std::ptrdiff_t e) {
    Vector& own = m_chunkGrads[static_cast<std::size_t>(c)];
    if (c > 0) own.resize(nParams);
    float* grads = c == 0 ? m_dw : own.data();
    std::fill_n(grads, nParams, 0.0f);
    std::vector<float> xq(round ? static_cast<std::size_t>(plane) : 0), gq(round ? static_cast<std::size_t>(outPlane) : 0);
    for (std::ptrdiff_t s = b; s < e; ++s)
      for (int ch = 0; ch < m_channels; ++ch) {
        const float* xc = x.data() + s * x.rows() + ch * plane;
        const float* gc = dy.data() + s * outRows + ch * outPlane;
        if (m_o.bias) grads[m_channels * taps + ch] += ConstVectorMap(gc, outPlane).sum();
        if (round) {
          copyRounded(xc, xq.data(), plane, ctx.precision);
          copyRounded(gc, gq.data(), outPlane, ctx.precision);
          xc = xq.data();
          gc = gq.data();
        }
        depthwisePlaneBackward(m_g, xc, m_wGemm + ch * taps, gc, grads + ch * taps,
                               needDx ? m_dx.data() + s * x.rows() + ch * plane : nullptr);
      }
  });
  VectorMap total(m_dw, nParams);
  for (int c = 1; c < chunks; ++c) total += m_chunkGrads[static_cast<std::size_t>(c)];
  return m_dx;
}

}  // namespace core::nn
