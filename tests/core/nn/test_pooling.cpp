// Max pooling: gradients, the 2 x 2 pass on every kernel set, the activation gradient it takes
// from the convolution before it, and a direct convolution feeding it.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>

#include "core/nn/activation.h"
#include "core/nn/composite.h"
#include "core/nn/conv2d.h"
#include "core/nn/gemm.h"
#include "core/nn/pooling.h"
#include "core/util/precision.h"
#include "grad_check.h"
#include "layer_fixtures.h"

namespace core::nn {
namespace {

using testing::conv;
using testing::expectGradientsMatch;
using testing::GradCheckOptions;
using testing::IsaLimitGuard;
using testing::kinked;

// 2 x 2 / 2 max pool with nothing padded before gives each window's maximum, a window over the
// edge (odd sizes under 'same') the maximum of the pixels it covers.
void expectTwoByTwoMaxima(MaxPool2D& pool, Shape in) {
  const testing::BoundLayer bound = testing::bindStandalone(pool, in, 1);  // kept while the layer runs
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Matrix x(in.size(), 2);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = normal(rng);
  PassContext ctx;
  const Matrix& y = pool.forward(x, ctx);
  const Shape out = pool.outShape();
  for (Eigen::Index s = 0; s < x.cols(); ++s)
    for (int c = 0; c < out.c; ++c)
      for (int oy = 0; oy < out.h; ++oy)
        for (int ox = 0; ox < out.w; ++ox) {
          float want = -std::numeric_limits<float>::infinity();
          for (int yy = 2 * oy; yy < std::min(2 * oy + 2, in.h); ++yy)
            for (int xx = 2 * ox; xx < std::min(2 * ox + 2, in.w); ++xx)
              want = std::max(want, x(static_cast<Eigen::Index>((c * in.h + yy) * in.w + xx), s));
          ASSERT_EQ(y((c * out.h + oy) * out.w + ox, s), want)
              << "sample " << s << " channel " << c << " (" << oy << ", " << ox << ")";
        }
}

// Max pooling's 2 x 2 pass is chosen at run time as well: every set the CPU has computes the same
// gradients and maxima; a pool row of 18 ends in a partial vector.
TEST(Gradients, MaxPoolingOnEveryKernelSetTheCpuHas) {
  const IsaLimitGuard guard;
  for (GemmIsa isa : {GemmIsa::Portable, GemmIsa::Avx2, GemmIsa::Avx512}) {
    if (isa > detectedGemmIsa()) continue;
    limitGemmIsa(isa);
    SCOPED_TRACE(gemmIsaName(isa));
    MaxPool2D pool(PoolOptions{2, 2, 0, 0, Padding::valid()}, "max2");
    expectGradientsMatch(pool, {2, 4, 37}, kinked());
    expectTwoByTwoMaxima(pool, {2, 4, 37});
    MaxPool2D same(PoolOptions{2, 2, 0, 0, Padding::same()}, "max2_same");  // the last windows cut
    expectTwoByTwoMaxima(same, {2, 5, 35});
  }
}

TEST(Gradients, Pooling) {
  MaxPool2D max2(PoolOptions{2, 2, 0, 0, Padding::valid()}, "max2");
  expectGradientsMatch(max2, {3, 6, 7}, kinked());  // odd width: the last column is dropped
  MaxPool2D max3same(PoolOptions{3, 3, 2, 2, Padding::same()}, "max3_same");
  expectGradientsMatch(max3same, {2, 7, 8}, kinked());
  // 2 x 2 / 2 'same' on odd sizes: the last row's and column's windows hang over the edge by one
  // pixel of padding (nothing before), which the 2 x 2 fast path must not read as the next row.
  MaxPool2D max2same(PoolOptions{2, 2, 0, 0, Padding::same()}, "max2_same");
  expectGradientsMatch(max2same, {3, 5, 7}, kinked());
  expectTwoByTwoMaxima(max2same, {3, 5, 7});
  MaxPool2D max3pad(PoolOptions{3, 3, 2, 2, Padding::explicitPad(1, 1)}, "max3_pad1");
  expectGradientsMatch(max3pad, {2, 6, 6}, kinked());
  AvgPool2D avgSame(PoolOptions{3, 3, 1, 1, Padding::same()}, "avg3_same");
  expectGradientsMatch(avgSame, {2, 5, 4});
  AvgPool2D avg2(PoolOptions{2, 2, 0, 0, Padding::valid()}, "avg2");
  expectGradientsMatch(avg2, {2, 4, 6});
  GlobalAvgPool gapPixels(GlobalAvgPool::Over::Pixels, "gap");
  expectGradientsMatch(gapPixels, {4, 3, 5});
  GlobalAvgPool gapSteps(GlobalAvgPool::Over::Steps, "gap_steps");
  expectGradientsMatch(gapSteps, {6, 5, 1});
}

// A max pool applies the activation of the convolution before it in the backward pass, at the
// windows' maxima only (the convolution then takes its output gradient as it comes): gradients
// through both, pools that tile (2 x 2, an odd size leaving a column out) and overlap (3 x 3 / 2);
// and the pool's input gradient is dy f'(y) at each maximum, as the convolution's own pass gave.
// The 2 x 2 pool's vector passes store whole vectors past a row's end where the sample has room
// (what they spill is written again after it): every output and input gradient must still be
// the one routed by hand, on every kernel set, for widths around a vector (odd ones leave a
// column out, odd heights a row), the ReLU's gradient taken or not, after a first pass on other
// values left the buffers full of them.
TEST(Gradients, MaxPoolTwoByTwoWritesEveryValueOnEveryKernelSet) {
  const IsaLimitGuard guard;
  for (GemmIsa isa : {GemmIsa::Portable, GemmIsa::Avx512}) {
    if (isa > detectedGemmIsa()) continue;
    limitGemmIsa(isa);
    for (const Activation taken : {Activation::Linear, Activation::ReLU})
      for (const int w : {2, 3, 32, 33, 34, 65})
        for (const int h : {2, 5}) {
          SCOPED_TRACE(std::string(gemmIsaName(isa)) + ", " + activationName(taken) + ", " +
                       std::to_string(h) + " x " + std::to_string(w));
          MaxPool2D pool(PoolOptions{2, 2, 0, 0, Padding::valid()}, "max2");
          pool.takePrecedingActivationGradient(taken);
          const Shape in{3, h, w};
          const testing::BoundLayer bound =
              testing::bindStandalone(pool, in, 1);  // kept while the layer runs
          const Shape out = pool.outShape();
          PassContext ctx;
          ctx.training = true;
          constexpr Eigen::Index kBatch = 3;
          Matrix x = Matrix::Constant(in.size(), kBatch, 7.0f),
                 dy = Matrix::Constant(out.size(), kBatch, 1e6f);
          pool.forward(x, ctx);
          pool.backward(x, dy, true, ctx);  // the buffers now hold this pass's values
          std::mt19937 rng(11);
          std::normal_distribution<float> normal(0.0f, 1.0f);
          for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = normal(rng);
          for (Eigen::Index i = 0; i < dy.size(); ++i) dy.data()[i] = normal(rng);
          const Matrix y = pool.forward(x, ctx);
          const Matrix& dx = pool.backward(x, dy, true, ctx);
          Matrix wantY(out.size(), kBatch), wantDx = Matrix::Zero(in.size(), kBatch);
          for (Eigen::Index s = 0; s < kBatch; ++s)
            for (int c = 0; c < in.c; ++c)
              for (int oy = 0; oy < out.h; ++oy)
                for (int ox = 0; ox < out.w; ++ox) {
                  Eigen::Index best = -1;
                  for (int yy = 2 * oy; yy < 2 * oy + 2; ++yy)
                    for (int xx = 2 * ox; xx < 2 * ox + 2; ++xx) {
                      const Eigen::Index at = (static_cast<Eigen::Index>(c) * in.h + yy) * in.w + xx;
                      if (best < 0 || x(at, s) > x(best, s)) best = at;
                    }
                  const Eigen::Index o = (static_cast<Eigen::Index>(c) * out.h + oy) * out.w + ox;
                  wantY(o, s) = x(best, s);
                  wantDx(best, s) = activationGradientAt(taken, x(best, s), dy(o, s));
                }
          ASSERT_EQ(y, wantY);
          ASSERT_EQ(dx, wantDx);
        }
  }
}

TEST(Gradients, MaxPoolTakesTheActivationGradientOfTheConvolutionBeforeIt) {
  for (Activation a : {Activation::ELU, Activation::Tanh, Activation::Sigmoid, Activation::ReLU}) {
    for (bool overlap : {false, true}) {
      SCOPED_TRACE(std::string(activationName(a)) + (overlap ? ", 3x3/2 pool" : ", 2x2 pool"));
      // Patch GEMMs: a direct convolution would pool its output itself (the next test), and the
      // pool's own routing is what is checked here.
      Sequential s("conv_pool");
      s.add(conv(4, 3, 3, 1, Padding::same(), a, true, ConvAlgorithm::Gemm));
      s.add(std::make_unique<MaxPool2D>(overlap ? PoolOptions{3, 3, 2, 2, Padding::same()} : PoolOptions{},
                                        "pool"));
      // A weight moves every output, so a coarse step swaps some window's maximum: a finer one.
      GradCheckOptions o = kinked();
      o.step = 2e-4f;
      expectGradientsMatch(s, {3, 7, 9}, o);

      const testing::BoundLayer bound =
          testing::bindStandalone(s, {3, 7, 9}, 1);  // kept while the layers run
      std::mt19937 rng(5);
      std::normal_distribution<float> normal(0.0f, 1.0f);
      Matrix x(3 * 7 * 9, 2);
      for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = normal(rng);
      PassContext ctx;
      ctx.training = true;
      const Matrix y = s.child(0).forward(x, ctx);  // the convolution's output: the pool's input
      const Matrix& pooled = s.child(1).forward(y, ctx);
      Matrix dy(pooled.rows(), pooled.cols());
      for (Eigen::Index i = 0; i < dy.size(); ++i) dy.data()[i] = normal(rng);
      const Matrix& dx = s.child(1).backward(y, dy, true, ctx);
      // Routed by hand: each output's gradient to its window's first maximum (windows clipped to
      // the image; 'same' pads 7 x 9 by one before for 3 x 3 / 2), summed, then f'.
      const Shape in{4, 7, 9}, out = s.child(1).outShape();
      const int k = overlap ? 3 : 2, before = overlap ? 1 : 0;
      Matrix want = Matrix::Zero(y.rows(), y.cols());
      for (Eigen::Index smp = 0; smp < y.cols(); ++smp)
        for (int c = 0; c < in.c; ++c)
          for (int oy = 0; oy < out.h; ++oy)
            for (int ox = 0; ox < out.w; ++ox) {
              Eigen::Index best = -1;
              for (int yy = std::max(0, 2 * oy - before); yy < std::min(in.h, 2 * oy - before + k); ++yy)
                for (int xx = std::max(0, 2 * ox - before); xx < std::min(in.w, 2 * ox - before + k); ++xx) {
                  const Eigen::Index at = (static_cast<Eigen::Index>(c) * in.h + yy) * in.w + xx;
                  if (best < 0 || y(at, smp) > y(best, smp)) best = at;
                }
              want(best, smp) += dy((static_cast<Eigen::Index>(c) * out.h + oy) * out.w + ox, smp);
            }
      activationGradient(a, y.data(), want.data(), want.data(), want.size());
      ASSERT_GT((want.array() != 0.0f).count(), 0);
      if (!overlap)
        EXPECT_EQ(dx, want);  // each input one window's: the same products
      else  // an input that is the maximum of two windows: dy1 f' + dy2 f' against (dy1 + dy2) f'
        EXPECT_LT((dx - want).cwiseAbs().maxCoeff(), 1e-6f * (1.0f + want.cwiseAbs().maxCoeff()));
    }
  }
}

// A direct convolution followed by max pooling pools its output a few samples at a time as it
// computes it, and routes the pooled gradient back itself: the same outputs and gradients as the
// two layers apart (in two containers, so neither takes the other), on every kernel set, in fp32
// and bf16, with batches that leave a short group and a short chunk.
TEST(Gradients, ConvolutionFeedingMaxPoolingMatchesTheTwoApart) {
  struct Case {
    Shape in;
    int filters, k;
    Padding pad;
    Activation act;
    PoolOptions pool;
  };
  const Case cases[] = {
      {{6, 14, 14}, 16, 5, Padding::valid(), Activation::ReLU, PoolOptions{}},  // LeNet's second: filters as
                                                                                // lanes
      {{1, 28, 28}, 6, 5, Padding::explicitPad(2, 2), Activation::ReLU, PoolOptions{}},  // LeNet's first
      {{3, 7, 9}, 4, 3, Padding::same(), Activation::ELU, PoolOptions{}},  // odd sides: a column left out
      {{3, 7, 9},
       4,
       3,
       Padding::same(),
       Activation::Tanh,
       PoolOptions{3, 3, 2, 2, Padding::same()}},  // overlapping
      {{2, 8, 8}, 5, 3, Padding::valid(), Activation::Linear, PoolOptions{}},
      {{2, 8, 8}, 5, 3, Padding::valid(), Activation::Sigmoid, PoolOptions{}},
  };
  IsaLimitGuard guard;
  for (GemmIsa isa : {GemmIsa::Portable, GemmIsa::Avx2, GemmIsa::Avx512, GemmIsa::Avx512Bf16}) {
    if (isa > detectedGemmIsa()) continue;
    limitGemmIsa(isa);
    for (util::Precision precision : {util::Precision::FP32, util::Precision::BF16})
      for (const Case& c : cases)
        // 33: two groups a chunk where a group holds 10 samples (LeNet's second), so the weight
        // gradient accumulates across groups on the filters-as-lanes kernels too.
        for (Eigen::Index batch : {Eigen::Index{1}, Eigen::Index{9}, Eigen::Index{33}}) {
          SCOPED_TRACE(std::string(gemmIsaName(isa)) + " " + util::precisionName(precision) + " " +
                       std::to_string(c.in.c) + "x" + std::to_string(c.in.h) + "x" + std::to_string(c.in.w) +
                       " batch " + std::to_string(batch));
          Sequential fed("fed");
          fed.add(conv(c.filters, c.k, c.k, 1, c.pad, c.act, true, ConvAlgorithm::Direct));
          fed.add(std::make_unique<MaxPool2D>(c.pool, "pool"));
          Sequential apart("apart");
          auto inner = std::make_unique<Sequential>("conv_alone");
          inner->add(conv(c.filters, c.k, c.k, 1, c.pad, c.act, true, ConvAlgorithm::Direct));
          apart.add(std::move(inner));
          apart.add(std::make_unique<MaxPool2D>(c.pool, "pool"));
          testing::BoundLayer a = testing::bindStandalone(fed, c.in, 3);
          testing::BoundLayer b = testing::bindStandalone(apart, c.in, 3);
          b.params = a.params;
          std::mt19937 rng(11);
          std::normal_distribution<float> normal(0.0f, 1.0f);
          Matrix x(c.in.size(), batch);
          for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = normal(rng);
          PassContext ctx;
          ctx.training = true;
          ctx.chunks = 2;
          ctx.precision = precision;
          // Fed indeed: the convolution keeps no output of its own.
          EXPECT_EQ(fed.child(0).forward(x, ctx).size(), 0);
          const Matrix y = fed.forward(x, ctx);
          const Matrix want = apart.forward(x, ctx);
          ASSERT_EQ(y.rows(), want.rows());
          ASSERT_EQ(y.cols(), batch);
          EXPECT_EQ(y, want);
          Matrix dy(y.rows(), y.cols());
          for (Eigen::Index i = 0; i < dy.size(); ++i) dy.data()[i] = normal(rng);
          const Matrix dx = fed.backward(x, dy, true, ctx);
          const Matrix wantDx = apart.backward(x, dy, true, ctx);
          ASSERT_EQ(dx.rows(), wantDx.rows());
          const float tol = 1e-5f * (1.0f + wantDx.cwiseAbs().maxCoeff());
          EXPECT_LT((dx - wantDx).cwiseAbs().maxCoeff(), tol);
          // The weight and bias gradients: the same sums, grouped differently.
          EXPECT_LT((a.grads - b.grads).cwiseAbs().maxCoeff(),
                    1e-4f * (1.0f + b.grads.cwiseAbs().maxCoeff()));
          ASSERT_GT(b.grads.cwiseAbs().maxCoeff(), 0.0f);
        }
  }
}

}  // namespace
}  // namespace core::nn
