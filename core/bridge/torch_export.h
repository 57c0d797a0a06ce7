#pragma once
// The bridge to real hardware, outward: an experiment as a self-contained PyTorch training job.
// The model is written layer for layer from the zoo's own graph (core/nn/layer_graph.h), never
// from a per-model template; the data is the same dataset (real readers for the IDX, CIFAR and
// text sets, synthetic tensors in the right shape otherwise); the device is picked at run time
// (CUDA, ROCm or the CPU); several devices run under torchrun with DDP, or FSDP when the
// simulator says the model does not fit one device. The job logs its own measurements as JSON
// lines (core/bridge/run_log.h reads them back). Only `pip install torch` is needed to run it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/experiment/train_config.h"
#include "core/sim/parallel_plan.h"

namespace core::bridge {

// The version of the run-log format the exported jobs write (run_log.h accepts it).
inline constexpr int kRunLogVersion = 1;

// A transformer AccelLab describes (built-in, a model file or a Hugging Face config.json) as a
// PyTorch job: the model written from its model file, trained on tokens (synthetic, or the bytes
// of a text file) under the plan the simulator chose or the one given.
struct LlmExport {
  int seqLen = 0;                                 // 0 = the model's own
  sim::Finetune finetune = sim::Finetune::Full;
  int loraRank = 16;
  sim::ParallelPlan plan;                         // dp x tp x pp = ExportRequest::count
  bool planGiven = false;                         // --parallel named it (else the simulator chose)
  std::string planReason;                         // one line: why this plan
  std::string stackId = "pytorch-eager";          // the stack the prediction is for
  bool compile = false;                           // that stack compiles the model (torch.compile)
  std::string stackNote;                          // how the job stands for a stack plain PyTorch is not
};

struct ExportRequest {
  experiment::TrainConfig train;  // model, dataset, batch (global), epochs, optimizer, seed, precision
  std::string deviceId;           // the device it is meant for ("" = wherever it runs)
  int count = 1;                  // devices (torchrun processes)
  std::string strategy = "ddp";   // "ddp" or "fsdp" (multi-device only)
  std::string strategyReason;     // one line: why that strategy (from the simulator's memory plan)
  // Language models (char-gpt): optimizer updates and evaluation interval, the peer's protocol.
  int lmSteps = 2000;
  int lmEvalEvery = 250;
  std::string generatedOn;        // "YYYY-MM-DD"; empty = today (UTC)
  std::optional<LlmExport> llm;   // a transformer from its model description (train.modelId names it)
};

struct ExportedJob {
  std::string trainPy;
  std::string readme;
  std::string modelId;
  std::int64_t params = 0;        // trainable parameters, as the engine counts them
  std::string unit;               // "images" or "tokens"
  std::int64_t totalParams = 0;   // all of them (LoRA: the frozen base too)
};

// Throws core::util::Error naming the option when the request cannot be exported (a precision
// PyTorch's autocast has no path for, a dataset without a shape, a layer with no description).
ExportedJob exportTorchJob(const ExportRequest& request);

// The files writeTorchJob writes into `dir`: train.py, then README.md (a caller checks them
// before writing, e.g. with core::util::checkOutputPath).
std::vector<std::string> torchJobFiles(const std::string& dir);

// `text` as one word a POSIX shell reads back unchanged: as it is when it holds only safe
// characters, else in single quotes (a quote inside written '\''), so a command with a path
// in it can be pasted without running anything the path holds.
std::string shellQuoted(const std::string& text);
// How a job of `count` processes starts on one machine: "python3 <trainPy>" or "torchrun
// --standalone --nproc_per_node N <trainPy>", the path quoted for a shell.
std::string launchCommand(int count, const std::string& trainPy);

// Writes train.py and README.md into `dir` (created when missing), each atomically. Returns the
// path of train.py. Throws core::util::Error naming the file on failure.
std::string writeTorchJob(const ExportedJob& job, const std::string& dir);

}  // namespace core::bridge
