#include "core/nn/onnx_node_cost.h"

#include <algorithm>
#include <climits>

#include "core/nn/activation.h"
#include "core/nn/onnx_attributes.h"
#include "core/util/error.h"

namespace core::nn {
namespace {

// A per-sample tensor larger than this (2^40 elements, 4 TiB in fp32) is no real model's.
constexpr std::int64_t kMaxElements = std::int64_t{1} << 40;

std::int64_t attrProduct(const onnx::NodeProto& node, const char* name) {
  std::int64_t p = 1;
  if (const onnx::AttributeProto* a = onnxAttribute(node, name))
    for (const std::int64_t v : a->ints()) p = v > 0 && p <= kMaxElements / v ? p * v : p;
  return p;
}

bool isFloat(int type) {
  return type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::FLOAT16 || type == onnx::TensorProto::BFLOAT16 ||
         type == onnx::TensorProto::DOUBLE;
}

// The activations the engine has (core/nn/activation.h), by op.
bool engineActivation(const std::string& op, Activation& a) {
  if (op == "Relu") a = Activation::ReLU;
  else if (op == "Elu") a = Activation::ELU;
  else if (op == "Tanh") a = Activation::Tanh;
  else if (op == "Sigmoid") a = Activation::Sigmoid;
  else return false;
  return true;
}

bool isActivationOp(const std::string& op) {
  static const std::set<std::string> kOps = {"Relu", "Elu", "Tanh", "Sigmoid", "LeakyRelu", "PRelu", "Selu", "Celu",
                                             "HardSigmoid", "HardSwish", "Softplus", "Softsign", "Clip", "Gelu",
                                             "Mish", "ThresholdedRelu"};
  return kOps.count(op) > 0;
}

bool isViewOp(const std::string& op) {
  return op == "Flatten" || op == "Reshape" || op == "Squeeze" || op == "Unsqueeze" || op == "Identity";
}

// Graph plumbing that computes nothing per sample (shapes and constants).
bool isPlumbing(const std::string& op) {
  return op == "Constant" || op == "Shape" || op == "Size" || op == "ConstantOfShape";
}

// Float constants that are settings, not weights: Clip's bounds, Resize's and Upsample's
// scales, Pad's fill value; and any scalar (rank 0): a weight has dimensions.
bool isSetting(const std::string& op, int inputIndex, const OnnxTensor& t) {
  if (t.dims.empty()) return true;
  return inputIndex >= 1 && (op == "Clip" || op == "Resize" || op == "Upsample" || op == "Pad");
}

}  // namespace

OnnxCoster::OnnxCoster(const std::map<std::string, OnnxTensor>& initializers,
                       const std::map<std::string, std::vector<std::int64_t>>& shapes, std::set<std::string> used,
                       std::string where)
    : m_inits(initializers), m_shapes(shapes), m_used(std::move(used)), m_where(std::move(where)) {}

const std::vector<std::int64_t>* OnnxCoster::shapeOf(const std::string& tensor) const {
  const auto it = m_shapes.find(tensor);
  return it == m_shapes.end() ? nullptr : &it->second;
}

const OnnxTensor* OnnxCoster::initializer(const std::string& tensor) const {
  if (const auto it = m_inits.find(tensor); it != m_inits.end()) return &it->second;
  const auto it = m_aliases.find(tensor);
  return it == m_aliases.end() ? nullptr : &it->second;
}

std::int64_t OnnxCoster::elementsOf(const std::string& tensor) const {
  const auto* dims = shapeOf(tensor);
  if (!dims) return 0;
  std::int64_t n = 1;
  for (const std::int64_t d : *dims) n *= d;  // checked in add(): each dimension >= 0, product <= 2^40
  return n;
}

bool torchFoldedConvolution(const onnx::NodeProto& conv, const OnnxTensor* weight, const OnnxTensor* bias) {
  if (!weight || !bias || conv.input_size() < 3) return false;
  auto folded = [](const std::string& read, const OnnxTensor& t) {
    return read.rfind("onnx::", 0) == 0 || t.name.rfind("onnx::", 0) == 0;
  };
  return folded(conv.input(1), *weight) && folded(conv.input(2), *bias);
}

Shape perSampleShape(const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> d(dims);
  if (d.size() >= 2) d.erase(d.begin());  // the batch dimension (1)
  while (d.size() > 3) {
    d[d.size() - 2] *= d.back();
    d.pop_back();
  }
  auto at = [&](std::size_t i) { return i < d.size() ? static_cast<int>(std::clamp<std::int64_t>(d[i], 0, INT_MAX)) : 1; };
  return {at(0), at(1), at(2)};
}

Shape OnnxCoster::perSampleShape(const std::string& tensor) const {
  const auto* dims = shapeOf(tensor);
  return dims ? nn::perSampleShape(*dims) : Shape{};
}

void OnnxCoster::add(const onnx::NodeProto& node, std::size_t index) {
  const std::string& op = node.op_type();
  const std::string name = node.name().empty() ? op + "_" + std::to_string(index) : node.name();
  const std::string label = "node '" + name + "' (op " + (node.domain().empty() ? "" : node.domain() + ".") + op + ")";
  // Every output a tensor of known, sane shape.
  for (const auto& out : node.output()) {
    if (out.empty()) continue;
    const auto* dims = shapeOf(out);
    if (!dims && !m_used.count(out)) continue;
    if (!dims)
      throw util::Error(m_where + ": " + label + ": shape inference could not tell the shape of its output '" + out +
                        "' (export with fixed input sizes, or simplify the model with onnx-simplifier)");
    std::int64_t n = 1;
    for (const std::int64_t d : *dims) {
      if (d < 0) throw util::Error(m_where + ": " + label + ": output '" + out + "' has a negative dimension");
      if (d > 0 && n > kMaxElements / d)
        throw util::Error(m_where + ": " + label + ": output '" + out + "' has more than 2^40 elements per sample");
      n *= d;
    }
  }
  if (isPlumbing(op)) return;
  // An Identity of a constant is the constant again, under a name of its own: each reader of
  // it holds its own parameters (an exporter that shares equal tensors must not lower the count).
  if (op == "Identity" && node.input_size() == 1 && node.output_size() == 1) {
    if (const OnnxTensor* t = initializer(node.input(0))) {
      m_aliases[node.output(0)] = *t;
      return;
    }
  }

  LayerStats s;
  s.name = name;
  std::string activationInput;
  double inElements = 0;
  for (int k = 0; k < node.input_size(); ++k) {
    const std::string& in = node.input(k);
    if (in.empty()) continue;
    const OnnxTensor* init = initializer(in);
    if (!init) {
      if (activationInput.empty()) activationInput = in;
      inElements += static_cast<double>(elementsOf(in));
      continue;
    }
    if (!isFloat(init->elementType) || isSetting(op, k, *init) || !m_counted.insert(in).second) continue;  // or counted
    // BatchNormalization's running mean and variance (inputs 3 and 4) are not trained.
    const bool running = op == "BatchNormalization" && node.input_size() > 3 &&
                         (in == node.input(3) || (node.input_size() > 4 && in == node.input(4)));
    (running ? s.nonTrainableParams : s.params) += init->elements;
  }
  const std::string output = node.output_size() > 0 ? node.output(0) : std::string();
  double outElements = 0;
  for (const auto& out : node.output()) outElements += static_cast<double>(elementsOf(out));
  s.inShape = perSampleShape(activationInput.empty() ? output : activationInput);
  s.outShape = perSampleShape(output);
  s.forwardBytes = 4.0 * (inElements + outElements);
  s.weightBytes = 4.0 * static_cast<double>(s.params + s.nonTrainableParams);
  s.savedBytes = 4.0 * outElements;
  const double n = outElements;
  s.kind = LayerKind::Other;
  s.forwardFlops = s.backwardFlops = n;  // elementwise by default: its cost is its bytes

  if (op == "Conv" || op == "ConvTranspose") {
    const auto* w = node.input_size() > 1 ? shapeOf(node.input(1)) : nullptr;
    const auto* x = shapeOf(node.input(0));
    if (!w || w->size() < 3 || !x || x->size() < 3) throw util::Error(m_where + ": " + label + ": weight or input of unknown shape");
    const std::int64_t groups = std::max<std::int64_t>(1, attrInt(node, "group", 1));
    std::int64_t taps = 1;
    for (std::size_t i = 2; i < w->size(); ++i) taps *= (*w)[i];
    const bool transposed = op == "ConvTranspose";
    const std::int64_t outChannels = transposed ? (*w)[1] * groups : (*w)[0];
    const std::int64_t inPerGroup = transposed ? (*w)[0] / groups : (*w)[1];
    // A transposed convolution scatters every input pixel; a convolution gathers every output pixel.
    const std::int64_t pixels = (transposed ? elementsOf(node.input(0)) : elementsOf(output)) / std::max<std::int64_t>(1, transposed ? (*x)[1] : outChannels);
    const double macs = static_cast<double>(outChannels) * static_cast<double>(inPerGroup * taps) * static_cast<double>(pixels);
    const bool bias = node.input_size() > 2 && !node.input(2).empty();
    s.forwardFlops = 2 * macs + (bias ? n : 0);
    s.backwardFlops = 4 * macs + (bias ? n : 0);
    s.productFlops = 2 * macs;
    s.gemmM = outChannels / groups;
    s.gemmK = inPerGroup * taps;
    s.gemmN = pixels;
    s.gemmGroups = static_cast<int>(std::min<std::int64_t>(groups, INT_MAX));
    const bool depthwise = groups > 1 && groups == outChannels && inPerGroup == 1;
    s.kind = depthwise ? LayerKind::DepthwiseConv2D : LayerKind::Conv2D;
    const OnnxTensor* weight = initializer(node.input(1));
    const OnnxTensor* biasTensor = bias ? initializer(node.input(2)) : nullptr;
    if (m_unfoldTorchBatchNorm && !transposed && torchFoldedConvolution(node, weight, biasTensor)) {
      // The batch norm torch folded in: scale and shift (the shift is the folded bias, already
      // counted), running mean and variance; its own work after the convolution.
      LayerStats bn;
      bn.name = name + "/batch_norm (folded by the export)";
      bn.kind = LayerKind::BatchNorm;
      bn.inShape = bn.outShape = s.outShape;
      bn.params = outChannels;
      bn.nonTrainableParams = 2 * outChannels;
      bn.forwardFlops = 5 * n;
      bn.backwardFlops = 8 * n;
      bn.forwardBytes = 4.0 * 2 * n;
      bn.weightBytes = 4.0 * static_cast<double>(bn.params + bn.nonTrainableParams);
      bn.savedBytes = 4.0 * (n + 2 * static_cast<double>(outChannels));
      m_stats.layers.push_back(std::move(s));
      m_stats.layers.push_back(std::move(bn));
      ++m_unfolded;
      return;
    }
  } else if (op == "Gemm" || op == "MatMul") {
    const auto* a = shapeOf(node.input(0));
    const auto* b = node.input_size() > 1 ? shapeOf(node.input(1)) : nullptr;
    if (!a || !b || a->empty() || b->empty()) throw util::Error(m_where + ": " + label + ": operand of unknown shape");
    std::int64_t k = a->back();
    if (op == "Gemm" && attrInt(node, "transA", 0) != 0 && a->size() == 2) k = (*a)[0];
    const auto* y = shapeOf(output);
    const std::int64_t units = y && !y->empty() ? y->back() : 1;
    const std::int64_t rows = units > 0 ? static_cast<std::int64_t>(n) / units : 0;
    const double macs = n * static_cast<double>(k);
    const bool bias = op == "Gemm" && node.input_size() > 2 && !node.input(2).empty();
    s.forwardFlops = 2 * macs + (bias ? n : 0);
    s.backwardFlops = 4 * macs + (bias ? n : 0);
    s.productFlops = 2 * macs;
    s.gemmM = units;
    s.gemmK = k;
    s.gemmN = rows;
    const bool weights = isInitializer(node.input(1));
    s.kind = weights ? LayerKind::Dense : LayerKind::Other;
  } else if (op == "BatchNormalization") {
    s.kind = LayerKind::BatchNorm;
    s.forwardFlops = 5 * n;   // as the engine's BatchNorm: statistics, normalise, scale and shift
    s.backwardFlops = 8 * n;
    s.savedBytes = 4.0 * (n + 2 * static_cast<double>(s.inShape.c));
  } else if (op == "LayerNormalization") {
    s.forwardFlops = 5 * n;
    s.backwardFlops = 8 * n;
  } else if (isActivationOp(op)) {
    s.kind = LayerKind::Activation;
    Activation a = Activation::ReLU;
    const bool known = engineActivation(op, a);
    s.forwardFlops = n * (known ? activationForwardFlops(a) : 4);
    s.backwardFlops = n * (known ? activationBackwardFlops(a) : 4);
  } else if (op == "MaxPool" || op == "AveragePool") {
    const double window = static_cast<double>(attrProduct(node, "kernel_shape"));
    s.kind = op == "MaxPool" ? LayerKind::MaxPool2D : LayerKind::AvgPool2D;
    s.forwardFlops = n * window;
    s.backwardFlops = op == "MaxPool" ? n : n * window;
    s.savedBytes = op == "MaxPool" ? 8.0 * n : 0;  // output + argmax index; average pooling keeps nothing
  } else if (op == "GlobalAveragePool" || op == "GlobalMaxPool" || op == "ReduceMean") {
    s.kind = op == "GlobalAveragePool" ? LayerKind::GlobalAvgPool : LayerKind::Other;
    s.forwardFlops = s.backwardFlops = inElements;
  } else if (isViewOp(op)) {
    s.kind = LayerKind::Flatten;
    s.forwardFlops = s.backwardFlops = 0;
    s.forwardBytes = s.savedBytes = 0;  // a view of the same memory
  } else if (op == "Dropout") {
    s.kind = LayerKind::Dropout;
  } else if (op == "Add" || op == "Sum") {
    // Two activations added: a residual merge (two read, one written, nothing kept).
    if (s.params == 0 && node.input_size() >= 2 && !isInitializer(node.input(0)) && !isInitializer(node.input(1))) {
      s.kind = LayerKind::Residual;
      s.savedBytes = 0;
    }
  } else if (op == "Concat") {
    s.kind = LayerKind::Concat;
    s.forwardFlops = s.backwardFlops = 0;
    s.forwardBytes = 4.0 * 2 * n;
    s.savedBytes = 0;
  } else if (op == "Softmax" || op == "LogSoftmax") {
    s.kind = LayerKind::Softmax;
    s.forwardFlops = 5 * n;
    s.backwardFlops = 2 * n;
  }
  m_stats.layers.push_back(std::move(s));
}

}  // namespace core::nn
