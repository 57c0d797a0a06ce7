#include "core/bridge/torch_export.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "core/bridge/torch_job_parts.h"
#include "core/bridge/torch_model_writer.h"
#include "core/data/dataset_info.h"
#include "core/data/text_corpus.h"
#include "core/experiment/names.h"
#include "core/nn/network.h"
#include "core/nn/transformer_spec.h"
#include "core/nn/zoo.h"
#include "core/train/lm_trainer.h"
#include "core/util/error.h"
#include "core/util/files.h"
#include "core/util/json.h"
#include "core/util/printable.h"
#include "core/util/version.h"

namespace core::bridge {
namespace {

using nn::GraphNode;
using util::Error;
using util::Json;

// --- the program's fixed parts ---------------------------------------------------------------

constexpr const char* kImports = R"PY(import argparse
import contextlib
import gzip
import json
import math
import os
import platform
import re
import struct
import sys
import time
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F
)PY";

// Initialisers and constructors: AccelLab's initialisations (core/nn/init.h) in PyTorch.
constexpr const char* kBuilders = R"PY(
# --- layer constructors with AccelLab's initialisations ---------------------------------------

def init_weight(w, init, fan_in, fan_out, scale=1.0):
    with torch.no_grad():
        if init == "glorot_uniform":
            limit = math.sqrt(6.0 / (fan_in + fan_out))
            w.uniform_(-limit, limit)
        elif init == "he_normal":
            w.normal_(0.0, math.sqrt(2.0 / fan_out))
        elif init == "torch_default":
            w.uniform_(-1.0 / math.sqrt(fan_in), 1.0 / math.sqrt(fan_in))
        elif init == "gpt_normal":
            w.normal_(0.0, 0.02)
        w.mul_(scale)


def init_bias(b, init, fan_in):
    if b is None:
        return
    with torch.no_grad():
        if init == "torch_default":
            b.uniform_(-1.0 / math.sqrt(fan_in), 1.0 / math.sqrt(fan_in))
        else:
            b.zero_()


def linear(fan_in, units, bias, init, scale=1.0):
    m = nn.Linear(fan_in, units, bias=bias)
    init_weight(m.weight, init, fan_in, units, scale)
    init_bias(m.bias, init, fan_in)
    return m


def conv2d(channels, filters, kernel, stride, padding, bias, init, groups=1):
    m = nn.Conv2d(channels, filters, kernel, stride=stride, padding=padding, bias=bias, groups=groups)
    fan_in = channels // groups * kernel[0] * kernel[1]
    init_weight(m.weight, init, fan_in, filters // groups * kernel[0] * kernel[1])
    init_bias(m.bias, init, fan_in)
    return m


def batch_norm(dims, channels, eps, keep, scale, center):
    # AccelLab keeps `keep` of the running statistics per batch; PyTorch's momentum is the rest.
    m = (nn.BatchNorm2d if dims == 2 else nn.BatchNorm1d)(channels, eps=eps, momentum=1.0 - keep)
    if not scale:
        m.weight.requires_grad_(False)  # Keras scale=False: gamma stays 1
    if not center:
        m.bias.requires_grad_(False)
    return m


def activation(name):
    return {"relu": nn.ReLU, "elu": nn.ELU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid}[name]()


def embedding(vocabulary, dim, init):
    m = nn.Embedding(vocabulary, dim)
    with torch.no_grad():
        if init == "gpt_normal":
            m.weight.normal_(0.0, 0.02)
        else:
            m.weight.uniform_(-0.05, 0.05)  # Keras' Embedding default
    return m
)PY";

// The training loop, the data readers and the run log: the program's fixed part in Python.
constexpr const char* kRunner =
#include "core/bridge/torch_runner.py.inc"
    ;

// --- the job's configuration ------------------------------------------------------------------

nn::ModelInput modelInputFor(const std::string& modelId, const data::DatasetInfo& info) {
  nn::ModelInput in;
  in.shape = info.format == data::SampleFormat::TokenIds ? nn::Shape{1, 1, 1}
                                                         : nn::inputShapeFor(modelId, info.inputShape, info.resizedToModel);
  in.classes = info.classes;
  in.vocabulary = info.vocabulary;
  return in;
}

}  // namespace

namespace detail {

const char* torchImports() { return kImports; }
const char* torchRunner() { return kRunner; }

DataPlan dataPlanFor(const data::DatasetInfo& info) {
  if (info.id == "fashion-mnist")
    return {"idx", "/usr/share/datasets/fashion-mnist",
            "on Debian/Ubuntu: apt install dataset-fashion-mnist; elsewhere download the four IDX files from "
            "https://github.com/zalandoresearch/fashion-mnist and pass --data-dir"};
  if (info.id == "mnist")
    return {"idx", "", "download the four MNIST IDX files (train-images-idx3-ubyte.gz, ...) and pass --data-dir"};
  if (info.id == "cifar10")
    return {"cifar", "", "download and unpack https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz and pass --data-dir"};
  if (info.id == "fortunes")
    return {"text", data::kFortunesDir, "on Debian/Ubuntu: apt install fortunes; or pass --data-dir with any text file or folder"};
  return {"synthetic", "", "this dataset is generated: random tensors of its shape"};
}

namespace {

Json optimizerJson(const experiment::TrainConfig& t) {
  Json opt = Json::object();
  opt.set("kind", experiment::optimizerName(t.optimizer));
  opt.set("learning_rate", t.learningRate);
  opt.set("momentum", t.momentum);
  opt.set("nesterov", t.nesterov);
  opt.set("weight_decay", t.weightDecay);
  opt.set("schedule", experiment::scheduleName(t.schedule));
  return opt;
}

Json lmJson(const ExportRequest& r) {
  Json lm = Json::object();
  const train::LmConfig lc;
  lm.set("steps", r.lmSteps);
  lm.set("eval_every", r.lmEvalEvery);
  lm.set("learning_rate", lc.learningRate);
  lm.set("min_learning_rate", lc.minLearningRate);
  lm.set("warmup_steps", lc.warmupSteps);
  lm.set("weight_decay", lc.weightDecay);
  lm.set("clip_norm", lc.clipNorm);
  lm.set("beta1", lc.beta1);
  lm.set("beta2", lc.beta2);
  lm.set("epsilon", lc.epsilon);
  lm.set("validation_windows", r.llm ? 8 : lc.validationWindows);  // a large model's 200 windows would not fit
  lm.set("sample_chars", r.llm ? 0 : lc.sampleChars);  // generated bytes read as text for char-gpt only
  lm.set("prompt", lc.prompt);
  return lm;
}

}  // namespace

Json jobConfig(const ExportRequest& r, const ExportedJob& job, const std::string& task, int seqLen,
               const std::string& strategy, Json data) {
  const experiment::TrainConfig& t = r.train;
  Json target = Json::object();
  target.set("device", r.deviceId);
  target.set("count", r.count);
  Json config = Json::object();
  config.set("model", t.modelId);
  config.set("dataset", t.datasetId);
  config.set("params", static_cast<double>(job.params));
  config.set("batch", t.batch);
  config.set("epochs", t.epochs);
  config.set("limit", static_cast<double>(t.limit));
  config.set("test_limit", static_cast<double>(t.testLimit));
  config.set("seed", static_cast<double>(t.seed));
  config.set("precision", util::precisionName(t.precision));
  config.set("task", task);
  config.set("unit", job.unit);
  if (seqLen > 0) config.set("seq_len", seqLen);
  config.set("strategy", strategy);
  config.set("exported_for", target);
  config.set("log_version", kRunLogVersion);
  config.set("data", std::move(data));
  config.set("optimizer", optimizerJson(t));
  config.set("lm", lmJson(r));
  return config;
}

std::string readmeRunSection(const std::string& launcher) {
  const std::string log = "run.jsonl";
  std::ostringstream md;
  md << "## Run it on a cloud GPU and bring the log back (three commands, from this folder)\n\n"
     << "```bash\n"
     << "scp -r . gpu-host:job && ssh gpu-host 'cd job && pip install torch && " << launcher << " --steps 200'\n"
     << "scp gpu-host:job/" << log << " .\n"
     << "accellab-cli import-run " << log << "        # measured vs predicted, in the app: File > Import measured run\n"
     << "```\n\n";
  return md.str();
}

std::string jobHeader(const ExportRequest& r, const ExportedJob& job, const std::string& date, const std::string& what) {
  const experiment::TrainConfig& t = r.train;
  std::ostringstream py;
  py << "#!/usr/bin/env python3\n"
     << "# " << t.modelId << " on " << t.datasetId << ": a PyTorch training job exported by AccelLab "
     << util::kVersion << " on " << date << ".\n"
     << "# " << job.params << " trainable parameters, global batch " << t.batch << ", " << util::precisionName(t.precision)
     << ", seed " << t.seed << (r.deviceId.empty() ? std::string() : ", meant for " + std::to_string(r.count) + "x " + r.deviceId)
     << ".\n"
     << "# " << what << "\n"
     << "# Needs only `pip install torch` (1.13 or 2.x). Run: python3 train.py --steps 100   (see README.md)\n"
     << kImports << "\n";
  return py.str();
}

}  // namespace detail

namespace {
using detail::DataPlan;
using detail::dataPlanFor;
}  // namespace

ExportedJob exportTorchJob(const ExportRequest& r) {
  const experiment::TrainConfig& t = r.train;
  if (t.precision == util::Precision::FP8 || t.precision == util::Precision::FP4)
    throw util::FieldError("precision", std::string(util::precisionName(t.precision)) +
                                            " has no PyTorch autocast path (it needs NVIDIA Transformer Engine or "
                                            "torchao's float8 training, which the exported job does not use); export "
                                            "bf16 or fp16");
  if (r.count < 1) throw util::FieldError("count", "must be at least 1");
  if (t.batch < 1) throw util::FieldError("batch", "must be at least 1");
  if (t.batch % r.count != 0)
    throw util::FieldError("batch", "the global batch " + std::to_string(t.batch) + " does not split over " + std::to_string(r.count) +
                " devices");
  if (r.strategy != "ddp" && r.strategy != "fsdp") throw Error("strategy '" + r.strategy + "' is not ddp or fsdp");
  if (r.llm) return detail::exportTransformerJob(r);
  const data::DatasetInfo& info = data::datasetInfo(t.datasetId);
  nn::modelInfo(t.modelId);  // names the model when unknown
  auto net = nn::buildModel(t.modelId, modelInputFor(t.modelId, info));
  const std::vector<GraphNode> graph = net->graph();
  const bool tokens = !graph.empty() && (graph.front().op == "embedding" || graph.front().op == "one_hot");
  const nn::Shape out = net->outputShape();
  const bool language = out.h > 1;
  const bool synthetic = info.format == data::SampleFormat::Synthetic;  // shaped to any model
  if (!synthetic && tokens != (info.format == data::SampleFormat::TokenIds))
    throw util::FieldError("dataset", t.modelId + " reads " + (tokens ? "token ids" : "images") + ", which " + t.datasetId +
                " does not hold");
  if (language && info.id != "fortunes" && info.id != "synthetic")
    throw util::FieldError("dataset", "the language model " + t.modelId + " trains on text (fortunes)");

  const TorchModel model = writeTorchModel(graph, tokens);
  const std::string& modelExpr = model.expression;

  ExportedJob job;
  job.modelId = t.modelId;
  job.params = net->paramCount();
  job.unit = language ? "tokens" : "images";
  const DataPlan plan = dataPlanFor(info);
  const std::string date = r.generatedOn.empty() ? util::todayUtc() : r.generatedOn;

  Json data = Json::object();
  data.set("reader", plan.reader);
  data.set("default_dir", plan.defaultDir);
  data.set("how_to_get", plan.howToGet);
  Json shape = Json::array();  // (c, h, w); token models (1, steps, 1)
  const nn::Shape in = net->inputShape();
  for (int v : {in.c, in.h, in.w}) shape.push(v);
  data.set("shape", shape);
  data.set("tokens", tokens);
  data.set("classes", language ? out.c : net->classes());
  data.set("vocabulary", tokens ? graph.front().number("vocabulary") : info.vocabulary);
  data.set("train_size", static_cast<double>(info.trainSize));

  const Json config = detail::jobConfig(r, job, language ? "language" : "classify", tokens ? in.h : 0, r.strategy, data);

  std::ostringstream py;
  py << detail::jobHeader(r, job, date, "The model below is written layer for layer from AccelLab's definition of " + t.modelId + ".")
     << "CONFIG = json.loads(r'''" << config.dump(2) << "''')\n"
     << kBuilders;
  py << torchHelperModules(model.helpers);
  py << "\n\n# --- the model: " << t.modelId << ", layer for layer ---------------------------------------------\n\n"
     << "def build_model():\n    return " << modelExpr << "\n\n" << kRunner;
  job.trainPy = py.str();

  std::ostringstream md;
  const std::string log = "run.jsonl";
  md << "# " << t.modelId << " on " << t.datasetId << " — a PyTorch job exported by AccelLab\n\n"
     << "Exported " << date << " by AccelLab " << util::kVersion << ". `train.py` builds " << t.modelId << " ("
     << job.params << " trainable parameters) layer for layer from AccelLab's definition and trains it with global batch "
     << t.batch << " in " << util::precisionName(t.precision) << ", seed " << t.seed
     << ". It needs Python 3 and PyTorch (1.13 or 2.x), nothing else.\n\n"
     << detail::readmeRunSection("python3 train.py");
  if (r.count > 1)
    md << "On " << r.count << " devices, replace `python3 train.py` with `torchrun --nproc_per_node=" << r.count
       << " train.py --strategy " << r.strategy << "` (" << (r.strategyReason.empty() ? "the exported default" : r.strategyReason)
       << "). On several nodes add torchrun's `--nnodes`, `--node_rank` and `--master_addr`.\n\n";
  md << "## Options\n\n"
     << "- `--steps N` stop after N optimizer steps; `--epochs E` epochs over the data (default " << t.epochs << ")\n"
     << "- `--log FILE` the JSON-lines log (default `" << log << "`); `--device auto|cpu|cuda` (auto: CUDA or ROCm when present)\n"
     << "- `--data-dir DIR` the real dataset files"
     << (plan.defaultDir.empty() ? std::string() : " (default `" + plan.defaultDir + "`)") << "; " << plan.howToGet
     << "; `--synthetic` random tensors of the same shape instead\n"
     << "- `--warmup N` the first N steps are marked as warm-up in the log (default 3); `--threads N` CPU threads\n\n"
     << "## The log\n\n"
     << "One JSON object per line: a `start` record (model, dataset, batch, precision, parameters, device name and\n"
     << "count, PyTorch/CUDA/ROCm/Python versions), a `step` record per optimizer step (`seconds` of wall time,\n"
     << "`samples`, `per_second` " << job.unit << "/s, `loss`, `warmup`), an `epoch` record per epoch (an `eval`\n"
     << "record per evaluation for language models) and an `end` record with the peak device memory.\n";
  job.readme = md.str();
  return job;
}

std::vector<std::string> torchJobFiles(const std::string& dir) {
  return {(std::filesystem::path(dir) / "train.py").string(), (std::filesystem::path(dir) / "README.md").string()};
}

std::string writeTorchJob(const ExportedJob& job, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(util::printable(dir, false) + ": cannot create the folder: " + ec.message());
  const std::vector<std::string> files = torchJobFiles(dir);
  const std::string& py = files[0];
  util::writeFileAtomic(py, job.trainPy);
  util::writeFileAtomic(files[1], job.readme);
  std::filesystem::permissions(py, std::filesystem::perms::owner_exec | std::filesystem::perms::group_exec |
                                       std::filesystem::perms::others_exec,
                               std::filesystem::perm_options::add, ec);
  return py;
}

std::string shellQuoted(const std::string& text) {
  const bool plain = !text.empty() && text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                             "0123456789_./+-:,@%") == std::string::npos;
  if (plain) return text;
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

std::string launchCommand(int count, const std::string& trainPy) {
  return (count > 1 ? "torchrun --standalone --nproc_per_node " + std::to_string(count) + " " : std::string("python3 ")) +
         shellQuoted(trainPy);
}

}  // namespace core::bridge
