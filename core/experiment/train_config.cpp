#include "core/experiment/train_config.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/data/dataset_info.h"
#include "core/experiment/limits.h"
#include "core/nn/transformer_spec.h"
#include "core/nn/zoo.h"

namespace core::experiment {
namespace {

std::string number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace

std::int64_t proportionalTestLimit(const std::string& datasetId, std::int64_t limit) {
  const data::DatasetInfo* d = nullptr;
  for (const auto& info : data::datasetCatalog())
    if (info.id == datasetId) d = &info;
  if (!d || limit <= 0 || d->trainSize <= 0 || limit >= d->trainSize) return 0;
  return std::max<std::int64_t>(1, limit * d->testSize / d->trainSize);
}

bool isLanguageModel(const std::string& modelId) {
  const nn::TransformerSpec* t = nn::findTransformer(modelId);
  return t && t->kind == nn::TransformerKind::Decoder && t->vocab == 256;
}

void validate(const TrainConfig& c) {
  // Text and the language models go together: a byte corpus has no labels for a classifier,
  // and a language model reads bytes, not images.
  const bool text = c.datasetId == "fortunes";
  if (isLanguageModel(c.modelId) && !text)
    throw FieldError("dataset", c.modelId + " is a byte-level language model: it trains on fortunes (or any text "
                                "file or folder as the data folder), not '" + c.datasetId + "'");
  if (text && !isLanguageModel(c.modelId)) {
    if (const nn::TransformerSpec* t = nn::findTransformer(c.modelId); t && t->kind != nn::TransformerKind::Vision)
      throw FieldError("model", c.modelId + " is simulated only here (its " + std::to_string(t->vocab) +
                                    "-token vocabulary needs a tokenizer); train char-gpt on fortunes");
    throw FieldError("dataset", "fortunes is text for a language model (char-gpt), not for '" + c.modelId + "'");
  }
  try {
    const data::DatasetInfo& d = data::datasetInfo(c.datasetId);
    if (!d.loadable)
      throw FieldError("dataset", "'" + c.datasetId + "' is a descriptor only (sizes for the simulator); train on "
                                  "fashion-mnist, mnist, cifar10, synthetic, synthetic-imagenet or image-folder");
  } catch (const FieldError&) {
    throw;
  } catch (const util::Error& e) {
    throw FieldError("dataset", e.what());
  }
  try {
    nn::modelInfo(c.modelId);
  } catch (const util::Error& e) {
    throw FieldError("model", e.what());
  }
  if (c.datasetId == "image-folder") {  // core/data/image_folder.h
    if (c.dataDir.empty())
      throw FieldError("data_dir", "image-folder trains on your own images: give the folder (one sub-folder of "
                                   ".png/.jpg images per class)");
    const nn::ModelInfo& m = nn::modelInfo(c.modelId);
    if (!m.defaultDataset.empty() && data::datasetInfo(m.defaultDataset).format == data::SampleFormat::TokenIds)
      throw FieldError("model", c.modelId + " reads token ids, not images; an image folder trains an image model "
                                            "(e.g. lenet5, cifar-cnn, resnet20)");
  }
  if (c.precision == util::Precision::FP8 || c.precision == util::Precision::FP4)
    throw FieldError("precision", std::string(util::precisionName(c.precision)) +
                                      " is simulated only; the engine trains in fp32, tf32, fp16 or bf16");
  if (c.batch < 1) throw FieldError("batch", "must be at least 1, got " + std::to_string(c.batch));
  if (c.batch > kMaxBatch)
    throw FieldError("batch", std::to_string(c.batch) + " is too large (at most " + std::to_string(kMaxBatch) + ")");
  if (c.epochs < 1 || c.epochs > kMaxEpochs)
    throw FieldError("epochs", "must be between 1 and " + std::to_string(kMaxEpochs) + ", got " + std::to_string(c.epochs));
  if (c.limit < 0) throw FieldError("limit", "must not be negative, got " + std::to_string(c.limit));
  if (c.testLimit < 0) throw FieldError("test_limit", "must not be negative, got " + std::to_string(c.testLimit));
  if (!std::isfinite(c.learningRate) || c.learningRate <= 0 || c.learningRate > kMaxLearningRate)
    throw FieldError("learning_rate",
                     "must be a positive number of at most " + number(kMaxLearningRate) + ", got " + number(c.learningRate));
  if (!std::isfinite(c.momentum) || c.momentum < 0 || c.momentum >= 1)
    throw FieldError("momentum", "must be in [0, 1), got " + number(c.momentum));
  if (c.nesterov && c.optimizer == OptimizerKind::SGD && c.momentum <= 0)
    throw FieldError("nesterov", "Nesterov momentum needs momentum > 0");
  if (!std::isfinite(c.weightDecay) || c.weightDecay < 0 || c.weightDecay > kMaxWeightDecay)
    throw FieldError("weight_decay", "must be in [0, " + number(kMaxWeightDecay) + "], got " + number(c.weightDecay));
  if (c.fileWeights && !nn::hasFileWeights(c.modelId)) {
    try {
      nn::fileWeights(c.modelId);  // says why not
    } catch (const util::Error& e) {
      throw FieldError("weights", e.what());
    }
  }
  if (c.bnStatsSamples < 0)
    throw FieldError("bn_stats_samples", "must not be negative (0 = moving average), got " +
                                             std::to_string(c.bnStatsSamples));
  if (c.threads < 0 || c.threads > kMaxThreads)
    throw FieldError("threads", "must be between 0 (all cores) and " + std::to_string(kMaxThreads) + ", got " +
                                    std::to_string(c.threads));
  if (c.seed > kMaxSeed)
    throw FieldError("seed", "must be at most 2^53 = " + std::to_string(kMaxSeed) +
                                 " (the largest integer a JSON file keeps exactly), got " + std::to_string(c.seed));
}

std::int64_t effectiveBnStatsSamples(const TrainConfig& c, std::int64_t trainSamples) {
  if (c.bnStatsSamples > 0) return c.bnStatsSamples;
  const std::int64_t steps = c.batch > 0 ? (trainSamples + c.batch - 1) / c.batch : 0;
  if (steps >= kMovingAverageMinSteps || trainSamples <= 0) return 0;
  return std::min(trainSamples, kPreciseBnSamples);
}

}  // namespace core::experiment
