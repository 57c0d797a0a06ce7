#pragma once
// Inverted dropout: in training, each element is kept with probability 1 - rate and scaled by
// 1 / (1 - rate); in inference it passes the data through untouched. The mask is a hash of
// (step seed, layer, sample, element), so it needs no storage, is regenerated for the
// backward pass, and does not depend on how the batch is split across threads.
#include "core/nn/layer.h"

namespace core::nn {

class Dropout final : public Layer {
public:
  explicit Dropout(float rate, std::string name = {});
  float rate() const { return m_rate; }
  void appendStats(std::vector<LayerStats>& out) const override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;

protected:
  Shape inferShape(Shape in) override { return in; }
  void describe(GraphNode& node) const override;

private:
  float m_rate;
  bool m_lastTraining = false;
};

}  // namespace core::nn
