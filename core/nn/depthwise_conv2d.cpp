#include "core/nn/depthwise_conv2d.h"

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
