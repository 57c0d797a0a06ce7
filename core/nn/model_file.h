#pragma once
// CONTRACT: models as data. A transformer is described by a model file, one validated JSON
// object like the device files (resources/models/<id>.json, and the user's models folder beside
// the user devices): its dimensions with their meanings in the key names, unknown keys
// rejected with the file and key named, and where the dimensions come from ("source",
// "source_date"). A Hugging Face config.json is read too (core/nn/hf_config.h): readModelFile
// tells the two apart by its "model_type".
#include <cstdint>
#include <string>
#include <vector>

#include "core/nn/graph_model_file.h"
#include "core/nn/model_info.h"
#include "core/nn/transformer_spec.h"
#include "core/util/json.h"

namespace core::nn {


// Parses an AccelLab model file's object. Throws core::util::Error naming `path` and the key.
TransformerSpec transformerFromModelJson(const util::Json& root, const std::string& path);

// The model-file form of `spec` (keys with their default value left out), the inverse of
// transformerFromModelJson.
util::Json transformerToModelJson(const TransformerSpec& spec);

// Reads `path`: an AccelLab model file, or a Hugging Face config.json (it has "model_type").
// The spec is validated. Throws core::util::Error naming the file and what is wrong.
TransformerSpec readModelFile(const std::string& path);

// The model files of the shipped folder and then the user's: every *.json read, each by its kind
// (a transformer, or a CNN/RNN's layer graph: core/nn/graph_model_file.h); a user file with a
// shipped id replaces it. A shipped file that does not read throws (a broken installation); a
// user file that does not read is left out and named in `errors`, as is a missing shipped folder.
struct ModelFolders {
  std::vector<TransformerSpec> specs;
  std::vector<GraphModelFile> graphs;
  std::vector<std::string> errors;
};
ModelFolders loadModelFolders(const std::string& shippedDir, const std::string& userDir);

// The installed model files: resources/models, then the user's models folder (read once).
const ModelFolders& installedModels();


}  // namespace core::nn
