#pragma once
// The engine's network for an ONNX graph that is a plain chain of its layers (onnx_model.h:
// OnnxModel::chain), initialised fresh with PyTorch's default init. Plain core: no ONNX headers.
#include <memory>
#include <string>
#include <vector>

#include "core/nn/onnx_model.h"
#include "core/nn/zoo.h"

namespace core::nn {

class Network;

// Throws core::util::Error when a layer cannot take the shape the one before it gives.
std::unique_ptr<Network> networkFromChain(const std::string& id, const std::vector<OnnxLayerRecipe>& chain,
                                          const ModelInput& in);

}  // namespace core::nn
