#include "core/train/lm_trainer.h"

#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "core/util/error.h"
#include "core/util/rng.h"
#include "core/util/numbers.h"

namespace core::train {
namespace {

using Clock = std::chrono::steady_clock;

// Window i of `n` over `bytes`: input bytes [o, o + T), targets [o + 1, o + T + 1).
void fillWindow(const std::vector<std::uint8_t>& bytes, std::size_t offset, int T, Eigen::MatrixXf& x, Eigen::Index col,
                std::vector<int>& labels) {
  for (int t = 0; t < T; ++t) {
    x(t, col) = bytes[offset + static_cast<std::size_t>(t)];
    labels[static_cast<std::size_t>(col) * T + static_cast<std::size_t>(t)] = bytes[offset + static_cast<std::size_t>(t) + 1];
  }
}

}  // namespace

void validate(const LmConfig& c) {
  auto bad = [](const std::string& field, const std::string& what) { throw util::Error(field + ": " + what); };
  if (c.steps < 1 || c.steps > 10'000'000) bad("steps", "must be between 1 and 10000000, got " + std::to_string(c.steps));
  if (c.evalEvery < 1) bad("eval_every", "must be at least 1, got " + std::to_string(c.evalEvery));
  if (c.batch < 1 || c.batch > 65536) bad("batch", "must be between 1 and 65536, got " + std::to_string(c.batch));
  if (!(c.learningRate > 0 && c.learningRate < 10)) bad("learning_rate", "must be in (0, 10)");
  if (!(c.minLearningRate >= 0 && c.minLearningRate <= c.learningRate)) bad("min_learning_rate", "must be in [0, learning_rate]");
  if (c.warmupSteps < 0) bad("warmup_steps", "must not be negative");
  if (!(c.weightDecay >= 0 && c.weightDecay <= 1)) bad("weight_decay", "must be in [0, 1]");
  if (!(c.clipNorm >= 0)) bad("clip_norm", "must not be negative");
  if (c.validationWindows < 1) bad("validation_windows", "must be at least 1");
  if (c.sampleChars < 0 || c.sampleChars > 100000) bad("sample_chars", "must be between 0 and 100000");
  if (!(c.temperature > 0 && c.temperature <= 10)) bad("temperature", "must be in (0, 10]");
  if (c.threads < 0 || c.threads > 1024) bad("threads", "must be between 0 (all cores) and 1024");
}

double lmLearningRate(const LmConfig& c, int s, int total) {
  if (s < c.warmupSteps) return c.learningRate * (s + 1) / c.warmupSteps;
  const double span = std::max(1, total - c.warmupSteps);
  const double progress = static_cast<double>(s - c.warmupSteps) / span;
  return c.minLearningRate + 0.5 * (c.learningRate - c.minLearningRate) * (1 + std::cos(M_PI * progress));
}

AdamW::AdamW(double beta1, double beta2, double epsilon, double weightDecay, std::vector<std::uint8_t> decay)
    : m_beta1(beta1), m_beta2(beta2), m_epsilon(epsilon), m_weightDecay(weightDecay), m_decay(std::move(decay)) {}

void AdamW::step(Eigen::VectorXf& params, const Eigen::VectorXf& grads, double learningRate) {
  if (params.size() != grads.size() || params.size() != static_cast<Eigen::Index>(m_decay.size()))
    throw util::Error("AdamW: " + std::to_string(params.size()) + " parameters, " + std::to_string(grads.size()) +
                      " gradients and " + std::to_string(m_decay.size()) + " decay flags do not match");
  if (m_m.size() == 0) {
    m_m.setZero(params.size());
    m_v.setZero(params.size());
  }
  ++m_steps;
  const double c1 = 1 - std::pow(m_beta1, static_cast<double>(m_steps));
  const double c2 = 1 - std::pow(m_beta2, static_cast<double>(m_steps));
  const float b1 = static_cast<float>(m_beta1), b2 = static_cast<float>(m_beta2);
  const float stepSize = static_cast<float>(learningRate / c1), rootC2 = static_cast<float>(std::sqrt(c2));
  const float eps = static_cast<float>(m_epsilon), shrink = static_cast<float>(1 - learningRate * m_weightDecay);
  for (Eigen::Index i = 0; i < params.size(); ++i) {
    if (m_decay[static_cast<std::size_t>(i)]) params[i] *= shrink;
    m_m[i] = b1 * m_m[i] + (1 - b1) * grads[i];
    m_v[i] = b2 * m_v[i] + (1 - b2) * grads[i] * grads[i];
    params[i] -= stepSize * m_m[i] / (std::sqrt(m_v[i]) / rootC2 + eps);
  }
}

double clipGradientNorm(Eigen::VectorXf& grads, double maxNorm) {
  const double norm = std::sqrt(grads.cast<double>().squaredNorm());
  if (maxNorm > 0 && norm > maxNorm) grads *= static_cast<float>(maxNorm / (norm + 1e-6));
  return norm;
}

std::string generateText(nn::Network& net, const std::string& prompt, int chars, double temperature, std::uint64_t seed) {
  const int T = net.inputShape().h, vocab = net.classes();
  std::string text = prompt.empty() ? std::string("\n") : prompt;
  util::Rng rng = util::makeRng(seed, 0x5a);
  Eigen::MatrixXf x = Eigen::MatrixXf::Zero(T, 1);
  for (int n = 0; n < chars; ++n) {
    const std::size_t len = std::min<std::size_t>(text.size(), static_cast<std::size_t>(T));
    const std::size_t start = text.size() - len;
    x.setZero();
    for (std::size_t t = 0; t < len; ++t) x(static_cast<Eigen::Index>(t), 0) = static_cast<unsigned char>(text[start + t]);
    // Causal attention: the prediction after the last real byte ignores the padding after it.
    const Eigen::MatrixXf probs = net.predict(x);
    const auto p = probs.col(0).segment(static_cast<Eigen::Index>(len - 1) * vocab, vocab);
    int next = 0;
    if (temperature <= 0) {
      p.maxCoeff(&next);
    } else {
      std::vector<double> w(static_cast<std::size_t>(vocab));
      for (int v = 0; v < vocab; ++v) w[static_cast<std::size_t>(v)] = std::pow(std::max(1e-30, double(p[v])), 1.0 / temperature);
      std::discrete_distribution<int> pick(w.begin(), w.end());
      next = pick(rng);
    }
    text.push_back(static_cast<char>(next));
  }
  return text.substr(prompt.size());
}

LmResult trainLanguageModel(nn::Network& net, const data::TextCorpus& corpus, const LmConfig& c,
                            const std::function<void(const LmEvaluation&)>& onEvaluation, std::stop_token stop) {
  LmHooks hooks;
  hooks.onEvaluation = onEvaluation;
  return trainLanguageModel(net, corpus, c, hooks, std::move(stop));
}

LmResult trainLanguageModel(nn::Network& net, const data::TextCorpus& corpus, const LmConfig& c, const LmHooks& hooks,
                            std::stop_token stop) {
  LmResult result;
  try {
    validate(c);
    const int T = net.inputShape().h;
    if (net.inputShape().c != 1 || net.inputShape().w != 1 || T < 2)
      throw util::Error("network '" + net.id() + "' does not read a byte sequence (1, steps, 1)");
    const std::size_t window = static_cast<std::size_t>(T) + 1;
    if (corpus.train.size() < window || corpus.validation.size() < window)
      throw util::Error(corpus.source + ": the splits are shorter than one " + std::to_string(window) + "-byte window");
    oneapi::tbb::task_arena arena(c.threads > 0 ? c.threads : oneapi::tbb::task_arena::automatic);
    arena.execute([&] {
      AdamW optimizer(c.beta1, c.beta2, c.epsilon, c.weightDecay, net.matrixWeightMask());
      util::Rng rng = util::makeRng(c.seed, 0x17);
      std::uniform_int_distribution<std::size_t> offset(0, corpus.train.size() - window);
      Eigen::MatrixXf x(T, c.batch);
      std::vector<int> labels(static_cast<std::size_t>(T) * c.batch);
      // Validation: fixed windows spread over the split (the peer's floor(i (len - w) / (n - 1))).
      const int nVal = c.validationWindows;
      Eigen::MatrixXf vx(T, nVal);
      std::vector<int> vy(static_cast<std::size_t>(T) * nVal);
      for (int i = 0; i < nVal; ++i) {
        const std::size_t o = nVal == 1 ? 0 : (static_cast<std::size_t>(i) * (corpus.validation.size() - window)) / (nVal - 1);
        fillWindow(corpus.validation, o, T, vx, i, vy);
      }
      double trainSeconds = 0, lossSinceEval = 0;
      std::int64_t correctSinceEval = 0, tokensSinceEval = 0;
      int stepsSinceEval = 0;
      for (int s = 0; s < c.steps; ++s) {
        if (stop.stop_requested()) {
          result.stopped = true;
          return;
        }
        const auto t0 = Clock::now();
        for (int b = 0; b < c.batch; ++b) fillWindow(corpus.train, offset(rng), T, x, b, labels);
        const nn::StepResult r = net.trainStep(x, labels, c.seed * 1000003ULL + static_cast<std::uint64_t>(s));
        if (!std::isfinite(r.loss))
          throw util::Error("the loss became " + util::shortNumber(r.loss) + " at update " + std::to_string(s + 1) +
                            ": the run diverged; try a lower learning rate");
        clipGradientNorm(net.grads(), c.clipNorm);
        const double lr = lmLearningRate(c, s, c.steps);
        optimizer.step(net.params(), net.grads(), lr);
        const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        trainSeconds += seconds;
        result.stepLosses.push_back(r.loss);
        lossSinceEval += r.loss;
        correctSinceEval += r.correct;
        tokensSinceEval += r.samples;
        ++stepsSinceEval;
        if (hooks.onStep) {
          const double accuracy = r.samples > 0 ? static_cast<double>(r.correct) / static_cast<double>(r.samples) : 0.0;
          if (!hooks.onStep(LmStep{s + 1, r.loss, accuracy, seconds, lr})) {
            result.stopped = true;
            return;
          }
        }
        if ((s + 1) % c.evalEvery != 0 && s + 1 != c.steps) continue;
        LmEvaluation e;
        e.step = s + 1;
        e.trainLoss = lossSinceEval / std::max(1, stepsSinceEval);
        e.trainAccuracy = tokensSinceEval > 0 ? static_cast<double>(correctSinceEval) / static_cast<double>(tokensSinceEval) : 0.0;
        const nn::StepResult v = net.evaluate(vx, vy);
        e.validationLoss = v.loss;
        e.validationAccuracy = v.samples > 0 ? static_cast<double>(v.correct) / static_cast<double>(v.samples) : 0.0;
        e.validationBitsPerChar = e.validationLoss / std::log(2.0);
        e.trainSeconds = trainSeconds;
        e.tokensPerSecond = trainSeconds > 0 ? static_cast<double>(e.step) * c.batch * T / trainSeconds : 0.0;
        e.prompt = c.prompt;
        if (hooks.prompt)
          if (std::string typed = hooks.prompt(); !typed.empty()) e.prompt = std::move(typed);
        if (c.sampleChars > 0) {
          e.sampleGreedy = generateText(net, e.prompt, c.sampleChars, 0.0, c.seed);
          e.sampleTemperature = generateText(net, e.prompt, c.sampleChars, c.temperature, c.seed + static_cast<std::uint64_t>(e.step));
        }
        lossSinceEval = 0;
        correctSinceEval = tokensSinceEval = 0;
        stepsSinceEval = 0;
        result.evaluations.push_back(e);
        if (hooks.onEvaluation) hooks.onEvaluation(e);
      }
    });
  } catch (const std::exception& e) {
    result.ok = false;
    result.error = e.what();
  }
  return result;
}

}  // namespace core::train
