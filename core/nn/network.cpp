#include "core/nn/network.h"

#include "core/nn/composite.h"
#include "core/nn/gemm_precision.h"
#include "core/nn/layer.h"
#include "core/nn/loss.h"
#include "core/util/error.h"
#include "core/util/parallel.h"

namespace core::nn {
namespace {
constexpr Eigen::Index kInferenceSlice = 256;  // samples per forward in evaluate()/predict()
constexpr Eigen::Index kInferenceTokens = 4096;  // tokens per forward for a language model
}

struct Network::Impl {
  RootSequential root;
  LossHead head;
  std::vector<int> nameCounters;
  Shape output;
  Vector params, grads, gemmParams, state;
  const float* boundParams = nullptr;
  const float* boundGrads = nullptr;
  bool initialized = false;
  util::Precision precision = util::Precision::FP32;
  Matrix dLogits;
  Matrix slice;
  Eigen::Index tokens = 1;  // a language model predicts every step: labels per token
  std::vector<std::pair<std::int64_t, std::int64_t>> matrixRanges;

  // Samples per inference forward: 256, or for a language model as many sequences as make
  // 4,096 tokens (every layer's buffers scale with tokens, and 256 x 128 would hold ~1 GB).
  Eigen::Index inferenceSlice() const {
    return tokens > 1 ? std::max<Eigen::Index>(1, kInferenceTokens / tokens) : kInferenceSlice;
  }

  // The logits as the loss reads them: (classes x samples), or (classes x steps*samples).
  Eigen::Map<const Matrix> logitsView(const Matrix& logits) const {
    return {logits.data(), logits.rows() / tokens, logits.cols() * tokens};
  }

  explicit Impl(int classes) : head(classes) {}

  void bindAll() {
    if (precision != util::Precision::FP32) gemmParams.resize(params.size());
    const float* gemm = precision == util::Precision::FP32 ? params.data() : gemmParams.data();
    ParamBinder binder(params.data(), grads.data(), gemm, state.data());
    root.bind(binder);
    matrixRanges = binder.matrixRanges();
    boundParams = params.data();
    boundGrads = grads.data();
  }

  // Before a pass: the caller may have replaced the vectors or changed the weights.
  void prepare(const std::string& id) {
    if (!initialized) throw util::Error("network '" + id + "': call initialize() before training or inference");
    const std::int64_t n = root.paramCount();
    if (params.size() != n || grads.size() != n)
      throw util::Error("network '" + id + "': parameter vector has " + std::to_string(params.size()) + " values, expected " +
                        std::to_string(n));
    if (params.data() != boundParams || grads.data() != boundGrads) bindAll();
    if (precision != util::Precision::FP32) copyRounded(params.data(), gemmParams.data(), params.size(), precision);
  }

  PassContext context(bool training, std::uint64_t seed) const {
    PassContext ctx;
    ctx.training = training;
    ctx.stepSeed = seed;
    ctx.chunks = util::currentConcurrency();
    ctx.precision = precision;
    return ctx;
  }
};

Network::Network(std::string id, Shape input, int classes)
    : m_id(std::move(id)), m_input(input), m_classes(classes), m_impl(std::make_unique<Impl>(classes)) {
  if (input.size() <= 0) throw util::Error("network '" + m_id + "': input shape must be positive");
  m_impl->output = input;
}

Network::~Network() = default;

void Network::add(std::unique_ptr<Layer> layer) {
  if (!layer) throw util::Error("network '" + m_id + "': cannot add a null layer");
  if (m_impl->initialized) throw util::Error("network '" + m_id + "': cannot add layers after initialize()");
  layer->assignNames("", m_impl->nameCounters);
  m_impl->output = layer->build(m_impl->output);
  m_impl->root.add(std::move(layer));
}

Shape Network::outputShape() const { return m_impl->output; }

NetworkStats Network::stats() const {
  NetworkStats s;
  s.input = m_input;
  s.output = m_impl->output;
  m_impl->root.appendStats(s.layers);
  s.layers.push_back(m_impl->head.stats(m_impl->output));
  return s;
}

std::int64_t Network::paramCount() const { return m_impl->root.paramCount(); }

std::vector<GraphNode> Network::graph() const {
  std::vector<GraphNode> out;
  for (std::size_t i = 0; i < m_impl->root.size(); ++i) out.push_back(m_impl->root.child(i).graph());
  return out;
}

void Network::initialize(std::uint64_t seed) {
  Impl& d = *m_impl;
  // A sequence of class scores (classes, steps, 1) is a language model's: a label per step.
  const bool perToken = d.output.c == m_classes && d.output.h > 1 && d.output.w == 1;
  if (d.output.size() != m_classes && !perToken)
    throw util::Error("network '" + m_id + "': the last layer gives " + std::to_string(d.output.size()) +
                      " outputs but the network has " + std::to_string(m_classes) + " classes");
  d.tokens = perToken ? d.output.h : 1;
  d.root.build(m_input);
  d.params.setZero(d.root.paramCount());
  d.grads.setZero(d.root.paramCount());
  d.state.setZero(d.root.stateCount());
  d.bindAll();
  d.root.initParams(seed);
  d.initialized = true;
}

bool Network::initialized() const { return m_impl->initialized; }
Eigen::VectorXf& Network::params() { return m_impl->params; }
Eigen::VectorXf& Network::grads() { return m_impl->grads; }
Eigen::VectorXf& Network::state() { return m_impl->state; }

namespace {
void checkBatch(const std::string& id, Shape input, const Eigen::MatrixXf& x, std::size_t labels, Eigen::Index tokens = 1) {
  if (x.rows() != input.size())
    throw util::Error("network '" + id + "': input has " + std::to_string(x.rows()) + " rows per sample, expected " +
                      std::to_string(input.size()));
  if (x.cols() == 0) throw util::Error("network '" + id + "': empty batch");
  if (labels != static_cast<std::size_t>(x.cols() * tokens))
    throw util::Error("network '" + id + "': " + std::to_string(labels) + " labels for " + std::to_string(x.cols()) +
                      " samples" + (tokens > 1 ? " of " + std::to_string(tokens) + " tokens" : std::string()));
}
}  // namespace

StepResult Network::trainStep(const Eigen::MatrixXf& x, const std::vector<int>& labels, std::uint64_t stepSeed) {
  Impl& d = *m_impl;
  d.prepare(m_id);
  checkBatch(m_id, m_input, x, labels.size(), d.tokens);
  const PassContext ctx = d.context(true, stepSeed);
  const Matrix& logits = d.root.forward(x, ctx);
  const StepResult r = d.head.evaluate(d.logitsView(logits), labels, 0, &d.dLogits, ctx.chunks);
  d.dLogits.resize(logits.rows(), logits.cols());  // the same values, as the last layer's (classes x steps) columns
  d.root.backward(x, d.dLogits, false, ctx);
  return r;
}

StepResult Network::evaluate(const Eigen::MatrixXf& x, const std::vector<int>& labels) {
  Impl& d = *m_impl;
  d.prepare(m_id);
  checkBatch(m_id, m_input, x, labels.size(), d.tokens);
  const PassContext ctx = d.context(false, 0);
  StepResult total;
  double lossSum = 0;
  const Eigen::Index slice = d.inferenceSlice();
  for (Eigen::Index b = 0; b < x.cols(); b += slice) {
    const Eigen::Index n = std::min(slice, x.cols() - b);
    const Matrix* in = &x;
    if (n != x.cols()) {
      d.slice = x.middleCols(b, n);
      in = &d.slice;
    }
    const StepResult r =
        d.head.evaluate(d.logitsView(d.root.forward(*in, ctx)), labels, static_cast<std::size_t>(b * d.tokens), nullptr, ctx.chunks);
    lossSum += r.loss * static_cast<double>(r.samples);
    total.correct += r.correct;
    total.samples += r.samples;
  }
  total.loss = lossSum / static_cast<double>(total.samples);
  return total;
}

void Network::accumulateBatchNormStatistics(const Eigen::MatrixXf& x, int pass) {
  Impl& d = *m_impl;
  d.prepare(m_id);
  checkBatch(m_id, m_input, x, static_cast<std::size_t>(x.cols()));
  if (pass < 0) throw util::Error("network '" + m_id + "': statistics pass must be >= 0, got " + std::to_string(pass));
  PassContext ctx = d.context(false, 0);
  ctx.statsPass = pass;
  d.root.forward(x, ctx);
}

bool Network::hasBatchNorm() const {
  for (const LayerStats& s : stats().layers)
    if (s.kind == LayerKind::BatchNorm) return true;
  return false;
}

Eigen::MatrixXf Network::predict(const Eigen::MatrixXf& x) {
  Impl& d = *m_impl;
  d.prepare(m_id);
  checkBatch(m_id, m_input, x, static_cast<std::size_t>(x.cols()));
  const PassContext ctx = d.context(false, 0);
  Eigen::MatrixXf out(d.output.size(), x.cols());
  Matrix probs;
  const Eigen::Index slice = d.inferenceSlice();
  for (Eigen::Index b = 0; b < x.cols(); b += slice) {
    const Eigen::Index n = std::min(slice, x.cols() - b);
    const Matrix* in = &x;
    if (n != x.cols()) {
      d.slice = x.middleCols(b, n);
      in = &d.slice;
    }
    d.head.probabilities(d.logitsView(d.root.forward(*in, ctx)), probs);
    out.middleCols(b, n) = Eigen::Map<const Matrix>(probs.data(), d.output.size(), n);
  }
  return out;
}

void Network::setPrecision(util::Precision p) {
  m_impl->precision = p;
  if (m_impl->initialized) m_impl->bindAll();
}

util::Precision Network::precision() const { return m_impl->precision; }

std::vector<std::uint8_t> Network::matrixWeightMask() const {
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(m_impl->params.size()), 0);
  for (const auto& [offset, count] : m_impl->matrixRanges)
    std::fill_n(mask.begin() + offset, count, std::uint8_t{1});
  return mask;
}
std::size_t Network::layerCount() const { return m_impl->root.size(); }
Layer& Network::layer(std::size_t i) {
  if (i >= m_impl->root.size())
    throw util::Error("network '" + m_id + "': layer index " + std::to_string(i) + " out of range (" +
                      std::to_string(m_impl->root.size()) + " layers)");
  return m_impl->root.child(i);
}

}  // namespace core::nn
