#pragma once
// 2-D convolution (cross-correlation, as every framework), groups = 1, with optional bias and
// fused activation. Weights: filters x (channels * kh * kw), i.e. PyTorch's OIHW.
// Computed as GEMMs over several samples at once: im2col of a sub-batch, one GEMM, and a
// scatter that adds the bias and applies the activation.
#include "core/nn/activation.h"
#include "core/nn/conv_kernels.h"
#include "core/nn/init.h"
#include "core/nn/layer.h"
#include "core/nn/padding.h"

namespace core::nn {

struct Conv2DOptions {
  int filters = 1;
  int kernelH = 3, kernelW = 3;
  int strideH = 1, strideW = 1;
  Padding padding = Padding::valid();
  bool bias = true;
  Activation activation = Activation::Linear;
  Init init = Init::GlorotUniform;
};

class Conv2D final : public Layer {
public:
  explicit Conv2D(Conv2DOptions o, std::string name = {});
  std::int64_t paramCount() const override;
  void appendStats(std::vector<LayerStats>& out) const override;
  void bind(ParamBinder& binder) override;
  void initParams(std::uint64_t seed) override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;
  const ConvGeometry& geometry() const { return m_g; }

protected:
  Shape inferShape(Shape in) override;

private:
  // Per-chunk scratch, kept across steps (no allocation in the hot path).
  struct Scratch {
    Vector col;  // (sub-batch * pixels) x patch, column-major; reused for the column gradient
    Vector out;  // (sub-batch * pixels) x filters: the GEMM result / the gathered output gradient
    Vector dw;   // chunk > 0: partial weight + bias gradients, reduced in chunk order
  };
  // Samples per GEMM: enough rows for an efficient GEMM, a column buffer that stays in cache.
  int subBatch() const;
  Scratch& scratch(int chunk, int samples);
  Conv2DOptions m_o;
  ConvGeometry m_g;
  float* m_w = nullptr;
  float* m_dw = nullptr;
  const float* m_wGemm = nullptr;
  std::vector<Scratch> m_scratch;
  Matrix m_gy;  // dy * f'(y)
};

}  // namespace core::nn
