#pragma once
// Fully connected layer y = f(W x + b), W: units x inputs. Any input shape is read as a vector,
// unless `perToken`: then a sequence (features, steps, 1) is projected token by token with one
// W (units x features) shared by every step, giving (units, steps, 1) — a transformer's
// linear layers. The layout makes that one GEMM over steps x batch columns, with no copy.
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
  bool perToken = false;
  float initScale = 1.0f;  // multiplies the initial weights (GPT-2's 1/sqrt(2 layers) on residual outputs)
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
  void describe(GraphNode& node) const override;

private:
  // Per-token: the features of one step; else the whole input.
  Eigen::Index inputs() const { return m_o.perToken ? inShape().c : static_cast<Eigen::Index>(inShape().size()); }
  Eigen::Index steps() const { return m_o.perToken ? inShape().h : 1; }
  DenseOptions m_o;
  float* m_w = nullptr;
  float* m_dw = nullptr;
  const float* m_wGemm = nullptr;
  Matrix m_g;   // dy * f'(y)
  PackedB m_packed;  // the operand every row block shares (the input or the output gradient)
};

}  // namespace core::nn
