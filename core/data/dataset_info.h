#pragma once
// What AccelLab knows about a dataset without reading it: sizes, shapes, classes and how the
// samples are stored (which drives the simulator's input-pipeline model).
#include <cstdint>
#include <string>
#include <vector>

#include "core/nn/layer_stats.h"

namespace core::data {

enum class SampleFormat {
  RawPixels,   // pre-decoded arrays (IDX, CIFAR binary): almost free to load
  Jpeg,        // encoded images decoded (and usually resized/augmented) on the host
  TokenIds,    // integer token sequences (text)
  Synthetic    // generated on the device: no input pipeline at all
};

struct DatasetInfo {
  std::string id;            // "fashion-mnist", "cifar10", "imagenet", ...
  std::string description;   // one line for `accellab-cli datasets`
  nn::Shape inputShape;      // per sample, as the model sees it (after resize)
  int classes = 0;           // 1 output for binary tasks (imdb)
  std::int64_t trainSize = 0;
  std::int64_t testSize = 0;
  SampleFormat format = SampleFormat::RawPixels;
  double storedBytesPerSample = 0;  // on disk (encoded size for JPEG)
  int vocabulary = 0;        // text: token vocabulary size (0 for images)
  bool resizedToModel = false;  // images resized to the model's own input (nn::inputShapeFor)
  bool takesModelInput = false; // any model's own input shape and channels (your image folder)
  bool loadable = false;     // the engine can train on it (files or generator available)
  std::string source;        // where the files come from, e.g. "Debian package dataset-fashion-mnist"
};

// The built-in dataset catalog.
const std::vector<DatasetInfo>& datasetCatalog();
// Throws core::util::Error naming the id and listing the known ones when unknown.
const DatasetInfo& datasetInfo(const std::string& id);

}  // namespace core::data
