#pragma once
// LSTM over a sequence (features, steps, 1), returning the last output (units, 1, 1) — Keras'
// LSTM(units) with its defaults: gates i, f, c, o; tanh and sigmoid; kernel glorot-uniform,
// recurrent kernel orthogonal, bias zero with the forget gate's set to 1. With two directions
// it is Keras' Bidirectional(LSTM(units)) with merge_mode='concat': output (2*units, 1, 1),
// the forward direction's last output first, then the backward direction's.
#include <memory>

#include "core/nn/layer.h"

namespace core::nn {

class LSTM final : public Layer {
public:
  LSTM(int units, int directions = 1, std::string name = {});
  ~LSTM() override;
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
  // One direction's parameters: kernel 4H x F, recurrent 4H x H, bias 4H (contiguous).
  std::int64_t directionParams() const;
  struct Chunk;  // per-chunk work buffers (lstm.cpp)
  void forwardDirection(int dir, const Matrix& x, std::ptrdiff_t b, std::ptrdiff_t e, Chunk& c,
                        const PassContext& ctx);
  void backwardDirection(int dir, const Matrix& x, const Matrix& dy, std::ptrdiff_t b, std::ptrdiff_t e,
                         Chunk& c, float* dW, bool needDx, const PassContext& ctx);
  int m_units;
  int m_directions;
  int m_features = 1;
  int m_steps = 1;
  float* m_params = nullptr;
  float* m_grads = nullptr;
  const float* m_gemmParams = nullptr;
  std::vector<std::unique_ptr<Chunk>> m_chunks;
};

}  // namespace core::nn
