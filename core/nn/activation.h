#pragma once
// Element-wise activation functions: fused into Dense/Conv2D (Keras' `activation=`) or used
// as a layer of their own. Derivatives are computed from the OUTPUT, so no input is kept.
#include <algorithm>
#include <cstdint>

#include "core/nn/layer.h"

namespace core::nn {

enum class Activation { Linear, ReLU, ELU, Tanh, Sigmoid };

const char* activationName(Activation a);
// Approximate FLOPs per element (forward) and for the derivative (backward), for stats.
double activationForwardFlops(Activation a);
double activationBackwardFlops(Activation a);

// y = f(y), in place on n contiguous floats.
void applyActivation(Activation a, float* y, std::int64_t n);
// y[begin, end) = f(what fill(i, n) writes to y[i, i + n)), block by block while each block is in
// cache (a chunk of ResNet's first stage is 4 MiB: written whole, then activated, it was read back
// from memory). Blocks end on multiples of kActivationBlock floats from y's (aligned) start, so
// each starts aligned as the whole would and Eigen's vectorised functions (ELU's exp) see the
// elements as they would unblocked.
constexpr std::int64_t kActivationBlock = 4096;
template <class Fill>
void fillAndActivate(Activation a, float* y, std::int64_t begin, std::int64_t end, Fill&& fill) {
  for (std::int64_t i = begin; i < end;) {
    const std::int64_t next = std::min(end, (i / kActivationBlock + 1) * kActivationBlock);
    fill(i, next - i);
    applyActivation(a, y + i, next - i);
    i = next;
  }
}
// g = dy * f'(x) where y = f(x); n contiguous floats; g may alias dy.
void activationGradient(Activation a, const float* y, const float* dy, float* g, std::int64_t n);
// dy * f'(x) from y = f(x) at one element, as activationGradient computes it.
inline float activationGradientAt(Activation a, float y, float dy) {
  switch (a) {
    case Activation::ReLU: return y > 0.0f ? dy : 0.0f;
    case Activation::ELU: return dy * std::min(y + 1.0f, 1.0f);  // branch-free: vectorises on AVX2 too
    case Activation::Tanh: return dy * (1.0f - y * y);
    case Activation::Sigmoid: return dy * y * (1.0f - y);
    case Activation::Linear: break;
  }
  return dy;
}
// Calls body(grad) with grad(y, dy) = activationGradientAt(a, y, dy) for `a` as a constant: a loop
// in body then runs without the switch, its derivative inlined (and vectorised where it can).
template <class Body>
void withActivationGradient(Activation a, Body&& body) {
  switch (a) {
    case Activation::Linear: return body([](float, float dy) { return dy; });
    case Activation::ReLU: return body([](float y, float dy) { return activationGradientAt(Activation::ReLU, y, dy); });
    case Activation::ELU: return body([](float y, float dy) { return activationGradientAt(Activation::ELU, y, dy); });
    case Activation::Tanh: return body([](float y, float dy) { return activationGradientAt(Activation::Tanh, y, dy); });
    case Activation::Sigmoid: return body([](float y, float dy) { return activationGradientAt(Activation::Sigmoid, y, dy); });
  }
}

class ActivationLayer final : public Layer {
public:
  explicit ActivationLayer(Activation a, std::string name = {});
  Activation activation() const { return m_act; }
  // Taken by the layer before it (Layer::takeFollowingActivation): this layer then passes its
  // input and its output gradient through untouched.
  void setTaken(bool taken) { m_taken = taken; }
  bool taken() const { return m_taken; }
  void appendStats(std::vector<LayerStats>& out) const override;
  const Matrix& forward(const Matrix& x, const PassContext& ctx) override;
  const Matrix& backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) override;

protected:
  Shape inferShape(Shape in) override { return in; }
  void describe(GraphNode& node) const override;

private:
  Activation m_act;
  bool m_taken = false;
};

}  // namespace core::nn
