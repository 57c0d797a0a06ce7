#include "core/train/training_data.h"

#include <oneapi/tbb/info.h>

#include "core/data/dataset_info.h"

namespace core::train {

nn::ModelInput modelInputFor(const data::Dataset& d) {
  nn::ModelInput in;
  in.shape = d.shape();
  in.classes = d.classes();
  in.vocabulary = d.vocabulary();
  return in;
}

data::LoadOptions loadOptionsFor(const TrainConfig& c) {
  data::LoadOptions o;
  o.dataDir = c.dataDir;
  o.limit = c.limit;
  o.testLimit = c.testLimit;
  o.seed = c.seed;
  const data::DatasetInfo& info = data::datasetInfo(c.datasetId);
  if (info.format == data::SampleFormat::Synthetic && info.id == "synthetic") {
    const nn::ModelInfo& model = nn::modelInfo(c.modelId);
    const data::DatasetInfo& like = data::datasetInfo(model.defaultDataset.empty() ? "fashion-mnist" : model.defaultDataset);
    // The zoo resolves an all-ones shape to the model's usual input (text models: their own
    // sequence length, e.g. 100 tokens for imdb-bilstm although imdb is padded to 400).
    nn::ModelInput usual;
    usual.shape = {1, 1, 1};
    usual.classes = like.classes;
    usual.vocabulary = like.vocabulary;
    o.shape = nn::modelStats(c.modelId, usual).input;
    o.classes = like.classes;
    o.vocabulary = like.vocabulary;
  } else if (info.takesModelInput) {
    // Your images take the model's own input: its channels (grey or RGB) and size.
    nn::ModelInput usual;
    usual.shape = {1, 1, 1};
    o.shape = nn::modelStats(c.modelId, usual).input;
  } else if (info.resizedToModel) {
    o.shape = nn::inputShapeFor(c.modelId, info.inputShape, true);  // e.g. Inception-v3 at 299x299
  }
  return o;
}

data::DatasetSplit loadTrainingData(const TrainConfig& c) { return data::loadDataset(c.datasetId, loadOptionsFor(c)); }

int threadCountFor(const TrainConfig& c) {
  return c.threads > 0 ? c.threads : std::max(1, oneapi::tbb::info::default_concurrency());
}

std::uint64_t stepSeed(std::uint64_t runSeed, std::int64_t step) {
  auto mix = [](std::uint64_t z) {
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  };
  return mix(runSeed ^ mix(static_cast<std::uint64_t>(step)));
}

}  // namespace core::train
