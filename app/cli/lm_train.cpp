// accellab-cli train for the language models (char-gpt): N optimizer updates on a byte corpus
// (Debian's fortunes by default), one JSON line per evaluation with the validation bits per
// character, tokens/s and a generated sample. Ctrl-C stops between updates.
#include <cmath>
#include <csignal>
#include <ostream>
#include <thread>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/engine_options.h"
#include "core/experiment/limits.h"
#include "core/data/text_corpus.h"
#include "core/nn/network.h"
#include "core/nn/zoo.h"
#include "core/train/lm_trainer.h"
#include "core/util/error.h"
#include "core/util/json.h"

namespace app::cli {
namespace {

using core::util::Error;
using core::util::Json;

volatile std::sig_atomic_t g_lmInterrupted = 0;
extern "C" void onLmInterrupt(int) { g_lmInterrupted = 1; }

}  // namespace

int trainLanguageModelCommand(const Args& a, std::ostream& out, std::ostream& err) {
  a.allowOnly({"model", "dataset", "steps", "eval-every", "batch", "lr", "weight-decay", "seed", "threads",
               "sample-chars", "temperature", "prompt", "data-dir", "precision", "format", "help"});
  const std::string format = a.str("format", "jsonl");
  if (format != "jsonl" && format != "text") throw Error("--format: '" + format + "' is not one of jsonl, text");
  const std::string model = a.required("model");
  const std::string dataset = a.str("dataset", "fortunes");
  if (dataset != "fortunes")
    throw Error("--dataset: " + model + " is a byte-level language model: it trains on fortunes (or any text with "
                "--data-dir), not '" + dataset + "'");
  core::train::LmConfig c;
  c.steps = static_cast<int>(a.integer("steps", 2000, 1, core::experiment::kMaxLmSteps));
  c.evalEvery = static_cast<int>(a.integer("eval-every", 250, 1, core::experiment::kMaxLmSteps));
  c.batch = static_cast<int>(a.integer("batch", 32, 1, core::experiment::kMaxBatch));
  c.learningRate = a.real("lr", 1e-3, 1e-9, 9.99);
  c.minLearningRate = std::min(c.minLearningRate, c.learningRate);
  c.weightDecay = a.real("weight-decay", 0.1, 0, 1);
  c.seed = static_cast<std::uint64_t>(a.integer("seed", 0, 0, static_cast<std::int64_t>(core::experiment::kMaxSeed)));
  c.threads = static_cast<int>(a.integer("threads", 0, 0, core::experiment::kMaxThreads));
  c.sampleChars = static_cast<int>(a.integer("sample-chars", 200, 0, 100000));
  c.temperature = a.real("temperature", 0.8, 1e-3, 10);
  c.prompt = a.str("prompt", "%\n");
  const std::string path = a.str("data-dir", core::data::kFortunesDir);
  core::data::TextCorpus corpus;
  try {
    corpus = core::data::loadTextCorpus(path, 129, a.has("data-dir") ? "" : core::data::kFortunesInstallHint);
  } catch (const Error& e) {
    throw Error(std::string("--data-dir: ") + e.what());
  }
  core::nn::ModelInput in;
  in.shape = {1, 128, 1};
  in.classes = 256;
  in.vocabulary = 256;
  auto net = core::nn::buildModel(model, in);
  net->initialize(c.seed);
  const core::util::Precision precision = precisionOption(a);
  net->setPrecision(precision);
  if (format == "text")
    out << "training " << model << " (" << net->paramCount() << " parameters) on " << corpus.source << ": "
        << corpus.train.size() << " training and " << corpus.validation.size() << " validation bytes, " << c.steps
        << " updates of " << c.batch << " x 128 tokens\n"
        << std::flush;
  g_lmInterrupted = 0;
  const auto previous = std::signal(SIGINT, onLmInterrupt);
  std::stop_source stop;
  std::jthread watcher([&](std::stop_token st) {
    while (!st.stop_requested()) {
      if (g_lmInterrupted) stop.request_stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  const core::train::LmResult r = core::train::trainLanguageModel(
      *net, corpus, c,
      [&](const core::train::LmEvaluation& e) {
        if (format == "text") {
          out << "step " << e.step << "/" << c.steps << "  train loss " << e.trainLoss << "  val " << e.validationBitsPerChar
              << " bits/char  " << std::lround(e.tokensPerSecond) << " tokens/s\n  sample: "
              << Json(e.sampleGreedy).dump() << "\n"
              << std::flush;
          return;
        }
        Json j = Json::object();
        j.set("step", e.step);
        j.set("steps", c.steps);
        j.set("train_loss", e.trainLoss);
        j.set("val_loss", e.validationLoss);
        j.set("val_bits_per_char", e.validationBitsPerChar);
        j.set("tokens_per_second", e.tokensPerSecond);
        j.set("sequences_per_second", e.tokensPerSecond / 128.0);
        j.set("train_seconds", e.trainSeconds);
        j.set("learning_rate", core::train::lmLearningRate(c, std::max(0, e.step - 1), c.steps));
        j.set("sample", e.sampleGreedy);
        j.set("sample_temperature", e.sampleTemperature);
        j.set("model", model);
        j.set("dataset", dataset);
        j.set("batch", c.batch);
        j.set("precision", core::util::precisionName(precision));
        j.set("seed", static_cast<double>(c.seed));
        j.set("measured", true);
        out << j.dump() << "\n" << std::flush;
      },
      stop.get_token());
  watcher.request_stop();
  std::signal(SIGINT, previous);
  if (!r.ok) {
    err << "accellab-cli train: " << r.error << "\n";
    return r.error.find("diverged") != std::string::npos ? 1 : 2;
  }
  if (r.stopped) {
    err << "accellab-cli train: stopped\n";
    return 130;
  }
  return 0;
}

}  // namespace app::cli
