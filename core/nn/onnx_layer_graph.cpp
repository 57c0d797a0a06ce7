#include "core/nn/onnx_layer_graph.h"

#include <algorithm>
#include <optional>
#include <set>

#include "core/nn/activation.h"
#include "core/nn/onnx_attributes.h"
#include "core/util/error.h"

namespace core::nn {
namespace {

using util::Error;

// Nests deeper than any real network's blocks (Inception-ResNet nests three).
constexpr int kMaxNesting = 64;

// Why the graph does not map onto the engine's layers; caught by onnxLayerGraph.
struct NotMapped {
  std::string why;
};

// One stretch of layers with the file's values for them, in binding order.
struct Seq {
  std::vector<GraphNode> nodes;
  std::vector<float> params, state;
  void append(Seq&& o) {
    for (auto& n : o.nodes) nodes.push_back(std::move(n));
    params.insert(params.end(), o.params.begin(), o.params.end());
    state.insert(state.end(), o.state.begin(), o.state.end());
  }
};

// A walk from a tensor: the layers it passed and where it stopped (the graph's output, or the
// node that merges it with other branches).
struct Walk {
  Seq seq;
  std::string end;
  int merge = -1;
};

bool isPlumbing(const std::string& op) {
  return op == "Constant" || op == "Shape" || op == "Size" || op == "ConstantOfShape";
}

class Mapper {
 public:
  explicit Mapper(const OnnxLayerGraphInput& in) : m_in(in), m_g(*in.graph) {
    for (const auto& t : m_g.initializer()) m_tensors[t.name()] = &t;
    std::set<std::string> activations{in.input};
    for (int i = 0; i < m_g.node_size(); ++i) {
      const onnx::NodeProto& node = m_g.node(i);
      if (node.op_type() == "Identity" && node.input_size() == 1 && isWeight(node.input(0))) {
        m_alias[node.output(0)] = source(node.input(0));
        continue;
      }
      if (node.op_type() == "Constant" && node.output_size() == 1)
        if (const onnx::AttributeProto* a = onnxAttribute(node, "value"); a && a->has_t()) m_constants[node.output(0)] = &a->t();
      if (isPlumbing(node.op_type())) continue;
      std::set<std::string> read;
      for (const auto& t : node.input())
        if (activations.count(t)) read.insert(t);
      if (read.empty()) continue;
      m_activationInputs[i] = static_cast<int>(read.size());
      for (const auto& t : read) m_consumers[t].push_back(i);
      for (const auto& t : node.output())
        if (!t.empty()) activations.insert(t);
    }
  }

  OnnxLayerGraph run() {
    OnnxLayerGraph out;
    try {
      Walk w = walk(m_in.input, 0);
      if (w.merge >= 0) throw NotMapped{label(w.merge) + " merges tensors that did not fork from one tensor"};
      out.graph = std::move(w.seq.nodes);
      if (out.graph.empty()) throw NotMapped{"the graph has no layers"};
      out.weights.params = std::move(w.seq.params);
      out.weights.state = std::move(w.seq.state);
      out.weightsMissing = m_weightsMissing;
    } catch (const NotMapped& e) {
      out = {};
      out.notTrainable = e.why;
    }
    return out;
  }

 private:
  const OnnxLayerGraphInput& m_in;
  const onnx::GraphProto& m_g;
  std::map<std::string, const onnx::TensorProto*> m_tensors;
  std::map<std::string, std::string> m_alias;  // Identity of a weight -> the weight
  std::map<std::string, const onnx::TensorProto*> m_constants;  // Constant nodes' outputs
  std::map<std::string, std::vector<int>> m_consumers;
  std::map<int, int> m_activationInputs;
  std::string m_weightsMissing;

  std::string source(const std::string& t) const {
    const auto it = m_alias.find(t);
    return it == m_alias.end() ? t : it->second;
  }
  bool isWeight(const std::string& t) const { return m_in.initializers->count(source(t)) > 0; }
  const OnnxTensor* weight(const std::string& t) const {
    const auto it = m_in.initializers->find(source(t));
    return it == m_in.initializers->end() ? nullptr : &it->second;
  }
  const std::vector<std::int64_t>* dims(const std::string& t) const {
    const auto it = m_in.shapes->find(t);
    return it == m_in.shapes->end() ? nullptr : &it->second;
  }
  Shape shape(const std::string& t) const {
    const auto* d = dims(t);
    return d ? perSampleShape(*d) : Shape{};
  }
  std::string label(int i) const {
    const onnx::NodeProto& n = m_g.node(i);
    return "node '" + (n.name().empty() ? "#" + std::to_string(i) : n.name()) + "' (op " + n.op_type() + ")";
  }
  std::string layerName(int i, const char* suffix = "") const {
    const onnx::NodeProto& n = m_g.node(i);
    return (n.name().empty() ? n.op_type() + "_" + std::to_string(i) : n.name()) + suffix;
  }

  // A weight's values as floats (the file's layout), or zeros with m_weightsMissing set.
  std::vector<float> values(const std::string& t) {
    const OnnxTensor* w = weight(t);
    const auto n = static_cast<std::size_t>(w ? w->elements : 0);
    const auto it = w ? m_tensors.find(w->name) : m_tensors.end();
    std::optional<std::vector<float>> v = it == m_tensors.end() ? std::nullopt : tensorFloats(*it->second, n);
    if (v) return *v;
    if (m_weightsMissing.empty())
      m_weightsMissing = "weight '" + t + "' is " +
                         (it == m_tensors.end() ? std::string("not a tensor the file holds")
                                                : "stored as ONNX type " + std::to_string(it->second->data_type()) +
                                                      " (the engine reads float and double weights)");
    return std::vector<float>(n);
  }

  // A float scalar held by an initializer or a Constant node.
  std::optional<float> scalar(const std::string& t) const {
    const OnnxTensor* w = weight(t);
    auto it = w ? m_tensors.find(w->name) : m_constants.find(t);
    if (it == (w ? m_tensors.end() : m_constants.end())) return std::nullopt;
    const auto v = tensorFloats(*it->second, 1);
    return v ? std::optional<float>(v->front()) : std::nullopt;
  }

  [[noreturn]] void notMapped(int i, const std::string& why) const { throw NotMapped{label(i) + ": " + why}; }

  std::string activationInput(int i) const {
    for (const auto& t : m_g.node(i).input())
      if (!t.empty() && !isWeight(t)) return t;
    return {};
  }

  GraphNode layer(int i, const char* op, const char* suffix = "") const {
    GraphNode n;
    n.op = op;
    n.name = layerName(i, suffix);
    n.in = shape(activationInput(i));
    n.out = shape(m_g.node(i).output(0));
    return n;
  }

  // Kernel, strides and pads of a 2-D window (dilation 1, explicit pads); false otherwise.
  bool window(const onnx::NodeProto& node, GraphNode& n) const {
    const auto k = attrInts(node, "kernel_shape"), s = attrInts(node, "strides"), p = attrInts(node, "pads"),
               d = attrInts(node, "dilations");
    const std::string autoPad = attrString(node, "auto_pad");
    if (k.size() != 2 || !(s.empty() || s.size() == 2) || !(p.empty() || p.size() == 4)) return false;
    if (!(d.empty() || (d.size() == 2 && d[0] == 1 && d[1] == 1)) || !(autoPad.empty() || autoPad == "NOTSET")) return false;
    n.set("kernel_h", static_cast<double>(k[0])).set("kernel_w", static_cast<double>(k[1]));
    n.set("stride_h", s.empty() ? 1.0 : static_cast<double>(s[0])).set("stride_w", s.empty() ? 1.0 : static_cast<double>(s[1]));
    // ONNX: [top, left, bottom, right]
    n.set("pad_top", p.empty() ? 0.0 : static_cast<double>(p[0])).set("pad_bottom", p.empty() ? 0.0 : static_cast<double>(p[2]));
    n.set("pad_left", p.empty() ? 0.0 : static_cast<double>(p[1])).set("pad_right", p.empty() ? 0.0 : static_cast<double>(p[3]));
    return true;
  }

  // Appends node i's layer(s) and returns the tensor it writes.
  std::string step(int i, Seq& seq) {
    const onnx::NodeProto& node = m_g.node(i);
    const std::string& op = node.op_type();
    const std::string out = node.output_size() > 0 ? node.output(0) : std::string();
    const bool last = out == m_in.output;
    if (op == "Identity") return out;
    if ((op == "Softmax" || op == "LogSoftmax") && last) return out;  // the engine's loss head is the softmax
    Activation a = Activation::Linear;
    if (op == "Relu") a = Activation::ReLU;
    else if (op == "Tanh") a = Activation::Tanh;
    else if (op == "Sigmoid") a = Activation::Sigmoid;
    else if (op == "Elu" && attrFloat(node, "alpha", 1.0f) == 1.0f) a = Activation::ELU;
    if (a != Activation::Linear) {
      GraphNode n = layer(i, "activation");
      n.set("activation", activationName(a));
      seq.nodes.push_back(std::move(n));
      return out;
    }
    if (op == "Conv") return conv(i, seq);
    if (op == "Gemm" || op == "MatMul") return dense(i, seq);
    if (op == "MaxPool" || op == "AveragePool") {
      GraphNode n = layer(i, op == "MaxPool" ? "max_pool2d" : "avg_pool2d");
      if (!window(node, n) || attrInt(node, "ceil_mode", 0) != 0 || node.output_size() != 1)
        notMapped(i, "a window with dilation, ceil_mode, auto_pad or indices, which the engine's pooling lacks");
      const bool padded = n.number("pad_top") + n.number("pad_bottom") + n.number("pad_left") + n.number("pad_right") > 0;
      if (op == "AveragePool" && padded && attrInt(node, "count_include_pad", 0) != 0)
        notMapped(i, "count_include_pad=1 (the engine's average leaves padding out)");
      seq.nodes.push_back(std::move(n));
      return out;
    }
    if (op == "GlobalAveragePool") {
      GraphNode n = layer(i, "global_avg_pool");
      n.set("over", "pixels");
      seq.nodes.push_back(std::move(n));
      return out;
    }
    if (op == "BatchNormalization") return batchNorm(i, seq);
    if (op == "LayerNormalization") return layerNorm(i, seq);
    if (op == "Flatten" || op == "Reshape" || op == "Squeeze") {
      const auto* d = dims(out);
      if (!d || d->size() != 2 || (op == "Flatten" && attrInt(node, "axis", 1) != 1))
        notMapped(i, "a reshape to other than (batch, features)");
      seq.nodes.push_back(layer(i, "flatten"));
      return out;
    }
    if (op == "Dropout") {
      GraphNode n = layer(i, "dropout");
      double rate = attrFloat(node, "ratio", 0.5f);
      if (node.input_size() > 1 && !node.input(1).empty()) {
        const auto r = scalar(node.input(1));
        if (!r) notMapped(i, "a ratio that is not a constant");
        rate = *r;
      }
      n.set("rate", rate);
      seq.nodes.push_back(std::move(n));
      return out;
    }
    notMapped(i, "no engine layer for this op" + std::string(op == "Add" || op == "Concat" ? " here (its inputs are not "
                                                                                         "two branches of one fork)"
                                                                                       : ""));
  }

  std::string conv(int i, Seq& seq) {
    const onnx::NodeProto& node = m_g.node(i);
    const std::string out = node.output(0);
    const OnnxTensor* w = node.input_size() > 1 ? weight(node.input(1)) : nullptr;
    const bool hasBias = node.input_size() > 2 && !node.input(2).empty();
    const OnnxTensor* b = hasBias ? weight(node.input(2)) : nullptr;
    const Shape in = shape(node.input(0));
    if (!w || w->dims.size() != 4 || (hasBias && !b)) notMapped(i, "a weight that is not a 4-D constant");
    if (b && b->elements != w->dims[0]) notMapped(i, "a bias that is not one constant per filter");
    const std::int64_t filters = w->dims[0], perGroup = w->dims[1], taps = w->dims[2] * w->dims[3];
    const std::int64_t groups = attrInt(node, "group", 1);
    const bool depthwise = groups > 1 && groups == in.c && filters == in.c && perGroup == 1;
    if (groups != 1 && !depthwise) notMapped(i, "group=" + std::to_string(groups) + " (the engine has plain and depthwise convolutions)");
    GraphNode n = layer(i, depthwise ? "depthwise_conv2d" : "conv2d");
    if (!window(node, n)) notMapped(i, "dilation or auto_pad, which the engine's convolution lacks");
    if (n.number("kernel_h") != static_cast<double>(w->dims[2]) || n.number("kernel_w") != static_cast<double>(w->dims[3]))
      notMapped(i, "kernel_shape differs from the weight's");
    // torch's eval-mode export folded a batch norm into this convolution (OnnxCoster): train it as
    // convolution and batch norm again, starting from the folded values (scale 1, shift = bias).
    const bool unfold = m_in.unfoldTorchBatchNorm && torchFoldedConvolution(node, w, b);
    const bool bias = hasBias && !unfold;
    n.set("bias", bias ? 1 : 0).set("init", "torch_default");
    if (!depthwise) n.set("filters", static_cast<double>(filters)).set("activation", "linear");
    const std::vector<float> wv = values(node.input(1));
    if (depthwise) {
      seq.params.insert(seq.params.end(), wv.begin(), wv.end());  // (C, 1, kh, kw): the engine's layout
    } else {
      // ONNX (f, c, ky, kx) row-major; the engine's W is filters x patch column-major, patch = (c, ky, kx).
      const std::int64_t patch = perGroup * taps;
      std::vector<float> t(wv.size());
      for (std::int64_t f = 0; f < filters; ++f)
        for (std::int64_t p = 0; p < patch; ++p) t[static_cast<std::size_t>(f + filters * p)] = wv[static_cast<std::size_t>(f * patch + p)];
      seq.params.insert(seq.params.end(), t.begin(), t.end());
    }
    std::vector<float> bv = hasBias ? values(node.input(2)) : std::vector<float>{};
    if (bias) seq.params.insert(seq.params.end(), bv.begin(), bv.end());
    seq.nodes.push_back(std::move(n));
    if (unfold) {
      // The norm starts as the identity around the folded weights: right for inference, but a
      // training step normalises by the batch and loses the per-channel scales folded in.
      if (m_weightsMissing.empty())
        m_weightsMissing = "an eval-mode export folds its batch norms into the convolutions (" + label(i) +
                           "): to fine-tune from the file's weights, export with training=torch.onnx.TrainingMode.TRAINING";
      constexpr float kEpsilon = 1e-5f;  // PyTorch's BatchNorm2d defaults
      GraphNode bn = layer(i, "batch_norm", "/batch_norm");
      bn.in = bn.out;
      bn.set("epsilon", kEpsilon).set("keep", 0.9).set("scale", 1).set("center", 1);
      seq.params.insert(seq.params.end(), static_cast<std::size_t>(filters), 1.0f);
      seq.params.insert(seq.params.end(), bv.begin(), bv.end());
      // mean 0 and variance 1 - epsilon: the norm starts as the identity the folded graph computes
      seq.state.insert(seq.state.end(), static_cast<std::size_t>(filters), 0.0f);
      seq.state.insert(seq.state.end(), static_cast<std::size_t>(filters), 1.0f - kEpsilon);
      seq.nodes.push_back(std::move(bn));
    }
    return out;
  }

  std::string dense(int i, Seq& seq) {
    const onnx::NodeProto& node = m_g.node(i);
    const std::string out = node.output(0);
    const bool gemm = node.op_type() == "Gemm";
    const auto* x = dims(node.input(0));
    const auto* y = dims(out);
    const OnnxTensor* w = node.input_size() > 1 ? weight(node.input(1)) : nullptr;
    if (!x || x->size() != 2 || !y || y->size() != 2 || !w || w->dims.size() != 2)
      notMapped(i, "not a (batch, features) input times a constant matrix");
    if (gemm && (attrInt(node, "transA", 0) != 0 || attrFloat(node, "alpha", 1) != 1 || attrFloat(node, "beta", 1) != 1))
      notMapped(i, "transA, alpha or beta, which the engine's dense layer lacks");
    const bool transB = gemm && attrInt(node, "transB", 0) != 0;
    const std::int64_t k = (*x)[1], units = (*y)[1];
    const bool hasBias = gemm && node.input_size() > 2 && !node.input(2).empty();
    const OnnxTensor* b = hasBias ? weight(node.input(2)) : nullptr;
    if (hasBias && (!b || b->elements != units)) notMapped(i, "a bias that is not one constant per unit");
    GraphNode n = layer(i, "linear");
    n.set("units", static_cast<double>(units)).set("bias", hasBias ? 1 : 0).set("activation", "linear").set("init", "torch_default");
    const std::vector<float> wv = values(node.input(1));
    // The engine's W is units x inputs column-major: w[u + units * i]. B is (inputs, units)
    // row-major, the same memory; transB's (units, inputs) is its transpose.
    if (!transB) {
      seq.params.insert(seq.params.end(), wv.begin(), wv.end());
    } else {
      std::vector<float> t(wv.size());
      for (std::int64_t u = 0; u < units; ++u)
        for (std::int64_t in = 0; in < k; ++in) t[static_cast<std::size_t>(u + units * in)] = wv[static_cast<std::size_t>(u * k + in)];
      seq.params.insert(seq.params.end(), t.begin(), t.end());
    }
    if (hasBias) {
      const std::vector<float> bv = values(node.input(2));
      seq.params.insert(seq.params.end(), bv.begin(), bv.end());
    }
    seq.nodes.push_back(std::move(n));
    return out;
  }

  std::string batchNorm(int i, Seq& seq) {
    const onnx::NodeProto& node = m_g.node(i);
    const Shape in = shape(node.input(0));
    for (int k = 1; k <= 4; ++k) {
      const OnnxTensor* t = k < node.input_size() ? weight(node.input(k)) : nullptr;
      if (!t || t->elements != in.c) notMapped(i, "scale, shift, mean and variance must be constants of one value per channel");
    }
    GraphNode n = layer(i, "batch_norm");
    n.set("epsilon", attrFloat(node, "epsilon", 1e-5f)).set("keep", attrFloat(node, "momentum", 0.9f)).set("scale", 1).set("center", 1);
    for (int k = 1; k <= 2; ++k) {
      const auto v = values(node.input(k));
      seq.params.insert(seq.params.end(), v.begin(), v.end());
    }
    for (int k = 3; k <= 4; ++k) {
      const auto v = values(node.input(k));
      seq.state.insert(seq.state.end(), v.begin(), v.end());
    }
    seq.nodes.push_back(std::move(n));
    return node.output(0);
  }

  // Over the features of a (batch, features) tensor: the engine's layer norm of one step.
  std::string layerNorm(int i, Seq& seq) {
    const onnx::NodeProto& node = m_g.node(i);
    const auto* x = dims(node.input(0));
    const std::int64_t axis = attrInt(node, "axis", -1);
    if (!x || x->size() != 2 || (axis != -1 && axis != 1)) notMapped(i, "normalises other than the features of (batch, features)");
    const std::int64_t features = (*x)[1];
    const OnnxTensor* scale = node.input_size() > 1 ? weight(node.input(1)) : nullptr;
    const OnnxTensor* bias = node.input_size() > 2 && !node.input(2).empty() ? weight(node.input(2)) : nullptr;
    if (!scale || scale->elements != features || (node.input_size() > 2 && !node.input(2).empty() && (!bias || bias->elements != features)))
      notMapped(i, "scale and bias must be constants of one value per feature");
    GraphNode n = layer(i, "layer_norm");
    n.set("epsilon", attrFloat(node, "epsilon", 1e-5f));
    const auto gain = values(node.input(1));
    seq.params.insert(seq.params.end(), gain.begin(), gain.end());
    const auto shift = bias ? values(node.input(2)) : std::vector<float>(static_cast<std::size_t>(features), 0.0f);
    seq.params.insert(seq.params.end(), shift.begin(), shift.end());
    seq.nodes.push_back(std::move(n));
    return node.output(0);
  }

  const std::vector<int>& consumers(const std::string& t) const {
    static const std::vector<int> none;
    const auto it = m_consumers.find(t);
    return it == m_consumers.end() ? none : it->second;
  }

  Walk walk(std::string t, int depth) {
    if (depth > kMaxNesting) throw NotMapped{"blocks nest more than " + std::to_string(kMaxNesting) + " deep"};
    Walk w;
    while (true) {
      if (t == m_in.output) {
        w.end = t;
        return w;
      }
      const std::vector<int>& cons = consumers(t);
      if (cons.empty()) throw NotMapped{"tensor '" + t + "' is read by no node and is not the graph's output"};
      if (cons.size() == 1) {
        if (m_activationInputs.at(cons[0]) > 1) {
          w.end = t;
          w.merge = cons[0];
          return w;
        }
        t = step(cons[0], w.seq);
        continue;
      }
      std::vector<Walk> branches;
      for (const int c : cons) {
        Walk b;
        if (m_activationInputs.at(c) > 1) {
          b.end = t;
          b.merge = c;
        } else {
          const std::string next = step(c, b.seq);
          Walk rest = walk(next, depth + 1);
          b.seq.append(std::move(rest.seq));
          b.end = rest.end;
          b.merge = rest.merge;
        }
        branches.push_back(std::move(b));
      }
      t = merge(t, branches, w.seq);
    }
  }

  // The node where `branches` (forked from `from`) meet, as one residual or concat layer.
  std::string merge(const std::string& from, std::vector<Walk>& branches, Seq& seq) {
    const int m = branches[0].merge;
    for (const Walk& b : branches)
      if (b.merge < 0 || b.merge != m)
        throw NotMapped{"the branches from tensor '" + from + "' do not meet at one Add or Concat" +
                        (b.merge >= 0 ? " (" + label(b.merge) + " and " + (m >= 0 ? label(m) : "the output") + ")" : "")};
    const onnx::NodeProto& node = m_g.node(m);
    std::vector<std::string> inputs;
    for (const auto& t : node.input())
      if (!t.empty()) inputs.push_back(t);
    // Each input of the merge is exactly one branch's end.
    std::vector<Walk*> ordered;
    for (const std::string& t : inputs) {
      Walk* found = nullptr;
      for (Walk& b : branches)
        if (b.end == t && std::find(ordered.begin(), ordered.end(), &b) == ordered.end()) {
          found = &b;
          break;
        }
      if (!found) notMapped(m, "reads '" + t + "', which is not a branch of the fork at '" + from + "'");
      ordered.push_back(found);
    }
    if (ordered.size() != branches.size()) notMapped(m, "does not merge every branch of the fork at '" + from + "'");
    GraphNode n;
    n.name = layerName(m);
    n.in = shape(from);
    n.out = shape(node.output(0));
    if (node.op_type() == "Add" && ordered.size() == 2) {
      // The branch with more layers is the main one; the other the shortcut (identity when empty).
      if (ordered[1]->seq.nodes.size() > ordered[0]->seq.nodes.size()) std::swap(ordered[0], ordered[1]);
      if (ordered[0]->seq.nodes.empty()) notMapped(m, "adds a tensor to itself");
      n.op = "residual";
      n.set("activation", "linear");
    } else if (node.op_type() == "Concat") {
      const auto* d = dims(node.output(0));
      const std::int64_t axis = attrInt(node, "axis", 1);
      if (!d || d->size() != 4 || (axis != 1 && axis != -3)) notMapped(m, "concatenates along other than the channels");
      n.op = "concat";
    } else {
      notMapped(m, "merges branches, which the engine does with Add (two branches) or Concat only");
    }
    Seq merged;
    for (Walk* b : ordered) {
      n.branches.push_back(std::move(b->seq.nodes));
      merged.params.insert(merged.params.end(), b->seq.params.begin(), b->seq.params.end());
      merged.state.insert(merged.state.end(), b->seq.state.begin(), b->seq.state.end());
    }
    merged.nodes.push_back(std::move(n));
    seq.append(std::move(merged));
    return node.output(0);
  }
};

}  // namespace

OnnxLayerGraph onnxLayerGraph(const OnnxLayerGraphInput& in) { return Mapper(in).run(); }

}  // namespace core::nn
