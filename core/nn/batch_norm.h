#pragma once
// Batch normalisation per channel (images: over the batch and the pixels; vectors: over the
// batch). Training mode uses the batch's statistics and updates the running ones
// (running = momentum * running + (1 - momentum) * batch, Keras' convention; the running
// variance takes the unbiased batch variance); inference mode uses the running statistics.
// A statistics pass (PassContext::statsPass) replaces the running statistics by the average
// over several batches taken with the final weights ("precise BN").
#include "core/nn/layer.h"

namespace core::nn {

struct BatchNormOptions {
  float epsilon = 1e-3f;   // Keras default (PyTorch: 1e-5)
  float momentum = 0.99f;  // Keras default (PyTorch momentum 0.1 == 0.9 here)
  bool scale = true;       // learn gamma (Keras' InceptionV3 uses scale=False)
  bool center = true;      // learn beta
};

class BatchNorm final : public Layer {
public:
  explicit BatchNorm(BatchNormOptions o = {}, std::string name = {});
  std::int64_t paramCount() const override;
  std::int64_t stateCount() const override;
  void appendStats(std::vector<LayerStats>& out) const override;
  void bind(ParamBinder& binder) override;
  void initParams(std::uint64_t seed) override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;
  // ReLU is applied to the normalised output (and its derivative to dy) in the same passes.
  bool takeFollowingActivation(Activation a) override;

  VectorMap runningMean() { return {m_state, channels()}; }
  VectorMap runningVariance() { return {m_state + channels(), channels()}; }

protected:
  Shape inferShape(Shape in) override { return in; }
  void describe(GraphNode& node) const override;

private:
  Eigen::Index channels() const { return inShape().c; }
  std::int64_t pixels() const { return static_cast<std::int64_t>(inShape().h) * inShape().w; }
  BatchNormOptions m_o;
  bool m_relu = false;  // takes the ReLU layer after it
  float* m_params = nullptr;  // [gamma (if scale)] [beta (if center)]
  float* m_grads = nullptr;
  float* m_state = nullptr;   // [running mean] [running variance]
  Vector m_mean, m_invStd;    // of the last training batch
  Vector m_scale, m_shift;    // the forward pass's affine map per channel: y = fma(x, scale, shift)
  Vector m_runningScale, m_runningShift;  // the map of the running statistics (inference)
  Vector m_pivot;             // per channel, the value its moments are summed around
  Matrix m_partials;          // per sample (column), two float sums per channel
  Matrix m_dxCoeffs;          // per channel (column), the input gradient's coefficients
};

}  // namespace core::nn
