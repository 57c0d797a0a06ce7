#pragma once
// A thin layer (tiny-dnn habit): shape inference, stats, parameter binding and init,
// forward and backward. The math lives in the layer's .cpp and in the kernels beside it.
//
// Activation layout: one column per sample. Images are channel-major (c, y, x); sequences
// store each step's feature vector contiguously (row = step * features + feature), as Keras'
// (batch, steps, features); text inputs are token ids stored as floats.
//
// Parameters are owned by the Network (one flat vector, mlpack habit): bind() hands each
// layer its slice of the parameter, gradient and non-trainable state vectors, and the layer
// keeps Eigen::Map views into them. Work buffers (outputs, input gradients, scratch) belong
// to the layer and keep their capacity across steps.
#include "core/nn/eigen.h"
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/nn/layer_graph.h"
#include "core/nn/layer_stats.h"
#include "core/util/precision.h"

namespace core::nn {

enum class Activation;  // activation.h

using Matrix = Eigen::MatrixXf;
using Vector = Eigen::VectorXf;
using MatrixMap = Eigen::Map<Matrix>;
using ConstMatrixMap = Eigen::Map<const Matrix>;
using VectorMap = Eigen::Map<Vector>;
using ConstVectorMap = Eigen::Map<const Vector>;

// What one forward/backward pass needs to know besides the data.
struct PassContext {
  bool training = false;
  std::uint64_t stepSeed = 0;  // dropout masks derive from it (and the layer's index)
  int chunks = 1;              // parallel chunks over the batch (the arena's concurrency)
  util::Precision precision = util::Precision::FP32;  // GEMM input rounding
  // >= 0 (with training false): a batch-norm statistics pass. Dropout is off; batch-norm
  // layers normalise with the batch's statistics and fold them into the running ones as a
  // plain average over the passes (pass k: running = (k * running + batch) / (k + 1)).
  int statsPass = -1;
};

// Hands out consecutive slices of the network's flat vectors, in layer order.
class ParamBinder {
public:
  ParamBinder(float* params, float* grads, const float* gemmParams, float* state)
      : m_params(params), m_grads(grads), m_gemmParams(gemmParams), m_state(state) {}
  struct Slice {
    float* params = nullptr;
    float* grads = nullptr;
    const float* gemmParams = nullptr;  // params rounded to the GEMM precision
  };
  // `matrixWeights`: how many of the n values (from the start of the slice) are a matrix's
  // weights, the only parameters AdamW-style decoupled weight decay applies to (not biases,
  // norms or embeddings).
  Slice take(std::int64_t n, std::int64_t matrixWeights = 0);
  float* takeState(std::int64_t n);
  std::int64_t paramsTaken() const { return m_offset; }
  std::int64_t stateTaken() const { return m_stateOffset; }
  int nextLayerIndex() { return m_layerIndex++; }
  // [offset, offset + count) ranges of matrix weights, in binding order.
  const std::vector<std::pair<std::int64_t, std::int64_t>>& matrixRanges() const { return m_matrixRanges; }

private:
  float* m_params;
  float* m_grads;
  const float* m_gemmParams;
  float* m_state;
  std::int64_t m_offset = 0;
  std::int64_t m_stateOffset = 0;
  int m_layerIndex = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> m_matrixRanges;
};

class Layer {
public:
  Layer(LayerKind kind, std::string name);
  virtual ~Layer();
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  // --- building ------------------------------------------------------------------------------
  // Infers (and stores) the output shape for `in`; throws util::Error naming the layer when
  // the input does not fit (e.g. a kernel larger than the padded image).
  Shape build(Shape in);
  Shape inShape() const { return m_in; }
  Shape outShape() const { return m_out; }
  LayerKind kind() const { return m_kind; }
  const std::string& name() const { return m_name; }
  // Gives unnamed layers "<kind>_<n>" names (n counted per kind) below `prefix`.
  virtual void assignNames(const std::string& prefix, std::vector<int>& countersByKind);

  // --- stats ---------------------------------------------------------------------------------
  // Appends this layer's entries (composites: their leaves plus one merge entry).
  virtual void appendStats(std::vector<LayerStats>& out) const;

  // --- description -------------------------------------------------------------------------
  // The layer as a node of the model graph (core/nn/layer_graph.h): name, shapes and parameter
  // count, then what describe() adds. Throws util::Error naming the layer when it has none.
  GraphNode graph() const;

  // --- parameters ----------------------------------------------------------------------------
  virtual std::int64_t paramCount() const { return 0; }
  virtual std::int64_t stateCount() const { return 0; }  // non-trainable (running statistics)
  // Takes this layer's slices; called again whenever the network's vectors move.
  virtual void bind(ParamBinder& binder);
  // Writes initial values into the bound slices (Glorot/He/... as the layer says).
  virtual void initParams(std::uint64_t seed) { (void)seed; }
  // Layers below this one never need an input gradient when false (set by the container).
  virtual bool hasParams() const { return paramCount() > 0; }
  // Whether this layer applies `a` to its own output, and its derivative in backward, from now
  // on: a container calls it for an activation layer that follows this one, which then passes
  // data through (one pass over the data instead of two). False where it cannot.
  virtual bool takeFollowingActivation(Activation a) {
    (void)a;
    return false;
  }
  // The other way round, in the backward pass only: the activation this layer applies to its own
  // output (Linear: none) ...
  virtual Activation ownActivation() const;  // Linear
  // ... whose derivative the layer after it may take (a container asks it): that layer multiplies
  // the gradient it passes back by f'(its input), where it routes it anyway ...
  virtual bool takePrecedingActivationGradient(Activation a) {
    (void)a;
    return false;
  }
  // ... and this layer is told so: its output gradient then arrives with f' applied.
  virtual void setActivationGradientTaken(bool taken) { (void)taken; }
  // Whether this layer computes the layer after it too, a few samples at a time as its own output
  // forms, so that output is never kept whole (a direct convolution and the max pooling after
  // it): a container calls it once both are built and the activation gradients above are settled,
  // and this layer tells `next` so itself. False where it cannot. The two layers' forward and
  // backward then differ from the contract below as each one's header says; only the container
  // that linked them calls them, in order.
  virtual bool takeFollowingLayer(Layer& next) {
    (void)next;
    return false;
  }

  // --- compute -------------------------------------------------------------------------------
  // Forward on a batch (inShape().size() x batch); returns the output (owned by the layer, or
  // `x` itself for layers that do not change the data; an empty matrix from a layer that took
  // the layer after it, whose forward then returns the result). The reference stays valid until
  // the next forward.
  virtual const Matrix& forward(const Matrix& x, const PassContext& ctx) = 0;
  // Backward: `x` is the input of the last forward, `dy` the loss gradient of its output.
  // Writes parameter gradients (overwriting, mean over the batch already in dy) and returns
  // the input gradient when `needDx` (else an empty matrix or anything: callers ignore it).
  // Where a layer took the one after it, that one returns its dy as it came and the taking
  // layer's dy is the pair's output gradient (takeFollowingLayer).
  virtual const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) = 0;

protected:
  virtual Shape inferShape(Shape in) = 0;  // may cache geometry
  // Fills the node's op and hyper-parameters (composites: their branches). The default
  // throws: a layer no tool can rebuild says so rather than being exported wrong.
  virtual void describe(GraphNode& node) const;
  // Stats of a leaf layer with the common fields (name, kind, shapes, bytes) filled in.
  LayerStats baseStats() const;
  // Throws util::Error "layer '<name>': <what>".
  [[noreturn]] void fail(const std::string& what) const;
  int layerIndex() const { return m_layerIndex; }
  void setLayerIndex(int i) { m_layerIndex = i; }

  Matrix m_y;   // output buffer
  Matrix m_dx;  // input-gradient buffer

private:
  LayerKind m_kind;
  std::string m_name;
  Shape m_in;
  Shape m_out;
  int m_layerIndex = 0;
};

// Number of parallel chunks for `work` elements: 1 for small work (TBB dispatch would cost
// more than it saves), else ctx.chunks. Depends only on sizes and concurrency.
int chunksFor(const PassContext& ctx, std::int64_t work, std::int64_t columns);

}  // namespace core::nn
