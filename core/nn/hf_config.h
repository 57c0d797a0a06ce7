#pragma once
// A Hugging Face config.json read as a TransformerSpec: the fields each model_type uses
// (llama, mistral, mixtral, qwen2, qwen3, qwen3_moe, gemma2, phi3, olmo2, olmoe, deepseek_v3,
// gpt2, bert, gpt_oss), the defaults the transformers library gives a field the file leaves
// out, and a clear error naming the file, the model_type and the key for a field that is
// missing, absurd or describes what AccelLab cannot cost.
#include <string>
#include <vector>

#include "core/nn/transformer_spec.h"
#include "core/util/json.h"

namespace core::nn {

// The model_types readable, in the order above.
const std::vector<std::string>& huggingFaceModelTypes();

// True when `root` looks like a config.json: a "model_type" and no model file "kind".
bool isHuggingFaceConfig(const util::Json& root);

// Reads the config. The id comes from "_name_or_path" when the file has one, else from the
// folder holding the file (a downloaded model's folder), else from the file's name; lower-case,
// other characters as '-'. The default sequence length is max_position_embeddings, at most 8,192.
TransformerSpec transformerFromHuggingFace(const util::Json& root, const std::string& path);

}  // namespace core::nn
