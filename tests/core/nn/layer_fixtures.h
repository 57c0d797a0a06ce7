#pragma once
// What the layer tests share: a convolution built in one line, the finite-difference options for
// piecewise-linear layers, and a guard that restores the GEMM's instruction-set limit.
#include <memory>

#include "core/nn/conv2d.h"
#include "core/nn/gemm.h"
#include "core/nn/padding.h"
#include "grad_check.h"

namespace core::nn::testing {

inline GradCheckOptions kinked() {  // piecewise-linear layers: a small step rarely crosses a kink
  GradCheckOptions o;
  o.step = 2e-3f;
  return o;
}

inline std::unique_ptr<Conv2D> conv(int filters, int kh, int kw, int stride, Padding pad, Activation act,
                                    bool bias = true, ConvAlgorithm algorithm = ConvAlgorithm::Auto) {
  Conv2DOptions o;
  o.algorithm = algorithm;
  o.filters = filters;
  o.kernelH = kh;
  o.kernelW = kw;
  o.strideH = o.strideW = stride;
  o.padding = pad;
  o.activation = act;
  o.bias = bias;
  return std::make_unique<Conv2D>(o, "conv");
}

// Restores the GEMM's instruction-set limit however the test leaves.
struct IsaLimitGuard {
  GemmIsa was = limitGemmIsa(GemmIsa::Amx);
  ~IsaLimitGuard() { limitGemmIsa(was); }
};

}  // namespace core::nn::testing
