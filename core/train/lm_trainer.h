#pragma once
// Training a language model (char-gpt) on a byte corpus, the way the PyTorch peer does
// (../shared/bench/torch_baseline.py): N optimizer updates of random 129-byte windows (input 128
// bytes, targets the next byte at every position), AdamW with decoupled weight decay on the
// matrix weights only, global gradient-norm clipping, linear warm-up then cosine decay, and an
// evaluation every K updates: validation loss in bits per character over fixed windows and a
// generated continuation of a prompt (greedy and temperature-sampled). Runs in its own
// tbb::task_arena; stops between updates when the stop token fires. Failures are values.
#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/data/text_corpus.h"
#include "core/nn/network.h"

namespace core::train {

struct LmConfig {
  int steps = 2000;          // optimizer updates
  int evalEvery = 250;       // updates between evaluations (and one at the end)
  int batch = 32;            // sequences per update
  double learningRate = 1e-3, minLearningRate = 1e-4;
  int warmupSteps = 100;
  double weightDecay = 0.1;
  double clipNorm = 1.0;     // global L2 norm of the gradients; 0 = no clipping
  double beta1 = 0.9, beta2 = 0.95, epsilon = 1e-8;
  int validationWindows = 200;
  int sampleChars = 200;     // 0 = no samples
  double temperature = 0.8;
  std::string prompt = "%\n";
  std::uint64_t seed = 0;
  int threads = 0;           // 0 = all cores
};

// Throws core::util::Error naming the field.
void validate(const LmConfig& c);

// The learning rate of update s of `total` (the peer's schedule): linear warm-up to the base
// rate over warmupSteps, then cosine decay to the minimum.
double lmLearningRate(const LmConfig& c, int s, int total);

struct LmEvaluation {
  int step = 0;                  // updates done
  double trainLoss = 0;          // mean over the updates since the last evaluation (nats/token)
  double trainAccuracy = 0;      // next-byte accuracy over the same updates (fraction)
  double validationLoss = 0;     // nats per token
  double validationAccuracy = 0; // next-byte accuracy on the validation windows
  std::string prompt;            // what the samples continue
  double validationBitsPerChar = 0;
  double tokensPerSecond = 0;    // training tokens / training seconds so far (evaluations excluded)
  double trainSeconds = 0;
  std::string sampleGreedy, sampleTemperature;
};

struct LmResult {
  bool ok = true;
  bool stopped = false;
  std::string error;
  std::vector<LmEvaluation> evaluations;
  std::vector<double> stepLosses;  // every update's training loss
};

// AdamW (torch.optim.AdamW): p -= lr*wd*p where `decay` is 1, then Adam with bias correction.
class AdamW {
public:
  AdamW(double beta1, double beta2, double epsilon, double weightDecay, std::vector<std::uint8_t> decay);
  void step(Eigen::VectorXf& params, const Eigen::VectorXf& grads, double learningRate);
  std::int64_t steps() const { return m_steps; }

private:
  double m_beta1, m_beta2, m_epsilon, m_weightDecay;
  std::vector<std::uint8_t> m_decay;
  Eigen::VectorXf m_m, m_v;
  std::int64_t m_steps = 0;
};

// Scales `grads` so their global L2 norm is at most `maxNorm` (torch's clip_grad_norm_: by
// maxNorm / (norm + 1e-6) when larger); returns the norm before clipping.
double clipGradientNorm(Eigen::VectorXf& grads, double maxNorm);

// `prompt` continued by `chars` bytes: the last `context` bytes at positions 0.., each next
// byte the argmax (temperature 0) or drawn from softmax(logits / temperature).
std::string generateText(nn::Network& net, const std::string& prompt, int chars, double temperature,
                         std::uint64_t seed);

// What a caller sees of a run as it goes (all optional, all called on the training thread).
struct LmStep {
  int step = 0;              // 1-based
  double loss = 0;           // nats/token
  double accuracy = 0;       // next-byte accuracy of the batch
  double seconds = 0;        // this update
  double learningRate = 0;
};
struct LmHooks {
  std::function<void(const LmEvaluation&)> onEvaluation;
  // After every update; returning false stops the run (a pause may wait inside).
  std::function<bool(const LmStep&)> onStep;
  // The prompt of each evaluation's samples (a GUI field the user edits); empty: LmConfig::prompt.
  std::function<std::string()> prompt;
};

// Trains `net` (initialised; its input (1, context, 1) token ids, its output (vocab, context, 1))
// on `corpus`. `onEvaluation` is called after each evaluation (from the training thread).
LmResult trainLanguageModel(nn::Network& net, const data::TextCorpus& corpus, const LmConfig& c,
                            const std::function<void(const LmEvaluation&)>& onEvaluation = {},
                            std::stop_token stop = {});
LmResult trainLanguageModel(nn::Network& net, const data::TextCorpus& corpus, const LmConfig& c, const LmHooks& hooks,
                            std::stop_token stop = {});

}  // namespace core::train
