#pragma once
// An ONNX graph read for the simulator: the file parsed with bounds, its opset checked against
// the ONNX library this build links (Debian's libonnx, 1.12: up to opset 17), shapes inferred
// with the batch dimension set to 1, and every node costed as a LayerStats (per-sample FLOPs,
// activation bytes, parameters from the initializers), so an imported graph is simulated like
// a zoo model (the simulator reads NetworkStats and nothing else).
//
// Bad input is refused with core::util::Error naming the file and, where there is one, the
// node and its op: a file that is not an ONNX model or is cut short, weights kept in external
// files, an opset newer than the library's, a cycle, an input no node produces, a declared
// tensor larger than the data the file holds, a shape the inference cannot tell.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/nn/graph_network.h"
#include "core/nn/layer_graph.h"
#include "core/nn/layer_stats.h"
#include "core/nn/zoo.h"

namespace core::nn {

// One protobuf message is at most 2 GiB (protobuf's own limit, INT_MAX bytes): a larger model
// has to keep its weights in external files (torch.onnx.export does so above 2 GiB), which
// this reader refuses. Every torchvision classifier is far below (VGG-16: 528 MiB).
inline constexpr std::uint64_t kMaxOnnxFileBytes = (std::uint64_t{2} << 30) - 1;

// Parsed messages cost memory beyond their bytes (an empty node is 2 bytes in the file and a
// few hundred in memory): a file with more messages than this (ResNet-50 has about 2,000, large
// transformer exports some 100,000) is refused before it is parsed.
inline constexpr std::uint64_t kMaxOnnxMessages = 4'000'000;

// The newest opset of the default domain ("ai.onnx") the linked ONNX library knows, and its
// version ("1.12.0").
int onnxMaxOpset();
std::string onnxLibraryVersion();

struct OnnxModel {
  std::string path;
  std::string graphName;
  std::string producer;  // "pytorch 2.1.0", or empty
  int opset = 0;         // of the default domain
  NetworkStats stats;    // one entry per node, in execution order; per sample (batch 1)
  // torch.onnx.export in eval mode (its default) folds each BatchNorm2d into the convolution
  // before it: the weight and a new bias come out renamed "onnx::Conv_N". Such a convolution
  // from a "pytorch" producer is followed by the batch norm it had (scale and shift trainable,
  // less the folded bias; running mean and variance not), so the counts are model.parameters()'
  // and the training step costs the norm. How many were unfolded.
  int unfoldedBatchNorms = 0;
  // The engine's layers (core/nn/onnx_layer_graph.h: chains of the engine's layers, residual
  // Adds and channel Concats; a trailing Softmax left to the engine's loss). Empty when some
  // node has no engine layer, with notTrainable naming the first ("node 'act' (op Erf): ...");
  // such a model is simulated only.
  std::vector<GraphNode> layers;
  std::string notTrainable;
  // The file's weights in the engine's layouts (empty when unreadable, weightsMissing says why).
  InitialValues weights;
  std::string weightsMissing;
};

// Reads and costs `path` (a regular file of at most `maxBytes`). Throws core::util::Error.
OnnxModel readOnnxModel(const std::string& path, std::uint64_t maxBytes = kMaxOnnxFileBytes);

// The same from bytes in memory; `name` stands for the file in messages (the fuzz target).
OnnxModel parseOnnxModel(std::string_view bytes, const std::string& name);

// True when `text` names an ONNX file (it ends in ".onnx").
bool isOnnxPath(const std::string& text);

// Reads `path` and adds it to the zoo (zoo.h: addImportedModel), trainable when it has layers. Its
// id is the file's name ("resnet18.onnx"; "resnet18-2.onnx" when another file of that name came
// first); the same file given again returns the model already read.
const ModelInfo& importOnnxModel(const std::string& path);

}  // namespace core::nn
