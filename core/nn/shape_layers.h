#pragma once
// Layers that only move data: Flatten (a view, no copy), OneHot (token ids -> one-hot
// vectors, Keras' lstm_text_generation input) and the parameter-free ResNet shortcut of
// He et al.'s CIFAR networks ("option A": subsample by 2 and zero-pad the channels).
#include "core/nn/layer.h"

namespace core::nn {

class Flatten final : public Layer {
public:
  explicit Flatten(std::string name = {});
  void appendStats(std::vector<LayerStats>& out) const override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;

protected:
  Shape inferShape(Shape in) override { return {static_cast<int>(in.size()), 1, 1}; }
  void describe(GraphNode& node) const override;
};

// Input (1, steps, 1) of token ids in [0, vocabulary); output (vocabulary, steps, 1).
class OneHot final : public Layer {
public:
  explicit OneHot(int vocabulary, std::string name = {});
  void appendStats(std::vector<LayerStats>& out) const override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;

protected:
  Shape inferShape(Shape in) override;
  void describe(GraphNode& node) const override;

private:
  int m_vocabulary;
};

// (c, h, w) -> (outChannels, ceil(h/2), ceil(w/2)): x[:, ::2, ::2] with (outChannels - c) / 2
// zero channels added on each side.
class PadShortcut final : public Layer {
public:
  explicit PadShortcut(int outChannels, std::string name = {});
  void appendStats(std::vector<LayerStats>& out) const override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;

protected:
  Shape inferShape(Shape in) override;
  void describe(GraphNode& node) const override;

private:
  int m_outChannels;
};

}  // namespace core::nn
