// Finite-difference gradient checks for every layer type (inputs and parameters).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/nn/activation.h"
#include "core/nn/batch_norm.h"
#include "core/nn/composite.h"
#include "core/nn/conv2d.h"
#include "core/nn/conv_gemm.h"
#include "core/nn/dense.h"
#include "core/nn/depthwise_conv2d.h"
#include "core/nn/direct_conv.h"
#include "core/nn/dropout.h"
#include "core/nn/embedding.h"
#include "core/nn/gemm.h"
#include "core/nn/lstm.h"
#include "core/nn/pooling.h"
#include "core/nn/shape_layers.h"
#include "core/nn/simd_regions.h"
#include "grad_check.h"
#include "layer_fixtures.h"

namespace core::nn {
namespace {

using testing::conv;
using testing::expectGradientsMatch;
using testing::GradCheckOptions;
using testing::IsaLimitGuard;
using testing::kinked;

TEST(Gradients, DenseWithEveryActivation) {
  for (Activation a : {Activation::Linear, Activation::ELU, Activation::Tanh, Activation::Sigmoid}) {
    Dense d(DenseOptions{5, a, true, Init::GlorotUniform}, std::string("dense_") + activationName(a));
    expectGradientsMatch(d, {7, 1, 1});
  }
  Dense relu(DenseOptions{6, Activation::ReLU, true, Init::TorchDefault}, "dense_relu");
  expectGradientsMatch(relu, {2, 3, 2}, kinked());  // any input shape is read as a vector
  Dense noBias(DenseOptions{4, Activation::Tanh, false, Init::GlorotUniform}, "dense_nobias");
  expectGradientsMatch(noBias, {5, 1, 1});
}

TEST(Gradients, Conv2DValidSameExplicitStridedAndRectangular) {
  // Both algorithms (implicit GEMM and direct) where the direct one applies (stride 1).
  for (ConvAlgorithm a : {ConvAlgorithm::Gemm, ConvAlgorithm::Direct}) {
    SCOPED_TRACE(a == ConvAlgorithm::Gemm ? "gemm" : "direct");
    expectGradientsMatch(*conv(3, 3, 3, 1, Padding::valid(), Activation::Tanh, true, a), {2, 6, 5});
    expectGradientsMatch(*conv(2, 5, 5, 1, Padding::explicitPad(2, 2), Activation::Linear, true, a), {1, 6, 6});
    expectGradientsMatch(*conv(3, 1, 3, 1, Padding::same(), Activation::Sigmoid, false, a), {2, 4, 5});
    expectGradientsMatch(*conv(3, 4, 4, 1, Padding::same(), Activation::ELU, true, a), {2, 5, 6});  // asymmetric padding
    expectGradientsMatch(*conv(20, 3, 3, 1, Padding::same(), Activation::Tanh, true, a), {17, 5, 19});  // wide rows
  }
  expectGradientsMatch(*conv(4, 3, 3, 2, Padding::same(), Activation::ELU), {3, 7, 6});  // TF asymmetric padding
  expectGradientsMatch(*conv(3, 3, 1, 2, Padding::valid(), Activation::ReLU), {2, 7, 5}, kinked());
  expectGradientsMatch(*conv(4, 7, 7, 2, Padding::explicitPad(3, 3), Activation::Linear, false), {3, 9, 9});
}

// The direct convolution's kernels are chosen at run time (AVX-512, AVX2, portable lanes): each
// set the CPU has computes the same gradients. Widths with a whole and a partial row segment
// for 16 and 8 lanes, an odd height (a single last row), a filter group of 8 and a remainder.
TEST(Gradients, Conv2DDirectOnEveryKernelSetTheCpuHas) {
  const GemmIsa was = limitGemmIsa(GemmIsa::Amx);
  for (GemmIsa isa : {GemmIsa::Portable, GemmIsa::Avx2, GemmIsa::Avx512}) {
    if (isa > detectedGemmIsa()) continue;
    limitGemmIsa(isa);
    SCOPED_TRACE(gemmIsaName(isa));
    EXPECT_STREQ(simdLanesName(simdLanes()), ACCELLAB_SIMD_REGIONS ? gemmIsaName(isa) : "portable");  // Clang: portable
    expectGradientsMatch(*conv(3, 3, 3, 1, Padding::same(), Activation::Tanh, true, ConvAlgorithm::Direct), {2, 5, 21});
    expectGradientsMatch(*conv(9, 5, 5, 1, Padding::valid(), Activation::Linear, true, ConvAlgorithm::Direct), {1, 9, 11});
  }
  limitGemmIsa(was);
}

// Where whole vectors of filters meet rows that fill few lanes (LeNet's second convolution: 16
// filters, rows of 10 pixels), the direct kernels take the filters as lanes: the same
// convolution as the GEMM's, forward, input gradient and weight gradient, on every kernel set.
TEST(Gradients, Conv2DDirectWithFiltersAsLanesMatchesGemm) {
  const IsaLimitGuard guard;
  struct Case {
    int filters, kernel;
    Padding padding;
    Shape in;
  };
  // LeNet's conv2; two vectors of filters (four on AVX2); a row of 3 under padding; rows of 17 (a
  // segment of 12 pixels and one of 5) with 16 input channels, so the input gradient's transposed
  // convolution takes filters as lanes too.
  const Case cases[] = {{16, 5, Padding::valid(), {6, 14, 14}},
                        {32, 3, Padding::same(), {3, 7, 10}},
                        {16, 5, Padding::explicitPad(2, 2), {2, 9, 3}},
                        {16, 3, Padding::same(), {16, 4, 17}}};
  for (GemmIsa isa : {GemmIsa::Portable, GemmIsa::Avx2, GemmIsa::Avx512}) {
    if (isa > detectedGemmIsa()) continue;
    limitGemmIsa(isa);
    SCOPED_TRACE(gemmIsaName(isa));
    for (const Case& c : cases) {
      SCOPED_TRACE(c.filters * 100 + c.kernel);
      auto d =
          conv(c.filters, c.kernel, c.kernel, 1, c.padding, Activation::ReLU, true, ConvAlgorithm::Direct);
      auto g = conv(c.filters, c.kernel, c.kernel, 1, c.padding, Activation::ReLU, true, ConvAlgorithm::Gemm);
      testing::BoundLayer bd = testing::bindStandalone(*d, c.in, 4),
                          bg = testing::bindStandalone(*g, c.in, 4);
      ASSERT_EQ(d->algorithm(), ConvAlgorithm::Direct);
      bg.params = bd.params;
      const Matrix x = Matrix::Random(c.in.size(), 5), dy = Matrix::Random(d->outShape().size(), 5);
      PassContext ctx;
      ctx.training = true;
      ctx.chunks = 2;
      const Matrix yd = d->forward(x, ctx), yg = g->forward(x, ctx);
      EXPECT_LT((yd - yg).cwiseAbs().maxCoeff(), 1e-5f * (1 + yg.cwiseAbs().maxCoeff()));
      const Matrix dxd = d->backward(x, dy, true, ctx), dxg = g->backward(x, dy, true, ctx);
      EXPECT_LT((dxd - dxg).cwiseAbs().maxCoeff(), 1e-5f * (1 + dxg.cwiseAbs().maxCoeff()));
      EXPECT_LT((bd.grads - bg.grads).cwiseAbs().maxCoeff(), 1e-5f * (1 + bg.grads.cwiseAbs().maxCoeff()));
      EXPECT_GT(bg.grads.cwiseAbs().maxCoeff(), 0.1f);  // a gradient to compare
    }
  }
}

// The direct weight gradient overwrites dW unless told to accumulate, and accumulating sample
// ranges in turn gives the sum over all of them: with filters as lanes (16 filters on rows of 10)
// and without (6 filters), on every kernel set.
TEST(Gradients, DirectWeightGradientAccumulatesAcrossCalls) {
  const IsaLimitGuard guard;
  ConvGeometry g;
  g.channels = 6;
  g.height = g.width = 14;
  g.kernelH = g.kernelW = 5;
  g.outH = g.outW = 10;
  const ConvPlan plan(g);
  const int samples = 4;
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> padded(static_cast<std::size_t>(plan.paddedSize() * samples));
  for (float& v : padded) v = normal(rng);
  for (GemmIsa isa : {GemmIsa::Portable, GemmIsa::Avx2, GemmIsa::Avx512}) {
    if (isa > detectedGemmIsa()) continue;
    limitGemmIsa(isa);
    SCOPED_TRACE(gemmIsaName(isa));
    for (int filters : {16, 6}) {
      SCOPED_TRACE(filters);
      std::vector<float> gy(static_cast<std::size_t>(filters * g.outPixels() * samples));
      for (float& v : gy) v = normal(rng);
      const std::size_t n = static_cast<std::size_t>(filters * g.patchSize());
      std::vector<float> all(n, 7.0f), split(n, -3.0f);  // what was there: overwritten
      directConvWeightGradient(plan, padded.data(), samples, gy.data(), filters, all.data(), false);
      directConvWeightGradient(plan, padded.data(), 2, gy.data(), filters, split.data(), false);
      directConvWeightGradient(plan, padded.data() + 2 * plan.paddedSize(), 2,
                               gy.data() + 2 * filters * g.outPixels(), filters, split.data(), true);
      float largest = 0, worst = 0;
      for (std::size_t i = 0; i < n; ++i) {
        largest = std::max(largest, std::abs(all[i]));
        worst = std::max(worst, std::abs(all[i] - split[i]));
      }
      EXPECT_GT(largest, 1.0f);
      EXPECT_LT(worst, 1e-5f * largest);
    }
  }
}

// A gradient check accepts any function routed consistently, so the values are checked too: a
// The patch packers of the implicit-GEMM convolution (masked runs at stride 1, every other value
// of a run at stride 2, runs transposed in registers for the weight gradient's columns, gathers
// elsewhere) and its stride-2 scatter of patch gradients are chosen at run time as well: every set
// the CPU has computes the same gradients. Rows longer than one vector (19 output columns; 11 and
// 19 at stride 2, past the 8 the column runs need and past one vector) end in a partial one
// (max pooling's pass: test_pooling.cpp).
TEST(Gradients, ConvPatchesOnEveryKernelSetTheCpuHas) {
  const IsaLimitGuard guard;
  for (GemmIsa isa : {GemmIsa::Portable, GemmIsa::Avx2, GemmIsa::Avx512}) {
    if (isa > detectedGemmIsa()) continue;
    limitGemmIsa(isa);
    SCOPED_TRACE(gemmIsaName(isa));
    expectGradientsMatch(*conv(5, 3, 3, 1, Padding::same(), Activation::Tanh, true, ConvAlgorithm::Gemm), {3, 4, 19});
    expectGradientsMatch(*conv(4, 3, 3, 2, Padding::same(), Activation::ELU, true, ConvAlgorithm::Gemm), {3, 7, 21});
    expectGradientsMatch(*conv(3, 3, 3, 2, Padding::same(), Activation::Tanh, true, ConvAlgorithm::Gemm),
                         {2, 5, 37});
  }
}

// The padded copy a convolution reads: the input inside, zeros around it, rows the windows do not
// reach left out; on every kernel set, nothing written past the samples asked for.
TEST(Gradients, PaddedImagesHoldTheInputInsideZerosAroundIt) {
  struct Case {
    ConvGeometry g;
    const char* what;
  };
  const Case cases[] = {
      {{1, 28, 28, 5, 5, 1, 1, 2, 2, 28, 28}, "LeNet's first: 32 wide"},
      {{16, 10, 10, 5, 5, 1, 1, 4, 4, 14, 14}, "a transposed 5x5 input gradient: 18 wide"},
      {{3, 7, 37, 3, 3, 1, 1, 1, 1, 7, 37}, "39 wide: three vectors"},
      {{2, 9, 9, 2, 2, 2, 2, 0, 0, 4, 4}, "stride 2, valid: the last row and column cropped"},
      {{2, 6, 20, 3, 3, 1, 1, 2, 17, 8, 35}, "a row starting past its first vector"},
  };
  IsaLimitGuard guard;
  for (GemmIsa isa : {GemmIsa::Portable, GemmIsa::Avx2, GemmIsa::Avx512}) {
    if (isa > detectedGemmIsa()) continue;
    limitGemmIsa(isa);
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(gemmIsaName(isa)) + ": " + c.what);
      const ConvPlan plan(c.g);
      const int samples = 3, asked = 2;  // the third sample's place must stay untouched
      // Exactly the samples asked for: a load past them reads outside the vector (ASan).
      std::vector<float> images(static_cast<std::size_t>(asked * c.g.inSize()));
      for (std::size_t i = 0; i < images.size(); ++i) images[i] = 1.0f + static_cast<float>(i);
      const float untouched = -7.0f;
      std::vector<float> padded(static_cast<std::size_t>(samples * plan.paddedSize()), untouched);
      padImages(plan, images.data(), asked, padded.data());
      for (int smp = 0; smp < samples; ++smp)
        for (int ch = 0; ch < c.g.channels; ++ch)
          for (int y = 0; y < plan.paddedH; ++y)
            for (int x = 0; x < plan.paddedW; ++x) {
              const int iy = y - c.g.padTop, ix = x - c.g.padLeft;
              const bool inside = iy >= 0 && iy < c.g.height && ix >= 0 && ix < c.g.width;
              const float want = smp >= asked ? untouched
                                 : inside     ? images[static_cast<std::size_t>(
                                                smp * c.g.inSize() + (ch * c.g.height + iy) * c.g.width + ix)]
                                              : 0.0f;
              const std::size_t at = static_cast<std::size_t>(smp * plan.paddedSize() +
                                                              (ch * plan.paddedH + y) * plan.paddedW + x);
              ASSERT_EQ(padded[at], want)
                  << "sample " << smp << " channel " << ch << " row " << y << " column " << x;
            }
    }
  }
}

// The Winograd tile transforms are chosen at run time too: every set the CPU has computes the
// same gradients; 16 input channels take the channel-last copy's transposed blocks.
TEST(Gradients, Conv2DWinogradOnEveryKernelSetTheCpuHas) {
  const GemmIsa was = limitGemmIsa(GemmIsa::Amx);
  GradCheckOptions o;
  o.batch = 2;
  for (GemmIsa isa : {GemmIsa::Portable, GemmIsa::Avx2, GemmIsa::Avx512}) {
    if (isa > detectedGemmIsa()) continue;
    limitGemmIsa(isa);
    SCOPED_TRACE(gemmIsaName(isa));
    expectGradientsMatch(*conv(4, 3, 3, 1, Padding::same(), Activation::ELU, true, ConvAlgorithm::Winograd), {16, 5, 7}, o);
    expectGradientsMatch(*conv(3, 5, 5, 1, Padding::valid(), Activation::Tanh, true, ConvAlgorithm::Winograd), {2, 9, 8}, o);
  }
  limitGemmIsa(was);
}

TEST(Gradients, Conv2DWinograd) {
  GradCheckOptions o;
  o.batch = 3;
  for (int r : {3, 5}) {
    SCOPED_TRACE(r);
    expectGradientsMatch(*conv(4, r, r, 1, Padding::same(), Activation::ELU, true, ConvAlgorithm::Winograd), {3, 7, 6}, o);
    expectGradientsMatch(*conv(3, r, r, 1, Padding::valid(), Activation::Tanh, false, ConvAlgorithm::Winograd), {2, 9, 8}, o);
    expectGradientsMatch(*conv(5, r, r, 1, Padding::explicitPad(1, 1), Activation::Linear, true, ConvAlgorithm::Winograd),
                         {4, 6, 7}, o);
  }
  // More tiles than one GEMM block (32): 3 samples x 4 x 4 tiles of F(4, 3).
  o.probes = 12;
  expectGradientsMatch(*conv(6, 3, 3, 1, Padding::same(), Activation::Tanh, true, ConvAlgorithm::Winograd), {5, 16, 16}, o);
}

TEST(Gradients, Conv2DWinogradMatchesGemm) {
  for (int r : {3, 5}) {
    auto w = conv(20, r, r, 1, Padding::same(), Activation::Linear, true, ConvAlgorithm::Winograd);
    auto g = conv(20, r, r, 1, Padding::same(), Activation::Linear, true, ConvAlgorithm::Gemm);
    const Shape in{17, 11, 13};
    testing::BoundLayer bw = testing::bindStandalone(*w, in, 4), bg = testing::bindStandalone(*g, in, 4);
    EXPECT_EQ(w->algorithm(), ConvAlgorithm::Winograd);
    EXPECT_EQ(g->algorithm(), ConvAlgorithm::Gemm);
    bg.params = bw.params;
    const Matrix x = Matrix::Random(in.size(), 5), dy = Matrix::Random(w->outShape().size(), 5);
    PassContext ctx;
    ctx.training = true;
    ctx.chunks = 2;
    const Matrix yw = w->forward(x, ctx), yg = g->forward(x, ctx);
    EXPECT_LT((yw - yg).cwiseAbs().maxCoeff(), 1e-4f * (1 + yg.cwiseAbs().maxCoeff()));
    const Matrix dxw = w->backward(x, dy, true, ctx), dxg = g->backward(x, dy, true, ctx);
    EXPECT_LT((dxw - dxg).cwiseAbs().maxCoeff(), 1e-4f * (1 + dxg.cwiseAbs().maxCoeff()));
    EXPECT_LT((bw.grads - bg.grads).cwiseAbs().maxCoeff(), 1e-4f * (1 + bg.grads.cwiseAbs().maxCoeff()));
  }
}

TEST(Gradients, Conv2DAcrossSeveralGemmBlocks) {
  // 16 x 32 x 32 input: 1024 output pixels per sample, so the GEMMs span several row blocks
  // and depth panels of pixels.
  GradCheckOptions o;
  o.batch = 5;
  o.probes = 12;
  expectGradientsMatch(*conv(8, 3, 3, 1, Padding::same(), Activation::Tanh), {16, 32, 32}, o);
  // 48 channels x 3 x 3 = 432 taps: the forward GEMM accumulates two depth panels.
  expectGradientsMatch(*conv(5, 3, 3, 1, Padding::same(), Activation::ELU), {48, 5, 5}, o);
  // 400 filters: the input-gradient GEMM accumulates two depth panels.
  expectGradientsMatch(*conv(400, 1, 1, 1, Padding::valid(), Activation::Linear), {3, 3, 2}, o);
}

TEST(Gradients, DepthwiseConv2D) {
  DepthwiseConv2DOptions o;
  DepthwiseConv2D same(o, "depthwise_same");
  expectGradientsMatch(same, {3, 5, 6});
  o.strideH = o.strideW = 2;
  o.bias = true;
  o.padding = Padding::valid();
  DepthwiseConv2D strided(o, "depthwise_strided");
  expectGradientsMatch(strided, {2, 7, 7});
}

TEST(Gradients, BatchNormTrainingMode) {
  BatchNorm images(BatchNormOptions{}, "bn_images");
  GradCheckOptions o;
  o.batch = 4;
  expectGradientsMatch(images, {3, 4, 5}, o);
  BatchNorm vectors(BatchNormOptions{1e-5f, 0.9f, true, true}, "bn_vectors");
  expectGradientsMatch(vectors, {6, 1, 1}, o);
  BatchNorm centerOnly(BatchNormOptions{1e-3f, 0.99f, false, true}, "bn_center_only");
  expectGradientsMatch(centerOnly, {2, 3, 3}, o);
}

TEST(Gradients, ActivationLayers) {
  for (Activation a : {Activation::ELU, Activation::Tanh, Activation::Sigmoid}) {
    ActivationLayer l(a, activationName(a));
    expectGradientsMatch(l, {3, 4, 2});
  }
  ActivationLayer relu(Activation::ReLU, "relu");
  expectGradientsMatch(relu, {3, 4, 2}, kinked());
}

TEST(Gradients, DropoutFlattenAndPadShortcut) {
  Dropout drop(0.4f, "dropout");
  expectGradientsMatch(drop, {5, 3, 2});
  Flatten flat("flatten");
  expectGradientsMatch(flat, {2, 3, 4});
  PadShortcut pad(6, "pad_shortcut");
  expectGradientsMatch(pad, {2, 5, 4});
}

TEST(Gradients, EmbeddingTable) {
  Embedding emb(7, 4, "embedding");
  GradCheckOptions o;
  o.checkInput = false;  // token ids
  o.batch = 4;
  o.input = [](std::mt19937& rng, Eigen::Index) { return static_cast<float>(std::uniform_int_distribution<int>(0, 6)(rng)); };
  expectGradientsMatch(emb, {1, 5, 1}, o);
}

TEST(Gradients, LstmOneAndTwoDirections) {
  GradCheckOptions o;
  o.batch = 3;
  LSTM one(5, 1, "lstm");
  expectGradientsMatch(one, {3, 4, 1}, o);
  LSTM two(4, 2, "bilstm");
  expectGradientsMatch(two, {3, 5, 1}, o);
}

// A ReLU layer after a BatchNorm is taken by it (one pass over the data each way): the pair's
// values are the ReLU of the normalised input, its gradients match numerical ones through the
// kink-free region, and another activation (Tanh) is left as a layer of its own.
TEST(Gradients, BatchNormTakesTheReluAfterIt) {
  Sequential fused("bn_relu");
  fused.add(std::make_unique<BatchNorm>(BatchNormOptions{}, "bn"));
  fused.add(std::make_unique<ActivationLayer>(Activation::ReLU, "relu"));
  GradCheckOptions o = kinked();
  o.batch = 4;
  expectGradientsMatch(fused, {3, 4, 5}, o);
  const auto& relu = dynamic_cast<const ActivationLayer&>(fused.child(1));
  EXPECT_TRUE(relu.taken());

  BatchNorm alone(BatchNormOptions{}, "bn_alone");
  const testing::BoundLayer aloneBound = testing::bindStandalone(alone, {3, 4, 5}, 1);  // its parameters, kept
  testing::BoundLayer b = testing::bindStandalone(fused, {3, 4, 5}, 1);
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Matrix x(3 * 4 * 5, 4);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = normal(rng);
  const auto reluOf = [](float v) { return v > 0.0f ? v : 0.0f; };  // the ReLU layer's function
  PassContext ctx;
  ctx.training = true;
  const Matrix want = alone.forward(x, ctx).unaryExpr(reluOf);
  EXPECT_EQ(fused.forward(x, ctx), want);
  EXPECT_GT((want.array() == 0.0f).count(), 0);  // the ReLU cut something
  ctx.training = false;  // inference: the running statistics, the ReLU still applied
  EXPECT_EQ(fused.forward(x, ctx), Matrix(alone.forward(x, ctx).unaryExpr(reluOf)));

  Sequential kept("bn_tanh");
  kept.add(std::make_unique<BatchNorm>(BatchNormOptions{}, "bn"));
  kept.add(std::make_unique<ActivationLayer>(Activation::Tanh, "tanh"));
  expectGradientsMatch(kept, {3, 4, 5}, o);
  EXPECT_FALSE(dynamic_cast<const ActivationLayer&>(kept.child(1)).taken());
}

TEST(Gradients, ResidualBlocks) {
  Residual identity("res_identity", Activation::ELU);
  identity.main().add(conv(3, 3, 3, 1, Padding::same(), Activation::Tanh));
  identity.main().add(std::make_unique<BatchNorm>());
  GradCheckOptions o;
  o.batch = 4;
  expectGradientsMatch(identity, {3, 4, 4}, o);

  Residual projection("res_projection", Activation::Linear);
  projection.main().add(conv(4, 3, 3, 2, Padding::explicitPad(1, 1), Activation::Tanh));
  projection.shortcut().add(conv(4, 1, 1, 2, Padding::valid(), Activation::Linear, false));
  projection.shortcut().add(std::make_unique<BatchNorm>());
  expectGradientsMatch(projection, {2, 5, 5}, o);
}

// Blocks in a chain: the second applies the first one's f' (ELU, then tanh: smooth, so finite
// differences hold) in its own pass over dx, and the first skips its pass. Every parameter's
// gradient and the input's still match finite differences (f' applied twice or not at all fails).
TEST(Gradients, ResidualBlocksInAChainApplyEachOthersActivationGradient) {
  Sequential chain("chain");
  auto first = std::make_unique<Residual>("res1", Activation::ELU);
  first->main().add(conv(3, 3, 3, 1, Padding::same(), Activation::Tanh));
  auto second = std::make_unique<Residual>("res2", Activation::Tanh);
  second->main().add(conv(3, 3, 3, 1, Padding::same(), Activation::Linear));
  second->shortcut().add(conv(3, 1, 1, 1, Padding::valid(), Activation::Linear, false));
  chain.add(std::move(first));
  chain.add(std::move(second));
  GradCheckOptions o;
  o.batch = 3;
  expectGradientsMatch(chain, {3, 4, 4}, o);
  EXPECT_EQ(chain.child(0).ownActivation(), Activation::ELU);
}

TEST(Gradients, ConcatWithNestedBranches) {
  Concat c("concat");
  c.addBranch("a").add(conv(2, 1, 1, 1, Padding::valid(), Activation::Tanh));
  Sequential& b = c.addBranch("b");
  b.add(conv(3, 1, 1, 1, Padding::valid(), Activation::ELU));
  auto inner = std::make_unique<Concat>("inner");
  inner->addBranch("x").add(conv(2, 1, 3, 1, Padding::same(), Activation::Linear));
  inner->addBranch("y").add(conv(2, 3, 1, 1, Padding::same(), Activation::Linear));
  b.add(std::move(inner));
  c.addBranch("pool").add(std::make_unique<AvgPool2D>(PoolOptions{3, 3, 1, 1, Padding::same()}));
  expectGradientsMatch(c, {3, 4, 4});
  EXPECT_EQ(c.outShape(), (Shape{2 + 4 + 3, 4, 4}));
}

TEST(Gradients, SequentialChainsLayers) {
  Sequential s("seq");
  s.add(conv(3, 3, 3, 1, Padding::same(), Activation::ELU));
  s.add(std::make_unique<MaxPool2D>(PoolOptions{}));
  s.add(std::make_unique<Flatten>());
  s.add(std::make_unique<Dense>(DenseOptions{4, Activation::Tanh, true, Init::GlorotUniform}));
  expectGradientsMatch(s, {2, 4, 4}, kinked());
}

}  // namespace
}  // namespace core::nn
