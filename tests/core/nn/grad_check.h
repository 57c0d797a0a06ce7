#pragma once
// Finite-difference gradient checking for one layer (tiny-dnn habit): the loss is
// L = sum(y .* R) for a fixed random R, so dL/dy = R; the layer's backward gives dL/dx and
// dL/dtheta, compared with central differences at random indices.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>

#include "core/nn/layer.h"

namespace core::nn::testing {

struct GradCheckOptions {
  int batch = 3;
  float step = 1e-2f;        // central-difference step
  int probes = 24;           // random indices checked for the input and for the parameters
  bool checkInput = true;    // false for layers whose input is not differentiable (token ids)
  double atol = 5e-3, rtol = 2e-2;
  std::uint64_t seed = 1;
  // Custom input generator (e.g. token ids); default: N(0, 1).
  std::function<float(std::mt19937&, Eigen::Index row)> input;
};

struct BoundLayer {
  Vector params, grads, state;
};

// Builds, binds and initialises `layer` on its own vectors.
inline BoundLayer bindStandalone(Layer& layer, Shape in, std::uint64_t seed) {
  layer.build(in);
  BoundLayer b;
  b.params.setZero(layer.paramCount());
  b.grads.setZero(layer.paramCount());
  b.state.setZero(layer.stateCount());
  ParamBinder binder(b.params.data(), b.grads.data(), b.params.data(), b.state.data());
  layer.bind(binder);
  layer.initParams(seed);
  return b;
}

inline void expectGradientsMatch(Layer& layer, Shape in, const GradCheckOptions& o = {}) {
  BoundLayer b = bindStandalone(layer, in, o.seed);
  std::mt19937 rng(static_cast<std::uint32_t>(o.seed));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  // Non-zero parameters everywhere (e.g. batch-norm beta), so every path is exercised.
  for (Eigen::Index i = 0; i < b.params.size(); ++i) b.params[i] += 0.1f * normal(rng);
  Matrix x(in.size(), o.batch);
  for (Eigen::Index c = 0; c < x.cols(); ++c)
    for (Eigen::Index r = 0; r < x.rows(); ++r) x(r, c) = o.input ? o.input(rng, r) : normal(rng);
  PassContext ctx;
  ctx.training = true;
  ctx.stepSeed = 42;
  ctx.chunks = 2;
  const Matrix y0 = layer.forward(x, ctx);
  ASSERT_EQ(y0.rows(), layer.outShape().size());
  ASSERT_EQ(y0.cols(), o.batch);
  Matrix r(y0.rows(), y0.cols());
  for (Eigen::Index i = 0; i < r.size(); ++i) r.data()[i] = normal(rng);
  auto loss = [&] {
    const Matrix& y = layer.forward(x, ctx);
    return (y.cast<double>().array() * r.cast<double>().array()).sum();
  };
  loss();
  const Matrix dx = layer.backward(x, r, o.checkInput, ctx);
  const Vector grads = b.grads;

  // One chunk gives the same output (up to rounding): the split does not change the math.
  PassContext serial = ctx;
  serial.chunks = 1;
  const Matrix y1 = layer.forward(x, serial);
  EXPECT_LT((y1 - y0).cwiseAbs().maxCoeff(), 1e-4f * (1.0f + y0.cwiseAbs().maxCoeff())) << layer.name();

  auto check = [&](float* value, double analytic, const std::string& what) {
    const float saved = *value;
    *value = saved + o.step;
    const double up = loss();
    *value = saved - o.step;
    const double down = loss();
    *value = saved;
    const double numeric = (up - down) / (2.0 * static_cast<double>(o.step));
    EXPECT_NEAR(analytic, numeric, o.atol + o.rtol * std::max(std::abs(analytic), std::abs(numeric)))
        << layer.name() << " " << what;
  };
  if (o.checkInput) {
    ASSERT_EQ(dx.rows(), x.rows());
    ASSERT_EQ(dx.cols(), x.cols());
    std::uniform_int_distribution<Eigen::Index> pick(0, x.size() - 1);
    for (int k = 0; k < o.probes; ++k) {
      const Eigen::Index i = pick(rng);
      check(x.data() + i, dx.data()[i], "d/dx[" + std::to_string(i) + "]");
    }
  }
  if (b.params.size() > 0) {
    std::uniform_int_distribution<Eigen::Index> pick(0, b.params.size() - 1);
    for (int k = 0; k < o.probes; ++k) {
      const Eigen::Index i = pick(rng);
      check(b.params.data() + i, grads[i], "d/dparam[" + std::to_string(i) + "]");
    }
  }
}

}  // namespace core::nn::testing
