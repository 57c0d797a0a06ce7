#pragma once
// The model zoo: ids used by the CLI and the GUI. Its CNNs and RNNs are model files
// (core/nn/graph_model_file.h, resources/models); char-gpt and vit-tiny are built from their
// transformer model files; ONNX graphs and layer-graph files the user opens join it.
// CONTRACT shared by the engine (training), the simulator (stats only) and the GUI.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/nn/graph_model_file.h"
#include "core/nn/layer_graph.h"
#include "core/nn/layer_stats.h"
#include "core/nn/model_info.h"

namespace core::nn {

class Network;

// The built-in models (imported ones are not listed).
const std::vector<ModelInfo>& modelCatalog();
// Throws core::util::Error naming the id and listing the known ones when unknown.
const ModelInfo& modelInfo(const std::string& id);
// A built-in or imported model, or nullptr.
const ModelInfo* findModel(const std::string& id);

// A model read from a file (an ONNX graph: core/nn/onnx_model.h) joins the zoo with its stats:
// modelInfo, modelStats and inputShapeFor know it, so the simulator costs it like a built-in
// model. buildModel builds its layers (core/nn/graph_network.h) when it has them; without them
// it refuses, giving `notTrainable` as the reason.
struct ImportedModel {
  ModelInfo info;
  NetworkStats stats;
  std::vector<GraphNode> layers;  // empty: simulate only
  std::string notTrainable;
  InitialValues weights;          // the file's, for `layers`; empty when it has none usable
  std::string weightsMissing;     // why not
};
// Throws when the id is taken.
const ModelInfo& addImportedModel(ImportedModel model);
// The imported models, in the order they came.
std::vector<const ModelInfo*> importedModels();
// Whether the engine can build the model: every built-in one, an imported one with layers.
bool trainable(const std::string& id);

// The weights an imported model's file holds, for the network buildModel builds. Throws
// core::util::Error naming the model and why when there are none (a built-in model, a file
// without usable weights).
const InitialValues& fileWeights(const std::string& id);
bool hasFileWeights(const std::string& id);

// Builds the network (shapes inferred, parameters NOT allocated: call initialize()).
// Throws core::util::Error when the id is unknown or the input cannot fit the model.
std::unique_ptr<Network> buildModel(const std::string& id, const ModelInput& input);

// The input shape a model gets from a dataset of `datasetShape` images. Datasets whose images
// are resized to the model (`resizedToModel`: ImageNet and its synthetic twin) feed the
// ImageNet reference architectures at their own resolution (Inception-v3 and Xception at
// 299x299, ResNet/VGG/AlexNet at 224x224), as their benchmarks do; anything else takes the
// dataset's shape.
Shape inputShapeFor(const std::string& modelId, Shape datasetShape, bool resizedToModel);

// A built-in CNN or RNN of the zoo as its file (the shipped one). Throws core::util::Error for
// other ids (a transformer has a model file of its own kind; an ONNX graph its file).
GraphModelFile graphModelFileOf(const std::string& id);

// Opens a layer-graph model file (core/nn/graph_model_file.h): the model joins the zoo under its
// id, trained and simulated like the built-in ones. Throws core::util::Error naming the file,
// the layer and the key; an id already taken is refused.
const ModelInfo& importGraphModel(const std::string& path);

// A model file imported once: the same file (by its canonical path) given again returns the
// model it became; otherwise `import` reads it and adds it to the zoo. Imports take turns.
const ModelInfo& importModelFileOnce(const std::string& path, const std::function<const ModelInfo&()>& import);

// Layer-by-layer stats without allocating parameters (cheap: the simulator calls this).
NetworkStats modelStats(const std::string& id, const ModelInput& input);

}  // namespace core::nn
