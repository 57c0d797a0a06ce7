#pragma once
// The layers a transformer adds to the engine, each thin (shape, stats, forward, backward) and
// applied token by token to sequences laid out (features, steps, 1): the step-t feature vector
// of a sample is rows [t*features, (t+1)*features) of its column, so "features x (steps x
// batch)" is the same memory and every per-token op is one pass over it.
//   LayerNorm          per token over the features, eps 1e-5, gain and bias
//   Gelu               the exact (erf) GELU, as its own layer (its derivative needs the input)
//   PositionEmbedding  adds a learned (features x steps) table
//   SelfAttention      the attention core on fused Q|K|V rows: per sample and head,
//                      softmax(Q^T K / sqrt(head dim) [+ causal mask]) applied to V; the
//                      projections before and after are per-token Dense layers
#include "core/nn/layer.h"

namespace core::nn {

class LayerNorm final : public Layer {
public:
  explicit LayerNorm(std::string name = {}, float eps = 1e-5f);
  std::int64_t paramCount() const override { return 2 * static_cast<std::int64_t>(inShape().c); }
  void appendStats(std::vector<LayerStats>& out) const override;
  void bind(ParamBinder& binder) override;
  void initParams(std::uint64_t seed) override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;

protected:
  Shape inferShape(Shape in) override;
  void describe(GraphNode& node) const override;

private:
  float m_eps;
  float* m_p = nullptr;   // gain (features), then bias (features)
  float* m_dp = nullptr;
  Vector m_mean, m_rstd;  // per token of the last forward
  Matrix m_partial;       // per block of tokens: gain and bias gradients (backward)
};

class Gelu final : public Layer {
public:
  explicit Gelu(std::string name = {});
  void appendStats(std::vector<LayerStats>& out) const override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;

protected:
  Shape inferShape(Shape in) override { return in; }
  void describe(GraphNode& node) const override;
};

class PositionEmbedding final : public Layer {
public:
  explicit PositionEmbedding(std::string name = {});
  std::int64_t paramCount() const override { return inShape().size(); }
  void appendStats(std::vector<LayerStats>& out) const override;
  void bind(ParamBinder& binder) override;
  void initParams(std::uint64_t seed) override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;

protected:
  Shape inferShape(Shape in) override;
  void describe(GraphNode& node) const override;

private:
  float* m_table = nullptr;
  float* m_grad = nullptr;
};

// Input (3 d, steps, 1): per token Q (rows [0, d)), K ([d, 2d)), V ([2d, 3d)); head j reads
// rows [j*d/heads, (j+1)*d/heads) of each. Output (d, steps, 1): the heads' outputs side by side.
// Keeps for backward the softmax probabilities, heads x steps x steps per sample: the only
// steps-squared buffer; the scores are formed one (sample, head) at a time and overwritten.
class SelfAttention final : public Layer {
public:
  SelfAttention(int heads, bool causal, std::string name = {});
  int heads() const { return m_heads; }
  bool causal() const { return m_causal; }
  void appendStats(std::vector<LayerStats>& out) const override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;

protected:
  Shape inferShape(Shape in) override;
  void describe(GraphNode& node) const override;

private:
  int m_heads;
  bool m_causal;
  Matrix m_probs;  // softmax probabilities transposed (keys x queries), one block per (sample, head)
};

// Image (channels, H, W) -> tokens (channels x p x p, patches, 1): non-overlapping p x p
// patches in row-major patch order, each patch's pixels row-major within a channel (ViT).
class Patchify final : public Layer {
public:
  explicit Patchify(int patch, std::string name = {});
  void appendStats(std::vector<LayerStats>& out) const override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;

protected:
  Shape inferShape(Shape in) override;
  void describe(GraphNode& node) const override;

private:
  int m_patch;
  std::vector<Eigen::Index> m_source;  // output row -> input row
};

// Prepends a learned token (ViT's class token): (d, steps, 1) -> (d, steps + 1, 1).
class ClassToken final : public Layer {
public:
  explicit ClassToken(std::string name = {});
  std::int64_t paramCount() const override { return inShape().c; }
  void appendStats(std::vector<LayerStats>& out) const override;
  void bind(ParamBinder& binder) override;
  void initParams(std::uint64_t seed) override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;

protected:
  Shape inferShape(Shape in) override;
  void describe(GraphNode& node) const override;

private:
  float* m_token = nullptr;
  float* m_grad = nullptr;
};

// Keeps one step of a sequence: (d, steps, 1) -> (d, 1, 1) (ViT reads the class token).
class TakeToken final : public Layer {
public:
  explicit TakeToken(int step, std::string name = {});
  void appendStats(std::vector<LayerStats>& out) const override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;

protected:
  Shape inferShape(Shape in) override;
  void describe(GraphNode& node) const override;

private:
  int m_step;
};

}  // namespace core::nn
