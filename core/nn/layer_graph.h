#pragma once
// The model as a graph of described layers: what each layer IS (its op and hyper-parameters),
// not how the engine computes it. Tools that rebuild the network elsewhere read this — the
// PyTorch exporter (core/bridge/torch_export) writes a program from it, layer for layer — so a
// model is defined once, in the zoo, and never re-typed per model.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/nn/layer_stats.h"

namespace core::nn {

struct GraphNode {
  // "linear", "conv2d", "depthwise_conv2d", "batch_norm", "activation", "dropout", "flatten",
  // "max_pool2d", "avg_pool2d", "global_avg_pool", "embedding", "one_hot", "lstm", "pad_shortcut",
  // "layer_norm", "gelu", "position_embedding", "self_attention", "patchify", "class_token",
  // "take_token", "residual", "concat".
  std::string op;
  std::string name;
  Shape in, out;
  std::int64_t params = 0;  // trainable
  // Hyper-parameters, in the order the layer gives them: numbers and words (activation
  // "relu", init "glorot_uniform", ...).
  std::vector<std::pair<std::string, double>> numbers;
  std::vector<std::pair<std::string, std::string>> words;
  // Composites: residual {main, shortcut} (an empty shortcut is the identity); concat: one per
  // branch, outputs stacked along the channels.
  std::vector<std::vector<GraphNode>> branches;

  GraphNode& set(const std::string& key, double value);
  GraphNode& set(const std::string& key, const std::string& value);
  // Throw core::util::Error naming the layer, op and key when the key is absent.
  double number(const std::string& key) const;
  const std::string& word(const std::string& key) const;
  bool has(const std::string& key) const;
};

// Values for a network's parameters and non-trainable state (batch-norm running statistics),
// in the order the network binds them (the graph's layers depth first, branches in order), in
// each layer's own layout: a model file's weights (an ONNX graph's initializers).
struct InitialValues {
  std::vector<float> params;
  std::vector<float> state;
  bool empty() const { return params.empty() && state.empty(); }
};

// Every node of `nodes` and their branches, depth first (for counting and checks).
template <class F>
void forEachNode(const std::vector<GraphNode>& nodes, F&& f) {
  for (const auto& n : nodes) {
    f(n);
    for (const auto& b : n.branches) forEachNode(b, f);
  }
}

}  // namespace core::nn
