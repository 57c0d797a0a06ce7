// Batch norm in training mode against its formulas, and the same bits for any split of the
// batch among the threads (its finite-difference checks are in test_gradients.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/nn/activation.h"
#include "core/nn/batch_norm.h"
#include "grad_check.h"

namespace core::nn {
namespace {

// Splits of 1, 2 and 3 chunks give the same bits (output, input gradient, parameter gradients,
// running statistics), with and without the ReLU the layer takes; and the output and every
// gradient are the formulas' in double (the ReLU's mask read from the layer's own output, which
// is positive exactly where it passes a gradient).
TEST(BatchNorm, SplitsItsSamplesWithoutChangingABit) {
  const Shape in{8, 16, 16};
  const Eigen::Index batch = 30, p = in.h * in.w;
  const double count = static_cast<double>(batch * p);
  for (bool relu : {false, true}) {
    SCOPED_TRACE(relu ? "relu taken" : "linear");
    std::mt19937 rng(3);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    Matrix x(in.size(), batch), dy(in.size(), batch);
    for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = 2.0f + normal(rng);  // a mean away from 0
    for (Eigen::Index i = 0; i < dy.size(); ++i) dy.data()[i] = normal(rng);
    std::vector<Matrix> ys, dxs;
    std::vector<Vector> grads, states;
    for (int chunks : {1, 2, 3}) {
      BatchNorm bn(BatchNormOptions{}, "bn");
      auto bound = testing::bindStandalone(bn, in, 1);
      for (Eigen::Index i = 0; i < bound.params.size(); ++i)
        bound.params[i] += 0.1f * static_cast<float>(i % 5);
      if (relu) {
        ASSERT_TRUE(bn.takeFollowingActivation(Activation::ReLU));
      }
      PassContext ctx;
      ctx.training = true;
      ctx.chunks = chunks;
      ASSERT_EQ(chunksFor(ctx, x.size(), batch), chunks);  // the split is granted
      ys.push_back(bn.forward(x, ctx));
      dxs.push_back(bn.backward(x, dy, true, ctx));
      grads.push_back(bound.grads);
      states.push_back(bound.state);
      if (chunks != 1) continue;
      for (Eigen::Index ch = 0; ch < in.c; ++ch) {
        SCOPED_TRACE("channel " + std::to_string(ch));
        const auto at = [&](Eigen::Index s) { return x.col(s).segment(ch * p, p).cast<double>(); };
        double mean = 0, var = 0;
        for (Eigen::Index s = 0; s < batch; ++s) mean += at(s).sum();
        mean /= count;
        for (Eigen::Index s = 0; s < batch; ++s) var += (at(s).array() - mean).square().sum();
        var /= count;
        const double inv = 1.0 / std::sqrt(var + 1e-3), gamma = bound.params[ch],
                     beta = bound.params[in.c + ch];
        const auto xhat = [&](Eigen::Index s, Eigen::Index i) { return (x(ch * p + i, s) - mean) * inv; };
        const auto gy = [&](Eigen::Index s, Eigen::Index i) {  // the gradient before the ReLU
          return relu && !(ys[0](ch * p + i, s) > 0.0f) ? 0.0 : static_cast<double>(dy(ch * p + i, s));
        };
        double dGamma = 0, dBeta = 0;
        for (Eigen::Index s = 0; s < batch; ++s)
          for (Eigen::Index i = 0; i < p; ++i) {
            const double pre = gamma * xhat(s, i) + beta;
            ASSERT_NEAR(ys[0](ch * p + i, s), relu ? std::max(0.0, pre) : pre, 1e-4);
            dGamma += gy(s, i) * xhat(s, i);
            dBeta += gy(s, i);
          }
        EXPECT_NEAR(grads[0][ch], dGamma, 1e-3 * (1 + std::abs(dGamma)));
        EXPECT_NEAR(grads[0][in.c + ch], dBeta, 1e-3 * (1 + std::abs(dBeta)));
        // dx = gamma inv (gy - mean(gy) - xhat mean(gy xhat))
        for (Eigen::Index s = 0; s < batch; ++s)
          for (Eigen::Index i = 0; i < p; ++i)
            ASSERT_NEAR(dxs[0](ch * p + i, s),
                        gamma * inv * (gy(s, i) - dBeta / count - xhat(s, i) * dGamma / count), 1e-4);
        EXPECT_NEAR(states[0][ch], 0.01 * mean, 1e-6);  // Keras' momentum 0.99 from a running mean of 0
        EXPECT_NEAR(states[0][in.c + ch], 0.99 + 0.01 * var * count / (count - 1), 1e-5);  // unbiased, from 1
      }
    }
    for (std::size_t i : {1u, 2u}) {
      EXPECT_TRUE(ys[0] == ys[i]);
      EXPECT_TRUE(dxs[0] == dxs[i]);
      EXPECT_TRUE(grads[0] == grads[i]);
      EXPECT_TRUE(states[0] == states[i]);
    }
  }
}

}  // namespace
}  // namespace core::nn
