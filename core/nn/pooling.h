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

  // --- fed by the convolution before it (Conv2D::takeFollowingLayer) -------------------------
  // That layer pools a few samples at a time as it computes them, so its output is never kept
  // whole: setFed(true) says so. forward() then returns what the convolution pooled into this
  // layer, and backward() hands dy back unrouted: the convolution routes it to the windows'
  // maxima itself, a few samples at a time, where it reads the result (routeSamples).
  void setFed(bool fed) { m_fed = fed; }
  // Sizes the output for `batch` samples (fed: before the convolution's chunks run).
  void sizeOutput(Eigen::Index batch);
  // Pools n samples of this layer's input (x: inShape().size() floats each) into output columns
  // s0 .. s0 + n - 1.
  void poolSamples(const float* x, int n, std::ptrdiff_t s0);
  // The input gradient of samples s0 .. s0 + n - 1 into dx (n samples of inShape().size() floats,
  // one after another): dy f'(y) at each window's maximum (f': the activation taken from the layer
  // before), 0 elsewhere.
  void routeSamples(const Matrix& dy, std::ptrdiff_t s0, int n, float* dx) const;

protected:
  Shape inferShape(Shape in) override;
  void describe(GraphNode& node) const override;

private:
  // 2 x 2 windows at stride 2, nothing padded before: the fast paths (the common case).
  bool isTwoByTwo() const;
  // One sample (xs; what may be read ends at `end`) into output column s.
  void poolSample(const float* xs, const float* end, std::ptrdiff_t s, bool avx512);
  // Sample s's input gradient into dxs, from dy (batch columns).
  void routeSample(const float* dy, Eigen::Index batch, std::ptrdiff_t s, float* dxs, bool avx512) const;

  PoolOptions m_o;
  int m_padTop = 0, m_padLeft = 0;
  bool m_fed = false;
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
