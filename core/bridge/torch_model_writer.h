#pragma once
// The model half of an exported PyTorch job (core/bridge/torch_export.h): the zoo's own graph
// (core/nn/layer_graph.h) written as PyTorch modules, node for node, never from a per-model
// template, and the helper modules PyTorch has no ready-made class for.
#include <set>
#include <string>
#include <vector>

#include "core/nn/layer_graph.h"

namespace core::bridge {

struct TorchModel {
  std::string expression;         // the body of build_model(): the whole network as one expression
  std::set<std::string> helpers;  // the helper modules it uses (torchHelperModules)
};

// `tokens`: the network reads token ids (an embedding or one-hot first), else images. Throws
// core::util::Error naming a graph op that has no PyTorch description.
TorchModel writeTorchModel(const std::vector<nn::GraphNode>& graph, bool tokens);

// The Python source of the named helper modules, in name order.
std::string torchHelperModules(const std::set<std::string>& names);

}  // namespace core::bridge
