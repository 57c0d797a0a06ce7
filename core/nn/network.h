#pragma once
// CONTRACT (owned by the engine; the trainer and the GUI rely on this public API).
// A Network owns one flat parameter vector and one flat gradient vector (mlpack habit);
// each layer views its slice. Shapes are inferred when the network is built; parameters
// are allocated by initialize(). Activations are Eigen matrices with one COLUMN PER SAMPLE
// (rows = per-sample size, channel-major C,H,W for images; token ids stored as floats for
// text models).
#include "core/nn/eigen.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/nn/layer_graph.h"
#include "core/nn/layer_stats.h"
#include "core/util/precision.h"

namespace core::nn {

class Layer;  // core/nn/layer.h

struct StepResult {
  double loss = 0;            // mean loss over the batch
  std::int64_t correct = 0;   // samples whose predicted class is the label
  std::int64_t samples = 0;
};

class Network {
public:
  Network(std::string id, Shape input, int classes);
  ~Network();
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  // --- building (used by the zoo) -----------------------------------------------------------
  void add(std::unique_ptr<Layer> layer);  // infers the layer's shapes from the previous one

  // --- identity and stats -------------------------------------------------------------------
  const std::string& id() const { return m_id; }
  Shape inputShape() const { return m_input; }
  Shape outputShape() const;
  int classes() const { return m_classes; }
  NetworkStats stats() const;
  std::int64_t paramCount() const;
  // The model graph, top-level layers in order (core/nn/layer_graph.h): what the PyTorch
  // exporter rebuilds. The loss follows from classes() and the output: 1 class = sigmoid +
  // binary cross-entropy; an output with steps > 1 = a cross-entropy per token; else softmax.
  std::vector<GraphNode> graph() const;

  // --- training -----------------------------------------------------------------------------
  // Allocates parameters and initialises them (Glorot/He as the layer says) from `seed`.
  void initialize(std::uint64_t seed);
  bool initialized() const;
  Eigen::VectorXf& params();
  Eigen::VectorXf& grads();
  // Non-trainable state (batch-norm running mean/variance), one flat vector: with params()
  // it is everything a checkpoint needs.
  Eigen::VectorXf& state();
  // Forward + loss + backward on one batch (x: inputSize x batch, labels: batch). A language
  // model (last layer (classes, steps, 1)) takes a label per step: steps x batch labels,
  // sample by sample, and its loss is the mean over every token.
  // Fills grads() with the mean-over-batch gradient. Parallel inside, over the calling
  // tbb::task_arena; deterministic for a given seed, step and arena concurrency.
  StepResult trainStep(const Eigen::MatrixXf& x, const std::vector<int>& labels, std::uint64_t stepSeed);
  // Inference mode (dropout off, batch-norm running statistics).
  StepResult evaluate(const Eigen::MatrixXf& x, const std::vector<int>& labels);
  // Batch-norm population statistics from the current weights ("precise BN", Wu & Johnson
  // 2021): call with passes 0, 1, ..., n-1 on n training batches; afterwards the running
  // statistics are the average of those batches' statistics, measured with dropout off (so
  // free of the moving average's lag and of dropout's variance shift). Pass 0 discards the
  // previous running statistics. Does nothing to parameters or gradients.
  void accumulateBatchNormStatistics(const Eigen::MatrixXf& x, int pass);
  bool hasBatchNorm() const;
  // Class scores (after softmax / sigmoid): classes x batch (a language model: per step).
  Eigen::MatrixXf predict(const Eigen::MatrixXf& x);
  // GEMM inputs rounded to this format (fp32 = no rounding). Accumulation stays fp32.
  void setPrecision(util::Precision p);
  util::Precision precision() const;
  // 1 for every parameter that is a Dense layer's matrix weight, 0 for biases, norms and
  // embeddings: where decoupled weight decay (AdamW) applies. Valid after initialize().
  std::vector<std::uint8_t> matrixWeightMask() const;

  // Layers, for tests and tools.
  std::size_t layerCount() const;
  Layer& layer(std::size_t i);

private:
  struct Impl;
  std::string m_id;
  Shape m_input;
  int m_classes;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace core::nn
