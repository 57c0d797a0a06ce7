#pragma once
// Token embedding: input (1, steps, 1) of ids in [0, vocabulary); output (dim, steps, 1),
// one dim-vector per step. Table: dim x vocabulary (a column per token). Keras init
// U(-0.05, 0.05).
#include "core/nn/layer.h"

namespace core::nn {

class Embedding final : public Layer {
public:
  // `gptInit`: N(0, 0.02^2) (the transformers) instead of Keras' U(-0.05, 0.05).
  Embedding(int vocabulary, int dim, std::string name = {}, bool gptInit = false);
  std::int64_t paramCount() const override { return static_cast<std::int64_t>(m_vocabulary) * m_dim; }
  void appendStats(std::vector<LayerStats>& out) const override;
  void bind(ParamBinder& binder) override;
  void initParams(std::uint64_t seed) override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;

protected:
  Shape inferShape(Shape in) override;
  void describe(GraphNode& node) const override;

private:
  int tokenAt(const Matrix& x, Eigen::Index row, Eigen::Index col) const;
  int m_vocabulary;
  int m_dim;
  bool m_gptInit = false;
  float* m_table = nullptr;
  float* m_grad = nullptr;
};

}  // namespace core::nn
