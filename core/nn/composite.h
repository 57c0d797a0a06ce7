#pragma once
// Composite layers: the model is a tree of these, so residual and inception blocks are
// written the way the papers draw them. A composite owns its children, builds them in
// order, hands them consecutive parameter slices, and reports their stats (prefixed with
// its own name) plus one entry for its merge.
#include <memory>
#include <vector>

#include "core/nn/activation.h"
#include "core/nn/layer.h"

namespace core::nn {

// Children applied one after another.
class Sequential : public Layer {
public:
  explicit Sequential(std::string name = {});
  Sequential& add(std::unique_ptr<Layer> layer);  // before build()
  template <class L, class... Args>
  Sequential& emplace(Args&&... args) { return add(std::make_unique<L>(std::forward<Args>(args)...)); }
  std::size_t size() const { return m_children.size(); }
  bool empty() const { return m_children.empty(); }
  Layer& child(std::size_t i) { return *m_children.at(i); }
  const Layer& child(std::size_t i) const { return *m_children.at(i); }

  void assignNames(const std::string& prefix, std::vector<int>& countersByKind) override;
  void appendStats(std::vector<LayerStats>& out) const override;
  std::int64_t paramCount() const override;
  std::int64_t stateCount() const override;
  void bind(ParamBinder& binder) override;
  void initParams(std::uint64_t seed) override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;

protected:
  Sequential(LayerKind kind, std::string name);
  Shape inferShape(Shape in) override;
  void describe(GraphNode& node) const override;
  // Children's names get "<this name>/" in front unless this is the network's root.
  virtual bool prefixesChildren() const { return true; }

private:
  std::vector<std::unique_ptr<Layer>> m_children;
  std::vector<const Matrix*> m_inputs;  // each child's input during the last forward
};

// The network's top level: a Sequential whose children keep their own names.
class RootSequential final : public Sequential {
public:
  RootSequential() : Sequential(LayerKind::Other, "model") {}
  void assignNames(const std::string& prefix, std::vector<int>& countersByKind) override;

protected:
  bool prefixesChildren() const override { return false; }
};

// y = f(main(x) + shortcut(x)); an empty shortcut is the identity. f is applied after the
// add (ReLU in ResNets, Linear in Xception).
class Residual final : public Layer {
public:
  explicit Residual(std::string name = {}, Activation after = Activation::Linear);
  Sequential& main() { return m_main; }
  Sequential& shortcut() { return m_shortcut; }

  void assignNames(const std::string& prefix, std::vector<int>& countersByKind) override;
  void appendStats(std::vector<LayerStats>& out) const override;
  std::int64_t paramCount() const override;
  std::int64_t stateCount() const override;
  void bind(ParamBinder& binder) override;
  void initParams(std::uint64_t seed) override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;
  // In a chain of blocks (ResNet's), f'(y) of the block before is applied in the pass that adds
  // the two branches' input gradients, from x (that block's output), and that block skips its own
  // pass over the gradient: one pass over the data less per block.
  Activation ownActivation() const override { return m_after; }
  bool takePrecedingActivationGradient(Activation a) override;
  void setActivationGradientTaken(bool taken) override { m_gradientTaken = taken; }

protected:
  Shape inferShape(Shape in) override;
  void describe(GraphNode& node) const override;

private:
  Activation m_after;
  Activation m_before = Activation::Linear;  // the preceding layer's, applied to dx (taken)
  bool m_gradientTaken = false;              // dy arrives with f'(y) applied by the layer after
  Sequential m_main{"main"};
  Sequential m_shortcut{"shortcut"};
  Matrix m_g;  // dy * f'(y)
};

// Branches applied to the same input, outputs stacked along the channels (Inception).
class Concat final : public Layer {
public:
  explicit Concat(std::string name = {});
  Sequential& addBranch(std::string name = {});
  std::size_t branchCount() const { return m_branches.size(); }

  void assignNames(const std::string& prefix, std::vector<int>& countersByKind) override;
  void appendStats(std::vector<LayerStats>& out) const override;
  std::int64_t paramCount() const override;
  std::int64_t stateCount() const override;
  void bind(ParamBinder& binder) override;
  void initParams(std::uint64_t seed) override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;

protected:
  Shape inferShape(Shape in) override;
  void describe(GraphNode& node) const override;

private:
  std::vector<std::unique_ptr<Sequential>> m_branches;
  Matrix m_dyBranch;  // one branch's slice of dy
};

}  // namespace core::nn
