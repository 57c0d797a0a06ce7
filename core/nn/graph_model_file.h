#pragma once
// CONTRACT: a CNN or RNN as data. A model file of kind "layer_graph" (resources/models/<id>.json,
// and the user's models folder) holds the model graph (core/nn/layer_graph.h) the engine builds
// (core/nn/graph_network.h), the simulator costs and the PyTorch export writes: the zoo's
// built-in CNNs and RNNs are such files. Strict like the device files: unknown keys, on the
// file and on every layer, are refused with the file, the layer and the key named; where the
// model comes from ("source", "source_date") is required. resources/models/README.md lists
// every key.
//
// A layer's number may name the input instead of a value: "classes" (the dataset's classes),
// "vocabulary" (a text model's vocabulary) or "vocabulary * N", so one file serves every
// dataset the model fits.
#include <memory>
#include <string>
#include <vector>

#include "core/nn/layer_graph.h"
#include "core/nn/model_info.h"
#include "core/util/json.h"

namespace core::nn {

class Network;

struct GraphModelFile {
  ModelInfo info;               // id, description, reference, default dataset
  std::string name;             // for people ("LeNet-5")
  bool tokens = false;          // reads token ids ("input": "tokens"), else images
  Shape defaultShape;           // images: (c, h, w); tokens: (1, sequence length, 1)
  int defaultVocabulary = 0;    // tokens only
  bool classesAreVocabulary = false;  // "classes": "vocabulary": a class per token (a language model)
  util::Json layers;            // the graph as written
  std::string source, sourceDate;
  std::string path;             // the file it was read from ("" when built in code)
};

// True for a model file's object of kind "layer_graph".
bool isGraphModelJson(const util::Json& root);

// Parses and checks a layer-graph model file's object: every key, and the graph built at the
// default input. Throws core::util::Error naming `path`, the layer and the key.
GraphModelFile graphModelFromJson(const util::Json& root, const std::string& path);
GraphModelFile readGraphModelFile(const std::string& path);

// The file's object (the inverse of graphModelFromJson), and the file's text: its keys, then one
// leaf layer per line.
util::Json graphModelToJson(const GraphModelFile& model);
std::string graphModelText(const GraphModelFile& model);

// The model's layers for `input` (classes and vocabulary resolved; the input completed from the
// defaults as the zoo does), built (shapes inferred, parameters not allocated). Throws
// core::util::Error naming the model when the input does not fit.
ModelInput resolveGraphModelInput(const GraphModelFile& model, const ModelInput& input);
std::unique_ptr<Network> buildGraphModel(const GraphModelFile& model, const ModelInput& input);

// True when `text` names a model file (model_info.h: looksLikeModelPath) of kind "layer_graph"
// (read, bounded; false when it cannot be read: the transformer reader then says why).
bool isGraphModelPath(const std::string& text);

}  // namespace core::nn
