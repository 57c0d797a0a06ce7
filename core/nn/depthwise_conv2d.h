#pragma once
// Depthwise 2-D convolution (depth multiplier 1): one kh x kw filter per channel. With a 1x1
// Conv2D after it, this is Keras' SeparableConv2D (Xception).
#include "core/nn/conv_geometry.h"
#include "core/nn/init.h"
#include "core/nn/layer.h"
#include "core/nn/padding.h"

namespace core::nn {

struct DepthwiseConv2DOptions {
  int kernelH = 3, kernelW = 3;
  int strideH = 1, strideW = 1;
  Padding padding = Padding::same();
  bool bias = false;
  Init init = Init::GlorotUniform;
};

class DepthwiseConv2D final : public Layer {
public:
  explicit DepthwiseConv2D(DepthwiseConv2DOptions o, std::string name = {});
  std::int64_t paramCount() const override;
  void appendStats(std::vector<LayerStats>& out) const override;
  void bind(ParamBinder& binder) override;
  void initParams(std::uint64_t seed) override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;

protected:
  Shape inferShape(Shape in) override;
  void describe(GraphNode& node) const override;

private:
  DepthwiseConv2DOptions m_o;
  ConvGeometry m_g;  // per channel: channels = 1
  int m_channels = 1;
  float* m_w = nullptr;
  float* m_dw = nullptr;
  const float* m_wGemm = nullptr;
  std::vector<Vector> m_chunkGrads;  // chunk > 0: partial gradients, reduced in chunk order
};

}  // namespace core::nn
