#pragma once
// CONTRACT: what to train and how, as one value. The trainer runs it, the panels edit it, and
// presets, settings, run history and exports store it through core/experiment/experiment_json.h.
#include <cstdint>
#include <string>

#include "core/util/error.h"
#include "core/util/precision.h"

namespace core::experiment {

enum class OptimizerKind { SGD, Adam };
enum class Schedule { Constant, Step, Cosine };

struct TrainConfig {
  std::string datasetId = "fashion-mnist";
  std::string dataDir;          // empty = the dataset's default location
  std::string modelId = "mlp";
  int batch = 128;
  int epochs = 1;
  std::int64_t limit = 0;       // 0 = whole training set; else the first N (shuffled) samples
  std::int64_t testLimit = 0;   // 0 = whole test set
  OptimizerKind optimizer = OptimizerKind::Adam;
  double learningRate = 1e-3;
  double momentum = 0.9;        // SGD
  bool nesterov = false;
  double weightDecay = 0;
  Schedule schedule = Schedule::Constant;
  int threads = 0;              // 0 = all cores
  std::uint64_t seed = 0;
  util::Precision precision = util::Precision::FP32;
  // Batch-norm statistics used for the test set after each epoch: 0 = Keras' moving average
  // of the training batches; N > 0 = re-estimated from N training samples with the epoch's
  // final weights and dropout off ("precise BN"). Models without batch norm ignore it.
  // A moving average needs enough steps per epoch (see effectiveBnStatsSamples).
  std::int64_t bnStatsSamples = 0;
  // An imported model (an ONNX graph) starts from the weights its file holds instead of a fresh
  // initialisation from the seed: fine-tuning a trained model. Needs nn::hasFileWeights(model).
  bool fileWeights = false;
  friend bool operator==(const TrainConfig&, const TrainConfig&) = default;
};

// Below this many steps per epoch Keras' moving average (momentum 0.99) still carries most
// of its initial statistics when the epoch is evaluated (0.99^300 ≈ 5%): test accuracy
// then falls while train accuracy rises. There the trainer re-estimates them instead.
inline constexpr std::int64_t kMovingAverageMinSteps = 300;
// Samples for precise statistics ("precise" in the app; the automatic fallback).
inline constexpr std::int64_t kPreciseBnSamples = 10240;

// The batch-norm statistics a run uses: the configured samples when precise; for the moving
// average (0), precise statistics from min(train samples, kPreciseBnSamples) when an epoch
// has fewer than kMovingAverageMinSteps steps, else 0 (the moving average).
std::int64_t effectiveBnStatsSamples(const TrainConfig& c, std::int64_t trainSamples);

using util::FieldError;  // core/util/error.h: an invalid setting, named by its field

// The test subset that goes with a training subset: the same proportion of the dataset's
// test set (at least 1), so a quick demo stays quick; 0 (whole test set) without a subset.
std::int64_t proportionalTestLimit(const std::string& datasetId, std::int64_t limit);

// A byte-level language model (a decoder transformer of the zoo with a 256-token vocabulary,
// char-gpt): it trains on a text corpus (fortunes, or any text with dataDir) through the
// language-model loop: an epoch is `limit` windows (0: the corpus' 128-byte windows), and each
// epoch ends with an evaluation (validation bits per character and generated text).
bool isLanguageModel(const std::string& modelId);

// Throws FieldError naming the field when a value is invalid (batch 0, lr <= 0, unknown
// model, a dataset that cannot be loaded, ...).
void validate(const TrainConfig& c);

}  // namespace core::experiment
