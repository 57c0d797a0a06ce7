#pragma once
// The engine's layers built from the model graph (core/nn/layer_graph.h): the inverse of
// Layer::graph(). A graph that came from anywhere — a zoo model's own description, an ONNX
// file (core/nn/onnx_model.h), a model file — is built by this one function, so a layer's
// hyper-parameters are read back in one place.
//
// Bad graphs are refused with core::util::Error naming the layer, its op and the key: an
// unknown op, a missing or out-of-range number, an unknown word, padding the engine's windows
// cannot express, and shapes that do not fit (the layers' own checks while the network builds).
#include <memory>
#include <string>
#include <vector>

#include "core/nn/layer_graph.h"
#include "core/nn/model_info.h"

namespace core::nn {

class Layer;
class Network;

// One layer (a composite with its branches). `node.in` is the input the layer is built for:
// a convolution's or pool's padding is read against it.
std::unique_ptr<Layer> layerFromGraph(const GraphNode& node);

// The whole network (shapes inferred, parameters not allocated: call initialize()).
std::unique_ptr<Network> networkFromGraph(const std::string& id, const std::vector<GraphNode>& graph,
                                          const ModelInput& input);

// Copies `values` over an initialised network's parameters and state. Throws core::util::Error
// when the sizes differ from the network's (naming both).
void loadInitialValues(Network& net, const InitialValues& values);

}  // namespace core::nn
