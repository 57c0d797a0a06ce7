#pragma once
// Pooling layers: max and average over windows (per channel), and global average pooling over
// an image's pixels or a sequence's steps.
#include <cstdint>
#include <vector>

#include "core/nn/activation.h"
#include "core/nn/layer.h"
#include "core/nn/padding.h"

namespace core::nn {

struct PoolOptions {
  int poolH = 2, poolW = 2;
  int strideH = 0, strideW = 0;  // 0 = the pool size (Keras / PyTorch default)
  Padding padding = Padding::valid();
};

class MaxPool2D final : public Layer {
public:
  explicit MaxPool2D(PoolOptions o, std::string name = {});
  void appendStats(std::vector<LayerStats>& out) const override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;
  // The gradient reaches only each window's maximum: f' is applied there, on a quarter of the
  // elements of a 2 x 2 pool, instead of a pass over all of them in the layer before.
  bool takePrecedingActivationGradient(Activation a) override;

protected:
  Shape inferShape(Shape in) override;
  void describe(GraphNode& node) const override;

private:
  // 2 x 2 windows at stride 2, nothing padded before: the fast paths (the common case).
  bool isTwoByTwo() const;

  PoolOptions m_o;
  int m_padTop = 0, m_padLeft = 0;
  Activation m_inputActivation = Activation::Linear;  // taken from the layer before: f' applied here
  std::vector<std::int32_t> m_argmax;  // per output element: index of the max in the sample's input
};

// Average pooling; padded positions are not counted (Keras / TensorFlow behaviour).
class AvgPool2D final : public Layer {
public:
  explicit AvgPool2D(PoolOptions o, std::string name = {});
  void appendStats(std::vector<LayerStats>& out) const override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;

protected:
  Shape inferShape(Shape in) override;
  void describe(GraphNode& node) const override;

private:
  PoolOptions m_o;
  int m_padTop = 0, m_padLeft = 0;
};

// Mean over an image's pixels (c,h,w -> c) or, for sequences, over the steps (features, steps
// -> features; Keras' GlobalAveragePooling1D).
class GlobalAvgPool final : public Layer {
public:
  enum class Over { Pixels, Steps };
  explicit GlobalAvgPool(Over over = Over::Pixels, std::string name = {});
  void appendStats(std::vector<LayerStats>& out) const override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;

protected:
  Shape inferShape(Shape in) override;
  void describe(GraphNode& node) const override;

private:
  Over m_over;
};

}  // namespace core::nn
