#pragma once
// An ONNX graph as the engine's layers: the model graph (core/nn/layer_graph.h) the engine
// builds (core/nn/graph_network.h) and the file's weights in the engine's layouts. Private to
// the ONNX reader (core/nn/onnx_model.cpp); needs ONNX's headers.
//
// The graph must be series-parallel from its input to its output: a chain of nodes the engine
// has a layer for, where a tensor read by several nodes forks into branches that meet again at
// one Add (a residual block: main and shortcut, the shortcut possibly the identity) or one
// Concat along the channels (an Inception-style block), blocks nested as deep as they like.
#include <onnx/onnx_pb.h>

#include <map>
#include <string>
#include <vector>

#include "core/nn/graph_network.h"
#include "core/nn/layer_graph.h"
#include "core/nn/onnx_node_cost.h"
#include "core/nn/onnx_shape_fold.h"

namespace core::nn {

struct OnnxLayerGraph {
  std::vector<GraphNode> graph;  // empty when the graph does not map; notTrainable says why
  std::string notTrainable;
  // The file's weights for `graph` (InitialValues' order; an unreadable tensor as zeros);
  // weightsMissing says why training should not start from them (a weight not in float, an
  // eval-mode export's folded batch norms), empty when it can.
  InitialValues weights;
  std::string weightsMissing;
};

struct OnnxLayerGraphInput {
  const onnx::GraphProto* graph = nullptr;  // nodes in execution order
  const std::map<std::string, OnnxTensor>* initializers = nullptr;
  const OnnxShapes* shapes = nullptr;
  std::string input, output;    // the graph's activation input and its (only) output
  bool unfoldTorchBatchNorm = false;  // as OnnxCoster: an eval-mode torch export's folded batch norms
};

OnnxLayerGraph onnxLayerGraph(const OnnxLayerGraphInput& in);

}  // namespace core::nn
