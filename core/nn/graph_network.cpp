#include "core/nn/graph_network.h"

#include <cmath>
#include <limits>

#include "core/nn/batch_norm.h"
#include "core/nn/composite.h"
#include "core/nn/conv2d.h"
#include "core/nn/dense.h"
#include "core/nn/depthwise_conv2d.h"
#include "core/nn/dropout.h"
#include "core/nn/embedding.h"
#include "core/nn/lstm.h"
#include "core/nn/network.h"
#include "core/nn/pooling.h"
#include "core/nn/shape_layers.h"
#include "core/nn/transformer_layers.h"
#include "core/util/error.h"

namespace core::nn {
namespace {

using util::Error;

// Far past any real layer (a 16 M-unit layer; fastText's 1.2 M-row embedding x 200), short of
// the products that would overflow the layers' counts.
constexpr int kMaxWidth = 1 << 24;
// Windows: far past any real kernel (AlexNet's 11, a patch embedding's 32), short of a patch
// table too large to build.
constexpr int kMaxKernel = 1 << 10;
constexpr int kMaxVocabulary = 1 << 28;

// Reads one node's keys, each checked, with the node named in every refusal.
class NodeReader {
 public:
  explicit NodeReader(const GraphNode& n) : m_n(n) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw Error("layer " + (m_n.name.empty() ? "" : "'" + m_n.name + "' ") + "(" + m_n.op + "): " + what);
  }
  double number(const std::string& key) const {
    for (const auto& [k, w] : m_n.words)
      if (k == key) fail(key + " is '" + w + "', not a number");
    if (!m_n.has(key)) fail("no " + key);
    return m_n.number(key);
  }
  // A whole number in [least, most].
  int count(const std::string& key, int least, int most = std::numeric_limits<int>::max()) const {
    const double v = number(key);
    if (!std::isfinite(v) || v != std::floor(v) || v < least || v > most)
      fail(key + " is " + std::to_string(v) + " (a whole number from " + std::to_string(least) + " to " +
           std::to_string(most) + ")");
    return static_cast<int>(v);
  }
  int countOr(const std::string& key, int fallback, int least, int most = std::numeric_limits<int>::max()) const {
    return m_n.has(key) ? count(key, least, most) : fallback;
  }
  bool flag(const std::string& key, bool fallback) const { return m_n.has(key) ? count(key, 0, 1) == 1 : fallback; }
  float real(const std::string& key, double least, double most, double fallback) const {
    const double v = m_n.has(key) ? number(key) : fallback;
    if (!std::isfinite(v) || v < least || v > most)
      fail(key + " is " + std::to_string(v) + " (from " + std::to_string(least) + " to " + std::to_string(most) + ")");
    return static_cast<float>(v);
  }
  Activation activation(const std::string& key) const {
    if (!m_n.has(key)) return Activation::Linear;
    const std::string& w = m_n.word(key);
    for (const Activation a : {Activation::Linear, Activation::ReLU, Activation::ELU, Activation::Tanh, Activation::Sigmoid})
      if (w == activationName(a)) return a;
    fail(key + " '" + w + "' is not one of linear, relu, elu, tanh, sigmoid");
  }
  Init init(Init fallback) const {
    if (!m_n.has("init")) return fallback;
    const std::string& w = m_n.word("init");
    for (const Init i : {Init::GlorotUniform, Init::HeNormal, Init::TorchDefault, Init::GptNormal})
      if (w == initName(i)) return i;
    fail("init '" + w + "' is not one of glorot_uniform, he_normal, torch_default, gpt_normal");
  }
  // The window's padding as the layers express it: "same" (Keras: the output is the input over
  // the stride, the odd row after) or "valid" (none) by name, whatever the input; else from the
  // pads: none, symmetric (PyTorch's) or the odd row after (Keras' "same", read against the
  // node's input).
  Padding padding(int kh, int kw, int sh, int sw) const {
    const std::string rule = m_n.has("padding") ? m_n.word("padding") : "explicit";
    if (rule != "same" && rule != "valid" && rule != "explicit") fail("padding '" + rule + "' is not same, valid or explicit");
    if (rule == "same") return Padding::same();
    if (rule == "valid") return Padding::valid();
    const int top = countOr("pad_top", 0, 0, 1 << 16), bottom = countOr("pad_bottom", top, 0, 1 << 16);
    const int left = countOr("pad_left", 0, 0, 1 << 16), right = countOr("pad_right", left, 0, 1 << 16);
    if (top == bottom && left == right) return Padding::explicitPad(top, left);
    auto same = [&](int size, int k, int s, int before, int after) {
      const WindowAxis a = windowAxis(size, k, s, PaddingMode::Same, 0);
      return a.padBefore == before && std::max(0, (a.out - 1) * s + k - size - a.padBefore) == after;
    };
    if (m_n.in.h > 0 && same(m_n.in.h, kh, sh, top, bottom) && same(m_n.in.w, kw, sw, left, right)) return Padding::same();
    const std::string pads = "padding top " + std::to_string(top) + ", bottom " + std::to_string(bottom) + ", left " +
                             std::to_string(left) + ", right " + std::to_string(right);
    if (m_n.in.h == 0) fail(pads + ": the engine's windows pad both sides alike (for Keras' rule, \"padding\": \"same\")");
    fail(pads + " on a " + std::to_string(m_n.in.h) + "x" + std::to_string(m_n.in.w) +
         " input: the engine's windows pad both sides alike, or the odd row after");
  }
  // A convolution's stride defaults to 1, a pool's to its size (Keras, PyTorch).
  void window(int& kh, int& kw, int& sh, int& sw, bool pool = false) const {
    kh = count("kernel_h", 1, kMaxKernel);
    kw = count("kernel_w", 1, kMaxKernel);
    sh = countOr("stride_h", pool ? kh : 1, 1, kMaxKernel);
    sw = countOr("stride_w", pool ? kw : 1, 1, kMaxKernel);
  }
  const std::vector<GraphNode>& branch(std::size_t i) const {
    if (i >= m_n.branches.size())
      fail("has " + std::to_string(m_n.branches.size()) + " branches, needs at least " + std::to_string(i + 1));
    return m_n.branches[i];
  }

 private:
  const GraphNode& m_n;
};

void addAll(Sequential& seq, const std::vector<GraphNode>& nodes) {
  for (const GraphNode& n : nodes) seq.add(layerFromGraph(n));
}

}  // namespace

std::unique_ptr<Layer> layerFromGraph(const GraphNode& n) {
  const NodeReader r(n);
  const std::string& op = n.op;
  const std::string& name = n.name;
  if (!n.branches.empty() && op != "sequential" && op != "residual" && op != "concat")
    r.fail("has branches, which only sequential, residual and concat layers take");
  if (op == "linear") {
    DenseOptions o;
    o.units = r.count("units", 1, kMaxWidth);
    o.bias = r.flag("bias", true);
    o.perToken = r.flag("per_token", false);
    o.initScale = r.real("init_scale", 0, 1e6, 1.0);
    o.activation = r.activation("activation");
    o.init = r.init(Init::GlorotUniform);
    return std::make_unique<Dense>(o, name);
  }
  if (op == "conv2d") {
    Conv2DOptions o;
    o.filters = r.count("filters", 1, kMaxWidth);
    r.window(o.kernelH, o.kernelW, o.strideH, o.strideW);
    o.padding = r.padding(o.kernelH, o.kernelW, o.strideH, o.strideW);
    o.bias = r.flag("bias", true);
    o.activation = r.activation("activation");
    o.init = r.init(Init::GlorotUniform);
    return std::make_unique<Conv2D>(o, name);
  }
  if (op == "depthwise_conv2d") {
    DepthwiseConv2DOptions o;
    r.window(o.kernelH, o.kernelW, o.strideH, o.strideW);
    o.padding = r.padding(o.kernelH, o.kernelW, o.strideH, o.strideW);
    o.bias = r.flag("bias", false);
    o.init = r.init(Init::GlorotUniform);
    return std::make_unique<DepthwiseConv2D>(o, name);
  }
  if (op == "max_pool2d" || op == "avg_pool2d") {
    PoolOptions o;
    r.window(o.poolH, o.poolW, o.strideH, o.strideW, true);
    o.padding = r.padding(o.poolH, o.poolW, o.strideH, o.strideW);
    if (op == "max_pool2d") return std::make_unique<MaxPool2D>(o, name);
    return std::make_unique<AvgPool2D>(o, name);
  }
  if (op == "batch_norm") {
    BatchNormOptions o;
    o.epsilon = r.real("epsilon", 0, 1, 1e-3);
    o.momentum = r.real("keep", 0, 1, 0.99);
    o.scale = r.flag("scale", true);
    o.center = r.flag("center", true);
    return std::make_unique<BatchNorm>(o, name);
  }
  if (op == "activation") return std::make_unique<ActivationLayer>(r.activation("activation"), name);
  if (op == "dropout") return std::make_unique<Dropout>(r.real("rate", 0, 0.999, 0.5), name);
  if (op == "flatten") return std::make_unique<Flatten>(name);
  if (op == "global_avg_pool") {
    const std::string over = n.has("over") ? n.word("over") : "pixels";
    if (over != "pixels" && over != "steps") r.fail("over '" + over + "' is not pixels or steps");
    return std::make_unique<GlobalAvgPool>(over == "steps" ? GlobalAvgPool::Over::Steps : GlobalAvgPool::Over::Pixels, name);
  }
  if (op == "one_hot") return std::make_unique<OneHot>(r.count("vocabulary", 1, kMaxVocabulary), name);
  if (op == "pad_shortcut") return std::make_unique<PadShortcut>(r.count("out_channels", 1, kMaxWidth), name);
  if (op == "lstm") return std::make_unique<LSTM>(r.count("units", 1, kMaxWidth), r.countOr("directions", 1, 1, 2), name);
  if (op == "embedding") {
    const std::string init = n.has("init") ? n.word("init") : "uniform_0.05";
    if (init != "uniform_0.05" && init != "gpt_normal") r.fail("init '" + init + "' is not uniform_0.05 or gpt_normal");
    return std::make_unique<Embedding>(r.count("vocabulary", 1, kMaxVocabulary), r.count("dim", 1, kMaxWidth), name, init == "gpt_normal");
  }
  if (op == "layer_norm") return std::make_unique<LayerNorm>(name, r.real("epsilon", 0, 1, 1e-5));
  if (op == "gelu") return std::make_unique<Gelu>(name);
  if (op == "position_embedding") return std::make_unique<PositionEmbedding>(name);
  if (op == "self_attention") return std::make_unique<SelfAttention>(r.count("heads", 1, 1 << 14), r.flag("causal", false), name);
  if (op == "patchify") return std::make_unique<Patchify>(r.count("patch", 1, kMaxKernel), name);
  if (op == "class_token") return std::make_unique<ClassToken>(name);
  if (op == "take_token") return std::make_unique<TakeToken>(r.count("step", 0, 1 << 24), name);
  if (op == "sequential") {
    if (n.branches.size() != 1) r.fail("has " + std::to_string(n.branches.size()) + " branches (a sequential layer runs one)");
    auto s = std::make_unique<Sequential>(name);
    addAll(*s, r.branch(0));
    return s;
  }
  if (op == "residual") {
    auto res = std::make_unique<Residual>(name, r.activation("activation"));
    addAll(res->main(), r.branch(0));
    if (n.branches.size() > 1) addAll(res->shortcut(), n.branches[1]);
    if (n.branches.size() > 2) r.fail("has " + std::to_string(n.branches.size()) + " branches (a main and a shortcut at most)");
    return res;
  }
  if (op == "concat") {
    auto cat = std::make_unique<Concat>(name);
    if (n.branches.empty()) r.fail("has no branches");
    // A branch keeps the name its layers carry ("mixed0/1x1/conv2d_5": branch "1x1").
    const std::string prefix = name + "/";
    for (const auto& b : n.branches) {
      std::string branch;
      if (!b.empty() && !name.empty() && b.front().name.rfind(prefix, 0) == 0) {
        const std::string rest = b.front().name.substr(prefix.size());
        if (const auto slash = rest.find('/'); slash != std::string::npos) branch = rest.substr(0, slash);
      }
      addAll(cat->addBranch(branch), b);
    }
    return cat;
  }
  r.fail("is not a layer the engine has");
}

std::unique_ptr<Network> networkFromGraph(const std::string& id, const std::vector<GraphNode>& graph, const ModelInput& input) {
  if (graph.empty()) throw Error("model '" + id + "': the graph has no layers");
  auto net = std::make_unique<Network>(id, input.shape, input.classes);
  for (const GraphNode& n : graph) net->add(layerFromGraph(n));
  return net;
}

void loadInitialValues(Network& net, const InitialValues& values) {
  if (!net.initialized()) throw Error("model '" + net.id() + "': initial values need an initialised network");
  auto check = [&](const char* what, std::size_t have, Eigen::Index want) {
    if (static_cast<Eigen::Index>(have) != want)
      throw Error("model '" + net.id() + "': " + std::to_string(have) + " initial " + what + " for a network of " +
                  std::to_string(want));
  };
  check("parameters", values.params.size(), net.params().size());
  check("state values", values.state.size(), net.state().size());
  std::copy(values.params.begin(), values.params.end(), net.params().data());
  std::copy(values.state.begin(), values.state.end(), net.state().data());
}

}  // namespace core::nn
