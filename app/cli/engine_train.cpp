// accellab-cli train: trains a zoo model for real on this CPU and prints one JSON object
// (or text line) per epoch as the epochs complete. Ctrl-C stops the run within one batch.
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <thread>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/engine_options.h"
#include "core/data/dataset_info.h"
#include "core/train/optimizer.h"
#include "core/train/trainer.h"
#include "core/train/training_data.h"
#include "core/util/error.h"
#include "core/util/json.h"

namespace app::cli {

using core::util::Error;
using core::util::Json;

const char* const kTrainUsage =
    "Usage: accellab-cli train --model M [--dataset D] [--batch B] [--epochs E] [options]\n"
    "\n"
    "Trains a zoo model for real on this CPU (Eigen + oneTBB) and prints one JSON object per\n"
    "epoch as it completes (--format jsonl, the default) or one text line per epoch.\n"
    "\n"
    "Options:\n"
    "  --model M          zoo id (see `accellab-cli models`), a layer-graph model file (my.json:\n"
    "                     `models --model lenet5 --format layer-graph` writes one to start from) or\n"
    "                     an ONNX graph (file.onnx) made of the engine's layers, required\n"
    "  --dataset D        fashion-mnist (default), mnist, cifar10, synthetic, synthetic-imagenet,\n"
    "                     image-folder (your images: --data-dir DIR with one sub-folder per class)\n"
    "  --batch B          samples per step (default 128)\n"
    "  --epochs E         passes over the training set (default 1)\n"
    "  --optimizer O      adam (default) or sgd\n"
    "  --lr R             learning rate (default 0.001 for adam, 0.01 for sgd)\n"
    "  --momentum M       SGD momentum in [0, 1) (default 0.9)\n"
    "  --nesterov         SGD with Nesterov momentum\n"
    "  --weight-decay W   L2 weight decay added to the gradient (default 0)\n"
    "  --schedule S       constant (default), step (x0.1 at 50% and 75% of the epochs), cosine\n"
    "  --threads T        worker threads (default 0 = all cores)\n"
    "  --seed S           seed for initialisation, shuffling, dropout and subsets (default 0; at most 2^53, which JSON keeps exactly)\n"
    "  --limit N          train on the first N samples after a seeded shuffle (default: all)\n"
    "  --test-limit N     evaluate on the first N test samples after a seeded shuffle\n"
    "  --data-dir DIR     folder with the dataset's files (default: the dataset's usual place,\n"
    "                     /usr/share/datasets/fashion-mnist for fashion-mnist); image-folder: your\n"
    "                     folder, DIR/<class>/*.png|*.jpg|*.jpeg, resized to the model's input\n"
    "  --precision P      fp32 (default), tf32, bf16 or fp16: mixed precision, fp32 accumulation and\n"
    "                     master weights; bf16 multiplies in AMX tiles or AVX512_BF16 where the CPU\n"
    "                     has them (`bench --precision bf16` says which), elsewhere GEMM inputs are\n"
    "                     rounded to P and multiplied in fp32 (emulated: same numbers, no faster)\n"
    "  --bn-stats N       batch-norm statistics for the test set: 0 (default) = the moving\n"
    "                     average of training (as Keras and PyTorch); N = re-estimated after each\n"
    "                     epoch from N training samples with dropout off (\"precise BN\")\n"
    "  --weights W        fresh (default): initialised from the seed; file: an ONNX model starts\n"
    "                     from the weights its file holds (fine-tuning a trained model; export it\n"
    "                     in training mode: an eval-mode export's folded batch norms cannot)\n"
    "  --format F         jsonl (default) or text\n"
    "\n"
    "Each JSON line has: epoch, epochs, train_loss, train_accuracy, test_loss, test_accuracy,\n"
    "host_seconds (training time of the epoch), host_images_per_second, eval_seconds, images,\n"
    "learning_rate, model, dataset, batch, threads, precision, seed, bn_stats_samples, weights.\n"
    "Exit status: 0 finished, 1 diverged, 2 bad input or data error, 130 stopped (Ctrl-C).\n"
    "\n"
    "Example:\n"
    "  accellab-cli train --dataset fashion-mnist --model mlp --batch 128 --epochs 3 \\\n"
    "      --optimizer sgd --lr 0.01 --momentum 0.9 --format jsonl\n"
    "\n"
    "Language models (char-gpt): accellab-cli train --model char-gpt [--dataset fortunes] [--steps N]\n"
    "    [--eval-every K] [--batch B] [--lr R] [--weight-decay W] [--seed S] [--threads T]\n"
    "    [--sample-chars N] [--temperature X] [--prompt TEXT] [--data-dir PATH] [--precision P]\n"
    "    [--format jsonl|text]\n"
    "  N optimizer updates (default 2000, the PyTorch peer's protocol) of random 129-byte windows\n"
    "  (batch 32), AdamW (lr 1e-3, betas 0.9/0.95, weight decay 0.1 on matrix weights), gradient\n"
    "  norm clipped at 1, 100 warm-up updates then cosine decay to 1e-4. Every K updates (default\n"
    "  250) and at the end: step, train_loss, val_loss, val_bits_per_char (200 fixed validation\n"
    "  windows), tokens_per_second, sample (greedy), sample_temperature and precision. --data-dir: any text\n"
    "  file or folder (default /usr/share/games/fortunes, Debian's `fortunes` package).\n";

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void onInterrupt(int) { g_interrupted = 1; }

// Installs the Ctrl-C handler for the lifetime of a run and restores the previous one.
class InterruptGuard {
public:
  InterruptGuard() {
    g_interrupted = 0;
    m_previous = std::signal(SIGINT, onInterrupt);
  }
  ~InterruptGuard() { std::signal(SIGINT, m_previous); }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

private:
  void (*m_previous)(int) = SIG_DFL;
};

double rounded(double v, int decimals) {
  const double f = std::pow(10.0, decimals);
  return std::round(v * f) / f;
}

core::train::TrainConfig parseTrain(const Args& a) {
  a.allowOnly({"model", "dataset", "batch", "epochs", "optimizer", "lr", "momentum", "nesterov", "weight-decay",
               "schedule", "threads", "seed", "limit", "test-limit", "data-dir", "precision", "bn-stats", "weights", "format", "help"});
  core::train::TrainConfig c;
  c.modelId = modelOption(a);
  c.datasetId = datasetOption(a, "fashion-mnist", true);
  c.batch = static_cast<int>(a.integer("batch", 128, 1, core::experiment::kMaxBatch));
  c.epochs = static_cast<int>(a.integer("epochs", 1, 1, core::experiment::kMaxEpochs));
  c.optimizer = optimizerOption(a, core::train::OptimizerKind::Adam);
  const bool sgd = c.optimizer == core::train::OptimizerKind::SGD;
  c.learningRate = a.real("lr", sgd ? 0.01 : 1e-3, 0, core::experiment::kMaxLearningRate);
  if (c.learningRate <= 0) throw Error("--lr: must be positive, got " + a.str("lr", ""));
  if (!sgd && (a.has("momentum") || a.has("nesterov")))
    throw Error(std::string("--") + (a.has("momentum") ? "momentum" : "nesterov") + ": applies to --optimizer sgd only");
  c.momentum = a.real("momentum", 0.9, 0, 0.999999);
  c.nesterov = a.flag("nesterov");
  if (c.nesterov && c.momentum <= 0) throw Error("--nesterov: needs --momentum above 0");
  c.weightDecay = a.real("weight-decay", 0, 0);
  c.schedule = scheduleOption(a);
  c.threads = static_cast<int>(a.integer("threads", 0, 0, core::experiment::kMaxThreads));
  c.seed = static_cast<std::uint64_t>(a.integer("seed", 0, 0, static_cast<std::int64_t>(core::experiment::kMaxSeed)));
  c.limit = a.integer("limit", 0, 0);
  c.testLimit = a.integer("test-limit", 0, 0);
  c.dataDir = a.str("data-dir", "");
  if (a.has("data-dir") && c.dataDir.empty()) throw Error("--data-dir: empty folder name");
  c.precision = precisionOption(a);
  c.bnStatsSamples = a.integer("bn-stats", 0, 0);
  const std::string weights = a.str("weights", "fresh");
  if (weights != "fresh" && weights != "file") throw Error("--weights: fresh or file, got '" + weights + "'");
  c.fileWeights = weights == "file";
  return c;
}

Json epochJson(const core::train::TrainConfig& c, const core::train::EpochSample& e) {
  Json j = Json::object();
  j.set("epoch", e.epoch);
  j.set("epochs", c.epochs);
  j.set("train_loss", rounded(e.trainLoss, 6));
  j.set("train_accuracy", rounded(e.trainAccuracy, 6));
  j.set("test_loss", rounded(e.testLoss, 6));
  j.set("test_accuracy", rounded(e.testAccuracy, 6));
  j.set("host_seconds", rounded(e.hostSeconds, 4));
  j.set("host_images_per_second", rounded(e.hostImagesPerSecond, 1));
  j.set("eval_seconds", rounded(e.evalSeconds, 4));
  j.set("images", static_cast<long long>(e.images));
  j.set("learning_rate", e.learningRate);
  j.set("model", c.modelId);
  j.set("dataset", c.datasetId);
  j.set("batch", c.batch);
  j.set("threads", core::train::threadCountFor(c));
  j.set("precision", core::util::precisionName(c.precision));
  j.set("seed", static_cast<unsigned long long>(c.seed));
  j.set("bn_stats_samples", static_cast<long long>(c.bnStatsSamples));
  j.set("weights", c.fileWeights ? "file" : "fresh");
  return j;
}

std::string epochText(const core::train::TrainConfig& c, const core::train::EpochSample& e) {
  std::ostringstream os;
  os << std::fixed << "epoch " << e.epoch << "/" << c.epochs << std::setprecision(4) << "  train loss " << e.trainLoss
     << " acc " << e.trainAccuracy << "  test loss " << e.testLoss << " acc " << e.testAccuracy << std::setprecision(2)
     << "  " << e.hostSeconds << " s  " << std::setprecision(0) << e.hostImagesPerSecond << " img/s";
  return os.str();
}

}  // namespace

int cmdTrain(const CommandArgs& args, std::ostream& out, std::ostream& err) {
  const Args a(args, {"help", "nesterov"});
  if (a.str("model", "") == "char-gpt") return trainLanguageModelCommand(a, out, err);
  const std::string format = formatOption(a, {"jsonl", "text"});
  const core::train::TrainConfig config = parseTrain(a);
  core::experiment::validate(config);  // a FieldError: cli.cpp says the flag ("--lr: ...")

  core::train::Trainer trainer(config);
  if (format == "text") {
    out << "training " << config.modelId << " on " << config.datasetId << ": batch " << config.batch << ", "
        << config.epochs << " epoch(s), " << core::train::optimizerName(config.optimizer) << " lr "
        << config.learningRate << ", " << core::train::threadCountFor(config) << " thread(s), "
        << core::util::precisionName(config.precision) << ", seed " << config.seed << "\n"
        << std::flush;
  }

  InterruptGuard guard;
  core::train::RunResult result;
  std::jthread worker([&](std::stop_token st) { result = trainer.run(st); });
  std::vector<core::train::BatchSample> batches;
  std::vector<core::train::EpochSample> epochs;
  auto flush = [&] {
    batches.clear();
    epochs.clear();
    trainer.metrics().drain(batches, epochs);
    for (const auto& e : epochs) {
      if (format == "jsonl") out << epochJson(config, e).dump() << "\n";
      else out << epochText(config, e) << "\n";
    }
    out << std::flush;
  };
  while (true) {
    const auto s = trainer.status();
    if (s != core::train::RunStatus::NotStarted && s != core::train::RunStatus::Running &&
        s != core::train::RunStatus::Paused)
      break;
    if (g_interrupted) worker.request_stop();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    flush();
  }
  worker.join();
  flush();

  switch (result.status) {
    case core::train::RunStatus::Finished:
      if (format == "text") out << "finished: " << result.epochsCompleted << " epoch(s)\n";
      return 0;
    case core::train::RunStatus::Stopped:
      err << "accellab-cli train: stopped after " << result.epochsCompleted << " complete epoch(s)\n";
      return 130;
    case core::train::RunStatus::Diverged:
      err << "accellab-cli train: " << result.message << "\n";
      return 1;
    default:
      err << "accellab-cli train: error: " << result.message << "\n";
      return 2;
  }
}

}  // namespace app::cli
