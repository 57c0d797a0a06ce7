#include "core/bridge/torch_export.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

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

// Modules PyTorch has no ready-made class for, one per graph op that needs one; only those the
// model uses are written out.
const std::map<std::string, std::string>& helperModules() {
  static const std::map<std::string, std::string> kHelpers = {
      {"residual", R"PY(
class Residual(nn.Module):
    """y = after(main(x) + shortcut(x)); no shortcut = the identity."""
    def __init__(self, main, shortcut=None, after=None):
        super().__init__()
        self.main, self.shortcut, self.after = main, shortcut, after

    def forward(self, x):
        y = self.main(x) + (self.shortcut(x) if self.shortcut is not None else x)
        return self.after(y) if self.after is not None else y
)PY"},
      {"concat", R"PY(
class Concat(nn.Module):
    """Branches on the same input, outputs stacked along the channels (Inception)."""
    def __init__(self, *branches):
        super().__init__()
        self.branches = nn.ModuleList(branches)

    def forward(self, x):
        return torch.cat([b(x) for b in self.branches], dim=1)
)PY"},
      {"global_avg_pool", R"PY(
class GlobalAvgPool(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return x.mean(dim=self.dim)
)PY"},
      {"avg_pool2d", R"PY(
class AvgPoolExcludingPadding(nn.Module):
    """Average pooling with uneven ("same") padding left out of the average (Keras)."""
    def __init__(self, kernel, stride, pads):
        super().__init__()
        self.kernel, self.stride, self.pads = kernel, stride, pads

    def forward(self, x):
        ones = torch.ones_like(x[:1, :1])
        total = F.avg_pool2d(F.pad(x, self.pads), self.kernel, self.stride)
        share = F.avg_pool2d(F.pad(ones, self.pads), self.kernel, self.stride)
        return total / share
)PY"},
      {"one_hot", R"PY(
class OneHot(nn.Module):
    def __init__(self, vocabulary):
        super().__init__()
        self.vocabulary = vocabulary

    def forward(self, x):
        return F.one_hot(x.long(), self.vocabulary).float()
)PY"},
      {"lstm", R"PY(
class KerasLSTM(nn.Module):
    """Keras' LSTM(units) (or Bidirectional, merge concat): the last output of each direction.
    Glorot kernel, orthogonal recurrent kernel, one bias with the forget gate's at 1 (PyTorch's
    second bias is held at zero, so the trainable parameters are Keras')."""
    def __init__(self, features, units, directions):
        super().__init__()
        self.lstm = nn.LSTM(features, units, batch_first=True, bidirectional=directions == 2)
        for name, p in self.lstm.named_parameters():
            with torch.no_grad():
                if name.startswith("weight_ih"):
                    init_weight(p, "glorot_uniform", features, 4 * units)
                elif name.startswith("weight_hh"):
                    nn.init.orthogonal_(p)
                elif name.startswith("bias_ih"):
                    p.zero_()
                    p[units:2 * units] = 1.0
                else:
                    p.zero_()
                    p.requires_grad_(False)

    def forward(self, x):
        _, (h, _) = self.lstm(x)
        return torch.cat([h[i] for i in range(h.shape[0])], dim=1)
)PY"},
      {"pad_shortcut", R"PY(
class PadShortcut(nn.Module):
    """ResNet option A: subsample by the stride, zero channels added on both sides."""
    def __init__(self, channels, out_channels, stride):
        super().__init__()
        self.pad, self.stride = (out_channels - channels) // 2, stride

    def forward(self, x):
        if self.stride > 1:
            x = x[:, :, ::self.stride, ::self.stride]
        return F.pad(x, (0, 0, 0, 0, self.pad, self.pad))
)PY"},
      {"position_embedding", R"PY(
class PositionEmbedding(nn.Module):
    def __init__(self, steps, dim):
        super().__init__()
        self.table = nn.Parameter(torch.empty(1, steps, dim).normal_(0.0, 0.02))

    def forward(self, x):
        return x + self.table[:, :x.shape[1]]
)PY"},
      {"self_attention", R"PY(
class SelfAttention(nn.Module):
    """Scaled dot-product attention over a fused q|k|v projection (B, T, 3d) -> (B, T, d)."""
    def __init__(self, heads, causal):
        super().__init__()
        self.heads, self.causal = heads, causal

    def forward(self, qkv):
        B, T, three_d = qkv.shape
        d = three_d // 3
        q, k, v = (t.reshape(B, T, self.heads, d // self.heads).transpose(1, 2) for t in qkv.split(d, dim=2))
        if hasattr(F, "scaled_dot_product_attention"):  # PyTorch >= 2.0: fused kernels
            y = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        else:
            att = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads)
            if self.causal:
                mask = torch.ones(T, T, dtype=torch.bool, device=qkv.device).triu(1)
                att = att.masked_fill(mask, float("-inf"))
            y = att.softmax(dim=-1) @ v
        return y.transpose(1, 2).reshape(B, T, d)
)PY"},
      {"patchify", R"PY(
class Patchify(nn.Module):
    """(B, C, H, W) -> (B, patches, C*p*p): non-overlapping p x p patches, row-major."""
    def __init__(self, patch):
        super().__init__()
        self.p = patch

    def forward(self, x):
        B, C, H, W = x.shape
        p = self.p
        x = x.reshape(B, C, H // p, p, W // p, p).permute(0, 2, 4, 1, 3, 5)
        return x.reshape(B, (H // p) * (W // p), C * p * p)
)PY"},
      {"class_token", R"PY(
class ClassToken(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.token = nn.Parameter(torch.empty(1, 1, dim).normal_(0.0, 0.02))

    def forward(self, x):
        return torch.cat([self.token.expand(x.shape[0], -1, -1), x], dim=1)
)PY"},
      {"take_token", R"PY(
class TakeToken(nn.Module):
    def __init__(self, step):
        super().__init__()
        self.step = step

    def forward(self, x):
        return x[:, self.step]
)PY"},
  };
  return kHelpers;
}

constexpr const char* kRunner =
#include "core/bridge/torch_runner.py.inc"
    ;

// --- the model, from the graph ----------------------------------------------------------------

// What a tensor looks like in PyTorch at a point of the network (batch first).
enum class Form { Image, Vector, Sequence, Tokens };

std::string num(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  std::ostringstream s;
  s.precision(6);  // the layers hold floats: 1e-05, not 9.99999975e-06
  s << v;
  return s.str();
}

std::string pyBool(double v) { return v != 0 ? "True" : "False"; }
std::string pyStr(const std::string& s) { return Json(s).dump(); }

std::string identifier(const std::string& layerName, const std::string& fallback) {
  std::string base = layerName.substr(layerName.rfind('/') == std::string::npos ? 0 : layerName.rfind('/') + 1);
  if (base.empty()) base = fallback;
  for (char& c : base)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  if (std::isdigit(static_cast<unsigned char>(base[0]))) base = "l_" + base;
  return base;
}

class ModelWriter {
public:
  // The body of build_model(): returns the expression of the whole network.
  std::string write(const std::vector<GraphNode>& nodes, Form input) {
    Form f = input;
    return sequence(nodes, f, 1);
  }
  const std::set<std::string>& helpers() const { return m_helpers; }

private:
  struct Entry {
    std::string name, expr;
  };

  std::string sequence(const std::vector<GraphNode>& nodes, Form& f, int depth) {
    std::vector<Entry> entries;
    for (const auto& n : nodes) emit(n, f, entries, depth + 1);
    const std::string pad(static_cast<std::size_t>(4 * depth), ' ');
    std::set<std::string> used;
    std::string s = "nn.Sequential(OrderedDict([\n";
    for (auto& e : entries) {
      std::string name = e.name;
      for (int k = 2; used.count(name); ++k) name = e.name + "_" + std::to_string(k);
      used.insert(name);
      s += pad + "    (" + pyStr(name) + ", " + e.expr + "),\n";
    }
    return s + pad + "]))";
  }

  static bool symmetric(const GraphNode& n) {
    return n.number("pad_top") == n.number("pad_bottom") && n.number("pad_left") == n.number("pad_right");
  }
  static std::string pads(const GraphNode& n) {  // F.pad order: left, right, top, bottom
    return "(" + num(n.number("pad_left")) + ", " + num(n.number("pad_right")) + ", " + num(n.number("pad_top")) + ", " +
           num(n.number("pad_bottom")) + ")";
  }
  static std::string pair(const GraphNode& n, const char* a, const char* b) {
    return "(" + num(n.number(a)) + ", " + num(n.number(b)) + ")";
  }

  void activationAfter(const GraphNode& n, const std::string& name, std::vector<Entry>& out) {
    const std::string& a = n.word("activation");
    if (a != "linear") out.push_back({name + "_" + a, "activation(" + pyStr(a) + ")"});
  }

  [[noreturn]] void unsupported(const GraphNode& n, const std::string& why) {
    throw Error("layer '" + n.name + "' (" + n.op + "): " + why + "; PyTorch export cannot express it");
  }

  void emit(const GraphNode& n, Form& f, std::vector<Entry>& out, int depth) {
    const std::string name = identifier(n.name, n.op);
    if (n.op == "flatten") {
      if (f != Form::Vector) out.push_back({name, "nn.Flatten()"});
      f = Form::Vector;
    } else if (n.op == "linear") {
      const bool perToken = n.number("per_token") != 0;
      if (perToken && f != Form::Sequence) unsupported(n, "a per-token projection of a tensor that is not a sequence");
      if (!perToken && f != Form::Vector) {
        out.push_back({name + "_flatten", "nn.Flatten()"});
        f = Form::Vector;
      }
      const std::int64_t fanIn = perToken ? n.in.c : n.in.size();
      std::string e = "linear(" + num(static_cast<double>(fanIn)) + ", " + num(n.number("units")) + ", bias=" +
                      pyBool(n.number("bias")) + ", init=" + pyStr(n.word("init"));
      if (n.number("init_scale") != 1) e += ", scale=" + num(n.number("init_scale"));
      out.push_back({name, e + ")"});
      activationAfter(n, name, out);
    } else if (n.op == "conv2d" || n.op == "depthwise_conv2d") {
      if (f != Form::Image) unsupported(n, "a convolution of a tensor that is not an image");
      std::string padding = pair(n, "pad_top", "pad_left");
      if (!symmetric(n)) {
        out.push_back({name + "_pad", "nn.ZeroPad2d(" + pads(n) + ")"});
        padding = "0";
      }
      const bool depthwise = n.op == "depthwise_conv2d";
      const int filters = depthwise ? n.out.c : static_cast<int>(n.number("filters"));
      out.push_back({name, "conv2d(" + num(n.in.c) + ", " + num(filters) + ", " + pair(n, "kernel_h", "kernel_w") +
                               ", stride=" + pair(n, "stride_h", "stride_w") + ", padding=" + padding + ", bias=" +
                               pyBool(n.number("bias")) + ", init=" + pyStr(n.word("init")) +
                               (depthwise ? ", groups=" + num(n.in.c) : std::string()) + ")"});
      if (!depthwise) activationAfter(n, name, out);
    } else if (n.op == "batch_norm") {
      if (f == Form::Sequence || f == Form::Tokens) unsupported(n, "batch norm over a sequence");
      out.push_back({name, "batch_norm(" + std::string(f == Form::Image ? "2" : "1") + ", " + num(n.in.c) + ", eps=" +
                               num(n.number("epsilon")) + ", keep=" + num(n.number("keep")) + ", scale=" +
                               pyBool(n.number("scale")) + ", center=" + pyBool(n.number("center")) + ")"});
    } else if (n.op == "activation") {
      const std::string& a = n.word("activation");
      if (a != "linear") out.push_back({name, "activation(" + pyStr(a) + ")"});
    } else if (n.op == "dropout") {
      out.push_back({name, "nn.Dropout(" + num(n.number("rate")) + ")"});
    } else if (n.op == "max_pool2d") {
      if (f != Form::Image) unsupported(n, "pooling a tensor that is not an image");
      std::string padding = pair(n, "pad_top", "pad_left");
      if (!symmetric(n)) {
        out.push_back({name + "_pad", "nn.ConstantPad2d(" + pads(n) + ", float(\"-inf\"))"});
        padding = "0";
      }
      out.push_back({name, "nn.MaxPool2d(" + pair(n, "kernel_h", "kernel_w") + ", stride=" + pair(n, "stride_h", "stride_w") +
                               ", padding=" + padding + ")"});
    } else if (n.op == "avg_pool2d") {
      if (f != Form::Image) unsupported(n, "pooling a tensor that is not an image");
      if (symmetric(n)) {
        out.push_back({name, "nn.AvgPool2d(" + pair(n, "kernel_h", "kernel_w") + ", stride=" + pair(n, "stride_h", "stride_w") +
                                 ", padding=" + pair(n, "pad_top", "pad_left") + ", count_include_pad=False)"});
      } else {
        m_helpers.insert("avg_pool2d");
        out.push_back({name, "AvgPoolExcludingPadding(" + pair(n, "kernel_h", "kernel_w") + ", " +
                                 pair(n, "stride_h", "stride_w") + ", " + pads(n) + ")"});
      }
    } else if (n.op == "global_avg_pool") {
      m_helpers.insert("global_avg_pool");
      const bool steps = n.word("over") == "steps";
      if (steps ? f != Form::Sequence : f != Form::Image) unsupported(n, "global pooling of an unexpected tensor");
      out.push_back({name, steps ? "GlobalAvgPool(dim=1)" : "GlobalAvgPool(dim=(2, 3))"});
      f = Form::Vector;
    } else if (n.op == "embedding") {
      if (f != Form::Tokens) unsupported(n, "an embedding of something other than token ids");
      out.push_back({name, "embedding(" + num(n.number("vocabulary")) + ", " + num(n.number("dim")) + ", " +
                               pyStr(n.word("init")) + ")"});
      f = Form::Sequence;
    } else if (n.op == "one_hot") {
      if (f != Form::Tokens) unsupported(n, "one-hot of something other than token ids");
      m_helpers.insert("one_hot");
      out.push_back({name, "OneHot(" + num(n.number("vocabulary")) + ")"});
      f = Form::Sequence;
    } else if (n.op == "lstm") {
      if (f != Form::Sequence) unsupported(n, "an LSTM over something other than a sequence");
      m_helpers.insert("lstm");
      out.push_back({name, "KerasLSTM(" + num(n.in.c) + ", " + num(n.number("units")) + ", " +
                               num(n.number("directions")) + ")"});
      f = Form::Vector;
    } else if (n.op == "pad_shortcut") {
      m_helpers.insert("pad_shortcut");
      const int stride = n.out.h < n.in.h ? 2 : 1;
      out.push_back({name, "PadShortcut(" + num(n.in.c) + ", " + num(n.number("out_channels")) + ", " + num(stride) + ")"});
    } else if (n.op == "layer_norm") {
      out.push_back({name, "nn.LayerNorm(" + num(n.in.c) + ", eps=" + num(n.number("epsilon")) + ")"});
    } else if (n.op == "gelu") {
      out.push_back({name, "nn.GELU()"});
    } else if (n.op == "position_embedding") {
      m_helpers.insert("position_embedding");
      out.push_back({name, "PositionEmbedding(" + num(n.in.h) + ", " + num(n.in.c) + ")"});
    } else if (n.op == "self_attention") {
      m_helpers.insert("self_attention");
      out.push_back({name, "SelfAttention(" + num(n.number("heads")) + ", causal=" + pyBool(n.number("causal")) + ")"});
    } else if (n.op == "patchify") {
      if (f != Form::Image) unsupported(n, "patches of something other than an image");
      m_helpers.insert("patchify");
      out.push_back({name, "Patchify(" + num(n.number("patch")) + ")"});
      f = Form::Sequence;
    } else if (n.op == "class_token") {
      m_helpers.insert("class_token");
      out.push_back({name, "ClassToken(" + num(n.in.c) + ")"});
    } else if (n.op == "take_token") {
      m_helpers.insert("take_token");
      out.push_back({name, "TakeToken(" + num(n.number("step")) + ")"});
      f = Form::Vector;
    } else if (n.op == "residual") {
      m_helpers.insert("residual");
      Form main = f, shortcut = f;
      const std::string mainExpr = sequence(n.branches.at(0), main, depth);
      const std::string shortExpr = n.branches.at(1).empty() ? "None" : sequence(n.branches.at(1), shortcut, depth);
      const std::string& a = n.word("activation");
      out.push_back({name, "Residual(" + mainExpr + ", " + shortExpr + ", " +
                               (a == "linear" ? std::string("None") : "activation(" + pyStr(a) + ")") + ")"});
      f = main;
    } else if (n.op == "concat") {
      if (f != Form::Image) unsupported(n, "a concatenation of non-images");
      m_helpers.insert("concat");
      std::string e = "Concat(";
      for (std::size_t b = 0; b < n.branches.size(); ++b) {
        Form bf = f;
        e += (b ? ", " : "") + sequence(n.branches[b], bf, depth);
      }
      out.push_back({name, e + ")"});
    } else if (n.op == "sequential") {
      for (const auto& c : n.branches.at(0)) emit(c, f, out, depth);
    } else {
      unsupported(n, "an op the exporter does not know");
    }
  }

  std::set<std::string> m_helpers;
};

// --- the job's configuration ------------------------------------------------------------------

nn::ModelInput modelInputFor(const std::string& modelId, const data::DatasetInfo& info) {
  nn::ModelInput in;
  in.shape = info.format == data::SampleFormat::TokenIds ? nn::Shape{1, 1, 1}
                                                         : nn::inputShapeFor(modelId, info.inputShape, info.resizedToModel);
  in.classes = info.classes;
  in.vocabulary = info.vocabulary;
  return in;
}

struct DataPlan {
  std::string reader;      // "idx", "cifar", "text", "synthetic"
  std::string defaultDir;
  std::string howToGet;
};

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


}  // namespace

ExportedJob exportTorchJob(const ExportRequest& r) {
  const experiment::TrainConfig& t = r.train;
  if (t.precision == util::Precision::FP8)
    throw Error("--precision: fp8 has no PyTorch autocast path (it needs NVIDIA Transformer Engine); export bf16 or fp16");
  if (r.count < 1) throw Error("--count: must be at least 1");
  if (t.batch < 1) throw Error("--batch: must be at least 1");
  if (t.batch % r.count != 0)
    throw Error("--batch: the global batch " + std::to_string(t.batch) + " does not split over " + std::to_string(r.count) +
                " devices");
  if (r.strategy != "ddp" && r.strategy != "fsdp") throw Error("strategy '" + r.strategy + "' is not ddp or fsdp");
  const data::DatasetInfo& info = data::datasetInfo(t.datasetId);
  nn::modelInfo(t.modelId);  // names the model when unknown
  auto net = nn::buildModel(t.modelId, modelInputFor(t.modelId, info));
  const std::vector<GraphNode> graph = net->graph();
  const bool tokens = !graph.empty() && (graph.front().op == "embedding" || graph.front().op == "one_hot");
  const nn::Shape out = net->outputShape();
  const bool language = out.h > 1;
  const bool synthetic = info.format == data::SampleFormat::Synthetic;  // shaped to any model
  if (!synthetic && tokens != (info.format == data::SampleFormat::TokenIds))
    throw Error("--dataset: " + t.modelId + " reads " + (tokens ? "token ids" : "images") + ", which " + t.datasetId +
                " does not hold");
  if (language && info.id != "fortunes" && info.id != "synthetic")
    throw Error("--dataset: the language model " + t.modelId + " trains on text (fortunes)");

  ModelWriter writer;
  const std::string modelExpr = writer.write(graph, tokens ? Form::Tokens : Form::Image);

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

  Json opt = Json::object();
  opt.set("kind", experiment::optimizerName(t.optimizer));
  opt.set("learning_rate", t.learningRate);
  opt.set("momentum", t.momentum);
  opt.set("nesterov", t.nesterov);
  opt.set("weight_decay", t.weightDecay);
  opt.set("schedule", experiment::scheduleName(t.schedule));
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
  lm.set("validation_windows", lc.validationWindows);
  lm.set("sample_chars", lc.sampleChars);
  lm.set("prompt", lc.prompt);

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
  config.set("task", language ? "language" : "classify");
  config.set("unit", job.unit);
  if (tokens) config.set("seq_len", in.h);
  config.set("strategy", r.strategy);
  config.set("exported_for", target);
  config.set("log_version", kRunLogVersion);
  config.set("data", data);
  config.set("optimizer", opt);
  config.set("lm", lm);

  std::ostringstream py;
  py << "#!/usr/bin/env python3\n"
     << "# " << t.modelId << " on " << t.datasetId << ": a PyTorch training job exported by AccelLab "
     << util::kVersion << " on " << date << ".\n"
     << "# " << job.params << " trainable parameters, global batch " << t.batch << ", " << util::precisionName(t.precision)
     << ", seed " << t.seed << (r.deviceId.empty() ? std::string() : ", meant for " + std::to_string(r.count) + "x " + r.deviceId)
     << ".\n"
     << "# The model below is written layer for layer from AccelLab's definition of " << t.modelId << ".\n"
     << "# Needs only `pip install torch` (1.13 or 2.x). Run: python3 train.py --steps 100   (see README.md)\n"
     << kImports << "\n"
     << "CONFIG = json.loads(r'''" << config.dump(2) << "''')\n"
     << kBuilders;
  for (const auto& h : writer.helpers()) py << helperModules().at(h);
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
     << "## Run it on a cloud GPU and bring the log back (three commands, from this folder)\n\n"
     << "```bash\n"
     << "scp -r . gpu-host:job && ssh gpu-host 'cd job && pip install torch && python3 train.py --steps 200'\n"
     << "scp gpu-host:job/" << log << " .\n"
     << "accellab-cli import-run " << log << "        # measured vs predicted, in the app: File > Import measured run\n"
     << "```\n\n";
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

std::string writeTorchJob(const ExportedJob& job, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(dir + ": cannot create the folder: " + ec.message());
  const std::string py = (std::filesystem::path(dir) / "train.py").string();
  util::writeFileAtomic(py, job.trainPy);
  util::writeFileAtomic((std::filesystem::path(dir) / "README.md").string(), job.readme);
  std::filesystem::permissions(py, std::filesystem::perms::owner_exec | std::filesystem::perms::group_exec |
                                       std::filesystem::perms::others_exec,
                               std::filesystem::perm_options::add, ec);
  return py;
}

}  // namespace core::bridge
