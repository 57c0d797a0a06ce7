#include "core/nn/layer_graph.h"

#include <algorithm>

#include "core/nn/batch_norm.h"
#include "core/nn/composite.h"
#include "core/nn/conv2d.h"
#include "core/nn/dense.h"
#include "core/nn/depthwise_conv2d.h"
#include "core/nn/dropout.h"
#include "core/nn/embedding.h"
#include "core/nn/lstm.h"
#include "core/nn/pooling.h"
#include "core/nn/shape_layers.h"
#include "core/nn/transformer_layers.h"

#include "core/util/error.h"

namespace core::nn {

GraphNode& GraphNode::set(const std::string& key, double value) {
  numbers.emplace_back(key, value);
  return *this;
}

GraphNode& GraphNode::set(const std::string& key, const std::string& value) {
  words.emplace_back(key, value);
  return *this;
}

bool GraphNode::has(const std::string& key) const {
  for (const auto& [k, v] : numbers)
    if (k == key) return true;
  for (const auto& [k, v] : words)
    if (k == key) return true;
  return false;
}

double GraphNode::number(const std::string& key) const {
  for (const auto& [k, v] : numbers)
    if (k == key) return v;
  throw util::Error("layer '" + name + "' (" + op + "): no number '" + key + "'");
}

const std::string& GraphNode::word(const std::string& key) const {
  for (const auto& [k, v] : words)
    if (k == key) return v;
  throw util::Error("layer '" + name + "' (" + op + "): no word '" + key + "'");
}

// --- every layer's description ------------------------------------------------------------------
// Kept together so the graph's vocabulary reads in one place; each is a member of its layer.

namespace {

// Rows/columns of padding before and after, as the layer computes them (Keras' "same" puts the
// odd one after).
void setWindow(GraphNode& n, Shape in, int kh, int kw, int sh, int sw, Padding pad) {
  auto axis = [&](int size, int k, int s, int explicitPad, const char* before, const char* after) {
    const WindowAxis a = windowAxis(size, k, s, pad.mode, explicitPad);
    int extra = 0;
    if (pad.mode == PaddingMode::Explicit) extra = explicitPad;
    if (pad.mode == PaddingMode::Same) extra = std::max(0, (a.out - 1) * s + k - size - a.padBefore);
    n.set(before, a.padBefore);
    n.set(after, extra);
  };
  n.set("kernel_h", kh).set("kernel_w", kw).set("stride_h", sh).set("stride_w", sw);
  // The rule, so the window pads right on another input size; the pads, as this input gets them.
  n.set("padding", pad.mode == PaddingMode::Same ? "same" : pad.mode == PaddingMode::Valid ? "valid" : "explicit");
  axis(in.h, kh, sh, pad.h, "pad_top", "pad_bottom");
  axis(in.w, kw, sw, pad.w, "pad_left", "pad_right");
}

std::vector<GraphNode> childGraphs(const Sequential& s) {
  std::vector<GraphNode> out;
  for (std::size_t i = 0; i < s.size(); ++i) out.push_back(s.child(i).graph());
  return out;
}

}  // namespace

void Dense::describe(GraphNode& n) const {
  n.op = "linear";
  n.set("units", m_o.units).set("bias", m_o.bias ? 1 : 0).set("per_token", m_o.perToken ? 1 : 0);
  n.set("init_scale", m_o.initScale);
  n.set("activation", activationName(m_o.activation)).set("init", initName(m_o.init));
}

void Conv2D::describe(GraphNode& n) const {
  n.op = "conv2d";
  n.set("filters", m_o.filters).set("bias", m_o.bias ? 1 : 0);
  setWindow(n, inShape(), m_o.kernelH, m_o.kernelW, m_o.strideH, m_o.strideW, m_o.padding);
  n.set("activation", activationName(m_o.activation)).set("init", initName(m_o.init));
}

void DepthwiseConv2D::describe(GraphNode& n) const {
  n.op = "depthwise_conv2d";
  n.set("bias", m_o.bias ? 1 : 0);
  setWindow(n, inShape(), m_o.kernelH, m_o.kernelW, m_o.strideH, m_o.strideW, m_o.padding);
  n.set("init", initName(m_o.init));
}

void BatchNorm::describe(GraphNode& n) const {
  n.op = "batch_norm";
  // The engine keeps `momentum` of the running statistics per batch; PyTorch's momentum is the
  // share of the new batch.
  n.set("epsilon", m_o.epsilon).set("keep", m_o.momentum).set("scale", m_o.scale ? 1 : 0).set("center", m_o.center ? 1 : 0);
}

void ActivationLayer::describe(GraphNode& n) const {
  n.op = "activation";
  n.set("activation", activationName(m_act));
}

void Dropout::describe(GraphNode& n) const {
  n.op = "dropout";
  n.set("rate", m_rate);
}

void MaxPool2D::describe(GraphNode& n) const {
  n.op = "max_pool2d";
  setWindow(n, inShape(), m_o.poolH, m_o.poolW, m_o.strideH > 0 ? m_o.strideH : m_o.poolH,
            m_o.strideW > 0 ? m_o.strideW : m_o.poolW, m_o.padding);
}

void AvgPool2D::describe(GraphNode& n) const {
  n.op = "avg_pool2d";  // padding is left out of the average (Keras)
  setWindow(n, inShape(), m_o.poolH, m_o.poolW, m_o.strideH > 0 ? m_o.strideH : m_o.poolH,
            m_o.strideW > 0 ? m_o.strideW : m_o.poolW, m_o.padding);
}

void GlobalAvgPool::describe(GraphNode& n) const {
  n.op = "global_avg_pool";
  n.set("over", m_over == Over::Steps ? "steps" : "pixels");
}

void Flatten::describe(GraphNode& n) const { n.op = "flatten"; }

void OneHot::describe(GraphNode& n) const {
  n.op = "one_hot";
  n.set("vocabulary", m_vocabulary);
}

void PadShortcut::describe(GraphNode& n) const {
  n.op = "pad_shortcut";
  n.set("out_channels", m_outChannels);
}

void LSTM::describe(GraphNode& n) const {
  n.op = "lstm";
  n.set("units", m_units).set("directions", m_directions);
}

void Embedding::describe(GraphNode& n) const {
  n.op = "embedding";
  n.set("vocabulary", m_vocabulary).set("dim", m_dim).set("init", m_gptInit ? "gpt_normal" : "uniform_0.05");
}

void LayerNorm::describe(GraphNode& n) const {
  n.op = "layer_norm";
  n.set("epsilon", m_eps);
}

void Gelu::describe(GraphNode& n) const { n.op = "gelu"; }

void PositionEmbedding::describe(GraphNode& n) const { n.op = "position_embedding"; }

void SelfAttention::describe(GraphNode& n) const {
  n.op = "self_attention";
  n.set("heads", m_heads).set("causal", m_causal ? 1 : 0);
}

void Patchify::describe(GraphNode& n) const {
  n.op = "patchify";
  n.set("patch", m_patch);
}

void ClassToken::describe(GraphNode& n) const { n.op = "class_token"; }

void TakeToken::describe(GraphNode& n) const {
  n.op = "take_token";
  n.set("step", m_step);
}

void Sequential::describe(GraphNode& n) const {
  n.op = "sequential";
  n.branches.push_back(childGraphs(*this));
}

void Residual::describe(GraphNode& n) const {
  n.op = "residual";
  n.set("activation", activationName(m_after));
  n.branches.push_back(childGraphs(m_main));
  n.branches.push_back(childGraphs(m_shortcut));
}

void Concat::describe(GraphNode& n) const {
  n.op = "concat";
  for (const auto& b : m_branches) n.branches.push_back(childGraphs(*b));
}

}  // namespace core::nn
