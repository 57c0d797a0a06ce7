#pragma once
// What a model is called, what it reads, and the rules its files keep: shared by the zoo
// (core/nn/zoo.h), the model files (model_file.h, graph_model_file.h) and the graph builder.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/nn/layer_stats.h"

namespace core::nn {

// What the model is built for: per-sample input shape and number of outputs.
// Text models (fasttext, imdb-bilstm, lstm-textgen) take token ids; `vocabulary` sizes their
// embedding / one-hot input and `shape.h` is the sequence length they read.
struct ModelInput {
  Shape shape;          // e.g. {1,28,28} for Fashion-MNIST, {3,224,224} for ImageNet
  int classes = 10;     // 1 = binary (sigmoid + binary cross-entropy)
  int vocabulary = 0;   // text only
};

struct ModelInfo {
  std::string id;
  std::string description;  // one line for `accellab-cli models`
  bool reference = false;   // large reference architecture: trainable, but slow on a CPU
  std::string defaultDataset;
};

// Model files are a few kilobytes (ResNet-152's layer graph 60 KB); a config.json with its
// tokenizer maps inlined is rarely more.
inline constexpr std::uint64_t kMaxModelFileBytes = std::uint64_t{4} << 20;

// A model file's id: 1 to 64 lower-case letters, digits, '-', '_' or '.' (kModelIdRule says so).
inline bool validModelId(const std::string& id) {
  return !id.empty() && id.size() <= 64 && id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_.") == std::string::npos;
}
inline constexpr const char* kModelIdRule = "must be 1 to 64 lower-case letters, digits, '-', '_' or '.'";

// True when `text` ends in `extension` (".onnx"), in any case.
inline bool hasExtension(const std::string& text, std::string_view extension) {
  if (text.size() <= extension.size()) return false;
  for (std::size_t i = 0; i < extension.size(); ++i) {
    const char c = text[text.size() - extension.size() + i];
    if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c) != extension[i]) return false;
  }
  return true;
}

// True when `text` names a model file rather than a model id (it ends in .json, or holds a
// '/'), and not an ONNX graph (".onnx": core/nn/onnx_model.h).
inline bool looksLikeModelPath(const std::string& text) {
  if (hasExtension(text, ".onnx")) return false;
  return text.find('/') != std::string::npos || hasExtension(text, ".json");
}

}  // namespace core::nn
