#pragma once
// Fully connected layer y = f(W x + b), W: units x inputs. Any input shape is read as a vector.
#include "core/nn/activation.h"
#include "core/nn/gemm.h"
#include "core/nn/init.h"
#include "core/nn/layer.h"

namespace core::nn {

struct DenseOptions {
  int units = 1;
  Activation activation = Activation::Linear;
  bool bias = true;
  Init init = Init::GlorotUniform;
};

class Dense final : public Layer {
public:
  explicit Dense(DenseOptions o, std::string name = {});
  std::int64_t paramCount() const override;
  void appendStats(std::vector<LayerStats>& out) const override;
  void bind(ParamBinder& binder) override;
  void initParams(std::uint64_t seed) override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;

  // Views (valid after the network bound its vectors).
  MatrixMap weights() { return {m_w, m_o.units, inputs()}; }
  MatrixMap weightGrads() { return {m_dw, m_o.units, inputs()}; }

protected:
  Shape inferShape(Shape in) override;

private:
  Eigen::Index inputs() const { return static_cast<Eigen::Index>(inShape().size()); }
  DenseOptions m_o;
  float* m_w = nullptr;
  float* m_dw = nullptr;
  const float* m_wGemm = nullptr;
  Matrix m_g;   // dy * f'(y)
  PackedB m_packed;  // the operand every row block shares (the input or the output gradient)
};

}  // namespace core::nn
