#include "core/nn/conv2d.h"

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
